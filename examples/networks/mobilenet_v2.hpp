// MobileNet-v2 (Sandler et al. 2018) as a template over the width multiplier (in percent) and
// the input resolution: conv 3x3/2, 17 inverted-residual blocks (expand 1x1, depthwise 3x3,
// project 1x1, residual add when the shape is kept), conv 1x1 to 1280, global average pool,
// FC 1000 (int32 logits). Channels are rounded to multiples of 8 as the reference does.
// Convs requantize with divisor_for(fan-in) and residual adds halve both inputs, so the
// synthetic activations spread over 0..255.
#pragma once

#include <array>

#include "common/synthetic.hpp"
#include "network_from.hpp"

namespace ctile::examples {

namespace detail {

/// Round c * width to a multiple of 8, never below 8 nor more than 10% below c * width.
constexpr int mnv2_channels(int base, int width_percent) {
  const int v100 = base * width_percent;  // c * width * 100
  int r = (v100 + 400) / 800 * 8;
  if (r < 8) r = 8;
  if (r * 100 * 10 < v100 * 9) r += 8;
  return r;
}

template <int WidthPercent, int Resolution>
constexpr auto mobilenet_v2_layers() {
  // expansion t, output channels c, repeats n, first stride s.
  constexpr int cfg[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                             {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  layer_list<80> l;
  int ch = mnv2_channels(32, WidthPercent);
  l << input(Resolution, Resolution, 3)
    << conv2d(ch, 3).strides(2).padded(1).bn().requantized(1, divisor_for(27)).named("conv1");
  name_t prev = name_t("conv1");
  int block = 0;
  for (const auto& g : cfg) {
    const int out = mnv2_channels(g[1], WidthPercent);
    for (int i = 0; i < g[2]; ++i) {
      ++block;
      const int stride = i == 0 ? g[3] : 1;
      if (g[0] != 1)
        l << pointwise(ch * g[0])
                 .bn()
                 .requantized(1, divisor_for(ch))
                 .named(numbered("expand", block));
      l << depthwise(3)
               .strides(stride)
               .padded(1)
               .bn()
               .requantized(1, divisor_for(9))
               .named(numbered("dw", block));
      l << pointwise(out)
               .bn()
               .requantized(1, divisor_for(ch * g[0]))
               .named(numbered("project", block));
      if (stride == 1 && ch == out) {
        layer a = add(0, 0).scaled(0, half).scaled(1, half).named(numbered("add", block));
        a.sources[0] = source{-1, numbered("project", block)};
        a.sources[1] = source{-1, prev};
        l << a;
        prev = numbered("add", block);
      } else {
        prev = numbered("project", block);
      }
      ch = out;
    }
  }
  const int last = WidthPercent > 100 ? mnv2_channels(1280, WidthPercent) : 1280;
  l << pointwise(last).bn().requantized(1, divisor_for(ch)).named("conv_last")
    << global_avgpool().named("pool") << linear(1000).with_bias().raw().named("fc");
  return l;
}

template <int WidthPercent, int Resolution>
constexpr std::size_t mobilenet_v2_size = mobilenet_v2_layers<WidthPercent, Resolution>().n;

template <int WidthPercent, int Resolution>
constexpr auto mobilenet_v2_array() {
  return take<mobilenet_v2_size<WidthPercent, Resolution>>(
      mobilenet_v2_layers<WidthPercent, Resolution>());
}

}  // namespace detail

template <int WidthPercent, int Resolution>
using mobilenet_v2 = network_from<detail::mobilenet_v2_array<WidthPercent, Resolution>()>;

using mobilenet_v2_035_128 = mobilenet_v2<35, 128>;
using mobilenet_v2_100_128 = mobilenet_v2<100, 128>;

}  // namespace ctile::examples
