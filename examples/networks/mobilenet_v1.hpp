// MobileNet-v1 (Howard et al. 2017) as a template over the width multiplier (in percent) and
// the input resolution: conv 3x3/2, 13 depthwise-separable blocks, global average pool, FC
// 1000 (int32 logits). Channels are 32 * width, ..., 1024 * width. Every conv requantizes
// with divisor_for(its fan-in), so the synthetic activations spread over 0..255.
#pragma once

#include <array>

#include "common/synthetic.hpp"
#include "network_from.hpp"

namespace ctile::examples {

namespace detail {

constexpr int mnv1_channels(int base, int width_percent) {
  const int c = base * width_percent / 100;
  return c < 8 ? 8 : c;
}

template <int WidthPercent, int Resolution>
constexpr auto mobilenet_v1_layers() {
  // (output channels at width 1.0, stride of the depthwise conv) per block.
  constexpr int blocks[13][2] = {{64, 1},  {128, 2},  {128, 1}, {256, 2}, {256, 1},
                                 {512, 2}, {512, 1},  {512, 1}, {512, 1}, {512, 1},
                                 {512, 1}, {1024, 2}, {1024, 1}};
  layer_list<32> l;
  l << input(Resolution, Resolution, 3)
    << conv2d(mnv1_channels(32, WidthPercent), 3)
           .strides(2)
           .padded(1)
           .bn()
           .requantized(1, divisor_for(27))
           .named("conv1");
  int ch = mnv1_channels(32, WidthPercent);
  for (int b = 0; b < 13; ++b) {
    l << depthwise(3)
             .strides(blocks[b][1])
             .padded(1)
             .bn()
             .requantized(1, divisor_for(9))
             .named(numbered("dw", b + 1));
    l << pointwise(mnv1_channels(blocks[b][0], WidthPercent))
             .bn()
             .requantized(1, divisor_for(ch))
             .named(numbered("pw", b + 1));
    ch = mnv1_channels(blocks[b][0], WidthPercent);
  }
  l << global_avgpool().named("pool") << linear(1000).with_bias().raw().named("fc");
  return take<30>(l);
}

}  // namespace detail

template <int WidthPercent, int Resolution>
using mobilenet_v1 = network_from<detail::mobilenet_v1_layers<WidthPercent, Resolution>()>;

using mobilenet_v1_100_128 = mobilenet_v1<100, 128>;
using mobilenet_v1_050_192 = mobilenet_v1<50, 192>;
using mobilenet_v1_025_128 = mobilenet_v1<25, 128>;

}  // namespace ctile::examples
