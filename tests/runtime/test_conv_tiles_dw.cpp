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

}  // namespace
