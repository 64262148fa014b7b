// Whole networks on an L1 of 8 KiB and of 4 KiB, as firmware for a memory-starved core would
// plan them: the classifier's reduction is cut in K tiles with int32 partial sums, and the
// convolutions whose im2col buffers do not fit on every core run on fewer cores. Bit-exact
// with the reference on every layer, with the simulated DMA completing in random order.
#include <gtest/gtest.h>

#include <ctile/ctile.hpp>
#include <ctile/platform/gap8.hpp>

#include "check_network.hpp"
#include "networks/cifar10_cnn.hpp"
#include "networks/residual.hpp"

namespace {

using namespace ctile;
using test::check_network;

constexpr platform l1_8k = gap8.with_stacks(0, 0).with_l1(8 * 1024).named("l1-8k");
constexpr platform l1_4k = gap8.with_stacks(0, 0).with_l1(4 * 1024).named("l1-4k");

template <class Net, platform Plat>
bool some_layer_on_fewer_cores() {
  for (const auto& lp : executor<Net, Plat>::plan.layers)
    if (lp.kind != op::input && lp.cores < Plat.cores) return true;
  return false;
}

TEST(TinyL1, Cifar10On8KiB) {
  // The classifier's 4 KiB weight rows cannot fit whole beside their input.
  const auto& fc = executor<examples::cifar10_cnn, l1_8k>::plan.layers.back();
  EXPECT_GT(fc.n_k, 1) << "the classifier's reduction was not cut";
  EXPECT_TRUE((some_layer_on_fewer_cores<examples::cifar10_cnn, l1_8k>()));
  check_network<examples::cifar10_cnn, l1_8k>("8 KiB L1", {hal::completion::random});
}
TEST(TinyL1, Cifar10On4KiB) {
  check_network<examples::cifar10_cnn, l1_4k>("4 KiB L1", {hal::completion::random});
}
TEST(TinyL1, ResidualOn8KiB) {
  check_network<examples::resnet_small, l1_8k>("8 KiB L1");
}
TEST(TinyL1, ResidualOn4KiB) {
  check_network<examples::resnet_small, l1_4k>("4 KiB L1", {hal::completion::random});
}

}  // namespace
