// Whole networks on an L1 of 8 KiB and of 4 KiB, as firmware for a memory-starved core would
// plan them: the classifier's reduction is cut in K tiles with int32 partial sums, and the
// convolutions whose im2col buffers do not fit on every core run on fewer cores. Bit-exact
// with the reference on every layer, with the simulated DMA completing in random order.
#include <gtest/gtest.h>

#include <ctile/ctile.hpp>
#include <ctile/platform/gap8.hpp>
#include <ctile/reference/reference.hpp>
#include <ctile/schedule/host_run.hpp>
#include <span>

#include "check_network.hpp"
#include "networks/cifar10_cnn.hpp"
#include "networks/mobilenet_v1.hpp"
#include "networks/mobilenet_v2.hpp"
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

// The MobileNets, planned at run time (the same search; their per-layer loop nests would take
// long to compile once more), on 8 KiB of L1.
template <class Net>
void check_planned_at_run_time(const platform& p) {
  const examples::synthetic<Net> d(7);
  const std::span<const std::uint8_t> in(d.input.data(), d.input.size());
  const auto expected = reference::run(Net::layers, d.params, in);
  schedule::host_run_options o;
  o.mode = hal::completion::random;
  o.seed = 5;
  const auto r = schedule::plan_and_run_on_host(p, Net::layers, d.params, in, o);
  ASSERT_TRUE(r.planned) << "layer " << r.summary.layer << " needs " << r.summary.needs;
  for (const auto& e : r.run.problems) ADD_FAILURE() << e;
  for (std::size_t i = 0; i < Net::size; ++i) {
    ASSERT_EQ(r.run.outputs[i].size(), expected[i].size()) << "layer " << i;
    std::size_t bad = 0;
    for (std::size_t k = 0; k < expected[i].size(); ++k)
      bad += r.run.outputs[i][k] != expected[i][k];
    EXPECT_EQ(bad, 0u) << "layer " << i << " (" << op_name(Net::layers[i].kind) << ")";
  }
}
TEST(TinyL1, MobileNetV1On8KiB) {
  check_planned_at_run_time<examples::mobilenet_v1_025_128>(l1_8k);
}
TEST(TinyL1, MobileNetV2On8KiB) {
  check_planned_at_run_time<examples::mobilenet_v2_035_128>(l1_8k);
}

}  // namespace
