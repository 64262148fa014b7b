// The example networks' synthetic activations must spread over 0..255 layer by layer (the
// requantization constants the declarations choose), or a bit-exact run says little: a layer
// whose outputs are mostly 0 or 255 would match almost any kernel.
#include <gtest/gtest.h>

#include <cstddef>
#include <ctile/ctile.hpp>
#include <ctile/reference/reference.hpp>
#include <memory>
#include <span>

#include "common/synthetic.hpp"
#include "networks/mobilenet_v1.hpp"
#include "networks/mobilenet_v2.hpp"

namespace {

using namespace ctile;

template <class Net>
void expect_activations_spread() {
  const auto d = std::make_unique<examples::synthetic<Net>>(1);
  const auto outs = reference::run(Net::layers, d->params,
                                   std::span<const std::uint8_t>(d->input.data(), d->input.size()));
  for (std::size_t i = 1; i < Net::size; ++i) {
    if (Net::layers[i].output() != output_kind::u8) continue;
    std::size_t inside = 0;
    for (auto v : outs[i]) inside += v > 0 && v < 255;
    EXPECT_GT(inside, outs[i].size() / 4)
        << "layer " << i << " (" << Net::layers[i].name.c_str() << ") is mostly clipped";
  }
}

TEST(ExampleActivations, MobileNetV1_100_128) {
  expect_activations_spread<examples::mobilenet_v1_100_128>();
}
TEST(ExampleActivations, MobileNetV1_050_192) {
  expect_activations_spread<examples::mobilenet_v1_050_192>();
}
TEST(ExampleActivations, MobileNetV1_025_128) {
  expect_activations_spread<examples::mobilenet_v1_025_128>();
}
TEST(ExampleActivations, MobileNetV2_035_128) {
  expect_activations_spread<examples::mobilenet_v2_035_128>();
}
TEST(ExampleActivations, MobileNetV2_100_128) {
  expect_activations_spread<examples::mobilenet_v2_100_128>();
}

}  // namespace
