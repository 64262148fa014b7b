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
// rolled loop as well); one of many tiles keeps the loop. (Unrolling is kept for layers whose
// saving is a visible share of their cycles: a thin one here.)
using thin3x3 = network<input(19, 23, 4), conv2d(8, 3).same().bn().requantized(1, 256)>;
TEST(ConvTiles, UnrolledAndRolled) {
  constexpr layer_plan few = plan_with(thin3x3::layers[1], 7, 23, 8);  // 3 row tiles
  static_assert(unrolls<thin3x3::layers[1], few>());
  check<thin3x3, few>({{{0, 19, 0, 8}}}, 8, 48);
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

// Axis tables as lines (conv_detail::line_of, on_line): a rolled loop computes a tile's row or
// column geometry instead of reading its table in L2 when the table is a line but for its
// first and last entries. Over a grid of axes (input and output extents, window, stride,
// padding, tile), the line reproduces every entry of the table, sets an edge entry apart only
// where the line's own value differs, and the cases worked by hand come out as expected.
namespace axis_lines {

using schedule::conv_detail::axis_entry;
using schedule::conv_detail::axis_line;

constexpr bool same(const axis_entry& x, const axis_entry& y) {
  return x.in_off == y.in_off && x.in_size == y.in_size && x.out_off == y.out_off &&
         x.out_size == y.out_size && x.pad_lo == y.pad_lo && x.pad_hi == y.pad_hi;
}
/// The table of an axis of `out` outputs from `in` inputs (window k, stride s, padding pad
/// before), tiles of `tile` outputs, inputs 7 and outputs 5 bytes apart.
template <int In, int Out, int K, int S, int Pad, int Tile>
constexpr auto table() {
  std::array<axis_entry, static_cast<std::size_t>((Out + Tile - 1) / Tile)> t{};
  for (std::size_t i = 0; i < t.size(); ++i) {
    const schedule::axis_tile a =
        schedule::tile_axis(In, Out, K, S, Pad, Tile, static_cast<int>(i));
    t[i] = {a.in_begin * 7, a.in_size, a.out_begin * 5, a.out_size, a.pad_lo, a.pad_hi};
  }
  return t;
}
/// The line's entry i as the line alone gives it (no entry set apart).
constexpr axis_entry plain(const axis_line& ln, int i) {
  return {ln.a.in_off + i * ln.d.in_off,   ln.a.in_size + i * ln.d.in_size,
          ln.a.out_off + i * ln.d.out_off, ln.a.out_size + i * ln.d.out_size,
          ln.a.pad_lo + i * ln.d.pad_lo,   ln.a.pad_hi + i * ln.d.pad_hi};
}
/// -1: the table is no line; else 1 when the line gives every entry and sets an edge entry
/// apart only where the plain line differs from it, 0 otherwise.
template <int In, int Out, int K, int S, int Pad, int Tile>
constexpr int check() {
  constexpr auto t = table<In, Out, K, S, Pad, Tile>();
  constexpr axis_line ln = schedule::conv_detail::line_of(t);
  if constexpr (!ln.ok) {
    return -1;
  } else {
    const int n = static_cast<int>(t.size());
    for (int i = 0; i < n; ++i)
      if (!same(schedule::conv_detail::on_line<ln>(i), t[static_cast<std::size_t>(i)])) return 0;
    for (int i = 1; i + 1 < n; ++i)
      if (!same(plain(ln, i), t[static_cast<std::size_t>(i)])) return 0;
    if (ln.first_apart && same(plain(ln, 0), t[0])) return 0;
    if (ln.last_apart && same(plain(ln, n - 1), t[t.size() - 1])) return 0;
    return 1;
  }
}
template <int In, int Out, int K, int S, int Pad, int Tile>
constexpr axis_line line() {
  return schedule::conv_detail::line_of(table<In, Out, K, S, Pad, Tile>());
}

// Worked by hand. 64 rows of a pointwise layer in tiles of 8: uniform, nothing apart.
static_assert(line<64, 64, 1, 1, 0, 8>().ok && !line<64, 64, 1, 1, 0, 8>().first_apart &&
              !line<64, 64, 1, 1, 0, 8>().last_apart);
// In tiles of 3: 21 of 3 rows and a last one of 1, set apart.
static_assert(line<64, 64, 1, 1, 0, 3>().ok && !line<64, 64, 1, 1, 0, 3>().first_apart &&
              line<64, 64, 1, 1, 0, 3>().last_apart &&
              line<64, 64, 1, 1, 0, 3>().last.out_size == 1);
// 3 x 3, padding 1, 19 rows in tiles of 5: the first tile padded above (its input 6 rows),
// the last (4 rows) below; the middle ones read 7 rows, 5 apart.
static_assert(line<19, 19, 3, 1, 1, 5>().first_apart && line<19, 19, 3, 1, 1, 5>().last_apart &&
              line<19, 19, 3, 1, 1, 5>().first.pad_lo == 1 &&
              line<19, 19, 3, 1, 1, 5>().last.pad_hi == 1 &&
              line<19, 19, 3, 1, 1, 5>().d.in_off == 35);

template <int In, int Out, int K, int S, int Pad>
constexpr bool every_tile() {
  return check<In, Out, K, S, Pad, 1>() != 0 && check<In, Out, K, S, Pad, 2>() != 0 &&
         check<In, Out, K, S, Pad, 3>() != 0 && check<In, Out, K, S, Pad, 5>() != 0 &&
         check<In, Out, K, S, Pad, 8>() != 0 && check<In, Out, K, S, Pad, Out>() != 0;
}
// Inputs of 7, 16, 33 and 64: pointwise; 3 x 3 and 5 x 5 at stride 1 (padded to keep the
// extent, or not); 3 x 3 at stride 2, padded or not.
static_assert(every_tile<7, 7, 1, 1, 0>() && every_tile<16, 16, 1, 1, 0>() &&
              every_tile<33, 33, 1, 1, 0>() && every_tile<64, 64, 1, 1, 0>());
static_assert(every_tile<7, 7, 3, 1, 1>() && every_tile<16, 16, 3, 1, 1>() &&
              every_tile<33, 33, 3, 1, 1>() && every_tile<64, 64, 3, 1, 1>());
static_assert(every_tile<16, 14, 3, 1, 0>() && every_tile<33, 31, 3, 1, 0>() &&
              every_tile<16, 16, 5, 1, 2>() && every_tile<33, 29, 5, 1, 0>());
static_assert(every_tile<16, 8, 3, 2, 1>() && every_tile<33, 17, 3, 2, 1>() &&
              every_tile<64, 32, 3, 2, 1>() && every_tile<33, 16, 3, 2, 0>());
// None of them is a line that gives an entry wrong (0). Tiles of one output row make a line
// with its edges apart under a 3-row window padded by 1, and none under a 5-row window padded
// by 2, whose second tile is padded too (-1: the loop reads that table).
static_assert(check<16, 16, 3, 1, 1, 1>() == 1 && check<64, 32, 3, 2, 1, 1>() == 1);
static_assert(check<16, 16, 5, 1, 2, 1>() == -1);

}  // namespace axis_lines

}  // namespace
