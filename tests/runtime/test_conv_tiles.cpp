// The convolution loop specialised for layers and plans known at compile time
// (schedule/conv_tiles.hpp), on the host's simulated DMA: border tiles, column tiles whose
// input is 2-D, a short last channel tile, single-buffered inputs, outputs and weights, and
// runs over row and channel stripes of the layer (as L3 staging runs it), checked value by
// value against the reference, with every DMA completion order the simulator produces, no
// checker violation, and the same number of DMA commands as the generic loop.
// This file: standard convolutions.
#include "conv_tiles_check.hpp"

namespace {

using namespace ctile;
using namespace conv_tiles_test;

TEST(ConvTiles, BordersAndColumnTiles) {
  // 4 x 4 tiles of every channel: 2-D inputs and outputs (rows of a tile's pixels).
  constexpr layer_plan p = plan_with(conv3x3::layers[1], 5, 7, 12);
  check<conv3x3, p>({{{0, 19, 0, 12}}}, 8, 1);
  check<conv3x3, single_buffered(p)>({{{0, 19, 0, 12}}}, 8, 2);
  check<conv3x3, p>({{{0, 10, 0, 12}, {10, 19, 0, 12}}, {{0, 5, 0, 12}, {5, 19, 0, 12}}}, 3, 3);
  // Rows of whole width and channel tiles, the last 2 channels wide; stripes of rows and of
  // channel tiles.
  constexpr layer_plan rows = plan_with(conv3x3::layers[1], 4, 23, 5);
  check<conv3x3, rows>({{{0, 19, 0, 12}}, {{0, 8, 0, 12}, {8, 19, 0, 12}}}, 8, 4);
  check<conv3x3, rows>({{{0, 19, 0, 5}, {0, 19, 5, 12}}, {{0, 4, 0, 12}, {4, 19, 0, 12}}}, 8, 5);
  check<conv3x3, single_buffered(rows)>({{{0, 19, 0, 12}}}, 8, 6);
  // Column tiles with part of the channels take one output command per row: the specialised
  // loop programs them through copy_box (the same commands as the generic loop, which check()
  // compares), rolled and unrolled, whole and by stripes.
  constexpr layer_plan boxes = plan_with(conv3x3::layers[1], 5, 7, 5);
  static_assert(
      !schedule::conv_detail::shapes_of<conv3x3::layers[1], boxes>(hal::host_dma::limits).single);
  check<conv3x3, boxes>({{{0, 19, 0, 12}}, {{0, 10, 0, 12}, {10, 19, 0, 12}}}, 8, 7);
  check<conv3x3, boxes>({{{0, 19, 0, 5}, {0, 19, 5, 12}}}, 3, 8);
  check<conv3x3, single_buffered(boxes)>({{{0, 19, 0, 12}}}, 8, 9);
}

// Layers of few tiles run whole through the unrolled sequence (check() compares it with the
// rolled loop as well); one of many tiles keeps the loop.
TEST(ConvTiles, UnrolledAndRolled) {
  constexpr layer_plan few = plan_with(conv3x3::layers[1], 7, 23, 12);  // 3 row tiles
  static_assert(unrolls<conv3x3::layers[1], few>());
  check<conv3x3, few>({{{0, 19, 0, 12}}}, 8, 48);
  constexpr layer_plan many = plan_with(conv3x3::layers[1], 1, 7, 12);  // 19 x 4 tiles
  static_assert(!unrolls<conv3x3::layers[1], many>());
  static_assert(schedule::conv_detail::specialised<conv3x3::layers[1], many>());
  check<conv3x3, many>({{{0, 19, 0, 12}}, {{0, 7, 0, 12}, {7, 19, 0, 12}}}, 8, 46);
  constexpr layer_plan dw_many = plan_with(dwise::layers[1], 1, 17, 4);  // 15 x 5 tiles
  static_assert(!unrolls<dwise::layers[1], dw_many>());
  check<dwise, dw_many>({{{0, 15, 0, 20}}}, 8, 47);
}

TEST(ConvTiles, StridedAndPadded) {
  constexpr layer_plan p = plan_with(strided::layers[1], 3, 2, 6);
  check<strided, p>({{{0, 10, 0, 6}}, {{0, 3, 0, 6}, {3, 6, 0, 6}, {6, 10, 0, 6}}}, 3, 8);
  check<strided, single_buffered(p)>({{{0, 10, 0, 6}}}, 8, 9);
  constexpr layer_plan rows = plan_with(strided::layers[1], 3, 4, 4);
  check<strided, rows>({{{0, 10, 0, 6}}, {{0, 3, 0, 6}, {3, 10, 0, 6}}}, 8, 10);
}

}  // namespace
