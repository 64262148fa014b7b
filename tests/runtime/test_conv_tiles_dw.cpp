// The specialised convolution loop (see conv_tiles_check.hpp) on depthwise layers.
#include "conv_tiles_check.hpp"

namespace {

using namespace ctile;
using namespace conv_tiles_test;

// Depthwise inputs are marshalled by the cores (one command per channel, or per channel and
// row when a tile is narrower than the input), the next tile's during the current kernel.
TEST(ConvTiles, Depthwise) {
  // Whole rows: 3 row tiles x 3 channel tiles (the last 4 channels wide).
  constexpr layer_plan p = plan_with(dwise::layers[1], 5, 17, 8);
  check<dwise, p>({{{0, 15, 0, 20}}, {{0, 5, 0, 20}, {5, 15, 0, 20}}}, 8, 15);
  check<dwise, p>({{{0, 15, 0, 8}, {0, 15, 8, 20}}}, 3, 16);
  check<dwise, single_buffered(p)>({{{0, 15, 0, 20}}}, 8, 17);
  // Column tiles of every channel (2-D outputs), one command per channel and row.
  constexpr layer_plan cols = plan_with(dwise::layers[1], 4, 6, 20);
  check<dwise, cols>({{{0, 15, 0, 20}}, {{0, 8, 0, 20}, {8, 15, 0, 20}}}, 8, 18);
  // Stride 2 and one-sided padding; one tile per stripe.
  constexpr layer_plan s2 = plan_with(dw_strided::layers[1], 4, 8, 16);
  check<dw_strided, s2>({{{0, 8, 0, 16}}, {{0, 4, 0, 16}, {4, 8, 0, 16}}}, 5, 19);
}

// Dilation and padding as large as the window or larger: a dilated depthwise layer whose first
// and last row tiles meet more padding than its kernel; a 1-D dilated conv (a TCN layer, causal
// padding) in column tiles; a 2x2 stride-2 conv with 2 on every side in 2 x 2 tiles.
using dw_dilated =
    network<input(12, 13, 8), depthwise(3).dilated(2).padded(5, 4, 5, 4).bn().requantized(1, 128)>;
using tcn_conv =
    network<input(1, 40, 8),
            conv2d(12, 1, 3).dilated(4).padded(0, 0, 8, 0).with_bias().requantized(1, 512)>;
using over_padded =
    network<input(9, 9, 4), conv2d(8, 2).strides(2).padded(2).with_bias().requantized(1, 256)>;

TEST(ConvTiles, DilatedAndOverPadded) {
  static_assert(dw_dilated::layers[1].out == shape{17, 18, 8});
  constexpr layer_plan dw = plan_with(dw_dilated::layers[1], 4, 18, 8);
  check<dw_dilated, dw>({{{0, 17, 0, 8}}, {{0, 8, 0, 8}, {8, 17, 0, 8}}}, 8, 60);
  static_assert(tcn_conv::layers[1].out == shape{1, 40, 12});
  constexpr layer_plan tcn = plan_with(tcn_conv::layers[1], 1, 7, 12);
  check<tcn_conv, tcn>({{{0, 1, 0, 12}}}, 8, 61);
  static_assert(over_padded::layers[1].out == shape{6, 6, 8});
  constexpr layer_plan op = plan_with(over_padded::layers[1], 2, 2, 8);
  check<over_padded, op>({{{0, 6, 0, 8}}}, 3, 62);
}

}  // namespace
