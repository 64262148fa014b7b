// The specialised convolution loop (see conv_tiles_check.hpp) on max and average pools and on
// residual adds: the input tile (each input's) holds the output tile's channels only, so a
// channel tile narrower than the layer reads 2-D lines of its channels; border tiles with
// padding, global pools.
#include "conv_tiles_check.hpp"

namespace {

using namespace ctile;
using namespace conv_tiles_test;

using max2 = network<input(16, 18, 12), maxpool(2)>;
using avg3 = network<input(9, 9, 6), avgpool(3).strides(2).padded(1)>;
using global = network<input(8, 8, 12), global_avgpool().requantized(3, 128)>;
using residual = network<input(10, 11, 8), conv2d(8, 1).named("a"),
                         add("a").scaled(0, {3, 1, 1, true}).scaled(1, {1, 0, 1, false})>;

TEST(ConvTiles, MaxPool) {
  // Whole rows of every channel (1-D inputs), then channel tiles of 5 (the last 2 wide).
  constexpr layer_plan rows = plan_with(max2::layers[1], 3, 9, 12);
  check<max2, rows>({{{0, 8, 0, 12}}, {{0, 3, 0, 12}, {3, 8, 0, 12}}}, 8, 31);
  constexpr layer_plan narrow = plan_with(max2::layers[1], 3, 9, 5);
  check<max2, narrow>({{{0, 8, 0, 12}}, {{0, 8, 0, 5}, {0, 8, 5, 12}}}, 3, 32);
  check<max2, single_buffered(narrow)>({{{0, 8, 0, 12}}}, 8, 33);
  // Column tiles of every channel: 2-D rows.
  constexpr layer_plan cols = plan_with(max2::layers[1], 4, 4, 12);
  check<max2, cols>({{{0, 8, 0, 12}}, {{0, 4, 0, 12}, {4, 8, 0, 12}}}, 8, 34);
  // Column tiles of part of the channels take one command per row, through copy_box.
  constexpr layer_plan boxes = plan_with(max2::layers[1], 4, 4, 5);
  static_assert(
      !schedule::conv_detail::shapes_of<max2::layers[1], boxes>(hal::host_dma::limits).single);
  check<max2, boxes>({{{0, 8, 0, 12}}, {{0, 8, 0, 5}, {0, 8, 5, 12}}}, 8, 35);
  check<max2, single_buffered(boxes)>({{{0, 8, 0, 12}}}, 3, 30);
}

TEST(ConvTiles, AveragePool) {
  // Stride 2 and padding on every side: border tiles, and a short last row tile.
  constexpr layer_plan rows = plan_with(avg3::layers[1], 2, 5, 6);
  check<avg3, rows>({{{0, 5, 0, 6}}, {{0, 2, 0, 6}, {2, 5, 0, 6}}}, 8, 36);
  constexpr layer_plan tiles = plan_with(avg3::layers[1], 2, 2, 6);
  check<avg3, tiles>({{{0, 5, 0, 6}}}, 5, 37);
  constexpr layer_plan narrow = plan_with(avg3::layers[1], 2, 5, 4);
  check<avg3, narrow>({{{0, 5, 0, 6}}, {{0, 5, 0, 4}, {0, 5, 4, 6}}}, 8, 38);
  // Global: one spatial tile, by channel tiles or whole.
  check<global, plan_with(global::layers[1], 1, 1, 12)>({{{0, 1, 0, 12}}}, 8, 39);
  constexpr layer_plan gnarrow = plan_with(global::layers[1], 1, 1, 5);
  check<global, gnarrow>({{{0, 1, 0, 12}}, {{0, 1, 0, 5}, {0, 1, 5, 12}}}, 8, 40);
  check<global, single_buffered(gnarrow)>({{{0, 1, 0, 12}}}, 3, 41);
}

// Layer 2 adds layer 1's output to the network input, each rescaled.
TEST(ConvTiles, Add) {
  constexpr layer l = residual::layers[2];
  constexpr layer_plan rows = plan_with(l, 3, 11, 8);
  check<residual, rows, true, 2>({{{0, 10, 0, 8}}, {{0, 3, 0, 8}, {3, 10, 0, 8}}}, 8, 42);
  constexpr layer_plan narrow = plan_with(l, 4, 11, 3);
  check<residual, narrow, true, 2>({{{0, 10, 0, 8}}, {{0, 10, 0, 3}, {0, 10, 3, 8}}}, 3, 43);
  check<residual, single_buffered(narrow), true, 2>({{{0, 10, 0, 8}}}, 8, 44);
  constexpr layer_plan cols = plan_with(l, 5, 4, 8);
  check<residual, cols, true, 2>({{{0, 10, 0, 8}}}, 8, 45);
}

}  // namespace
