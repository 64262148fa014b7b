// Tile geometry: every output element is produced by exactly one tile, and each tile reads
// exactly the input window its outputs need, with padding only where the layer has it.
#include <gtest/gtest.h>

#include <ctile/ctile.hpp>
#include <ctile/schedule/tile_geometry.hpp>
#include <vector>

namespace {

using namespace ctile;
using schedule::tile_of;
using schedule::tiles_of;

layer inferred(std::vector<layer> ls) {
  EXPECT_TRUE(infer(ls).ok());
  return ls.back();
}

void check_cover(const layer& l, shape t) {
  std::vector<int> hits(static_cast<std::size_t>(l.out.elements()), 0);
  for (int iy = 0; iy < tiles_of(l.out.h, t.h); ++iy)
    for (int ix = 0; ix < tiles_of(l.out.w, t.w); ++ix)
      for (int ic = 0; ic < tiles_of(l.out.c, t.c); ++ic) {
        const auto r = tile_of(l, t, iy, ix, ic);
        ASSERT_GT(r.y.out_size, 0);
        ASSERT_GT(r.x.out_size, 0);
        for (int y = r.y.out_begin; y < r.y.out_begin + r.y.out_size; ++y) {
          // The input rows this output row needs, clipped to the input, lie in the tile's
          // input range; what falls outside the input is the tile's padding.
          const int first = y * l.stride.h - l.pad.t;
          const int last = first + l.kernel.h - 1;
          EXPECT_GE(first, r.y.in_begin - r.y.pad_lo);
          EXPECT_LE(last, r.y.in_begin + r.y.in_size - 1 + r.y.pad_hi);
          for (int x = r.x.out_begin; x < r.x.out_begin + r.x.out_size; ++x)
            for (int c = r.c_begin; c < r.c_begin + r.c_size; ++c)
              ++hits[static_cast<std::size_t>((y * l.out.w + x) * l.out.c + c)];
        }
        EXPECT_GE(r.y.in_begin, 0);
        EXPECT_LE(r.y.in_begin + r.y.in_size, l.in.h);
        EXPECT_LE(r.y.pad_lo, l.pad.t);
        EXPECT_LE(r.y.pad_hi, l.pad.b);
        EXPECT_LE(r.x.pad_lo, l.pad.l);
        EXPECT_LE(r.x.pad_hi, l.pad.r);
        // Padding appears only where the tile touches the input's edge.
        if (r.y.pad_lo > 0) {
          EXPECT_EQ(r.y.in_begin, 0);
        }
        if (r.y.pad_hi > 0) {
          EXPECT_EQ(r.y.in_begin + r.y.in_size, l.in.h);
        }
        if (r.x.pad_lo > 0) {
          EXPECT_EQ(r.x.in_begin, 0);
        }
        if (r.x.pad_hi > 0) {
          EXPECT_EQ(r.x.in_begin + r.x.in_size, l.in.w);
        }
      }
  for (int h : hits) ASSERT_EQ(h, 1);
}

TEST(TileGeometry, CoversEveryOutputOnceAcrossShapes) {
  const std::vector<std::vector<layer>> nets = {
      {input(17, 13, 5), conv2d(7, 3).same()},
      {input(20, 9, 3), conv2d(6, 3).strides(2).padded(1, 0, 1, 0)},
      {input(49, 10, 1), conv2d(8, 10, 4).strides(2).padded(4, 5, 1, 1)},
      {input(15, 15, 6), depthwise(5).same()},
      {input(16, 16, 4), maxpool(2)},
      {input(7, 7, 3), maxpool(3).strides(2).padded(1)},
  };
  const std::vector<shape> tiles = {{1, 1, 1}, {3, 4, 2}, {5, 100, 4}, {100, 3, 100}, {2, 2, 3}};
  for (const auto& n : nets) {
    const layer l = inferred(n);
    for (shape t : tiles) {
      SCOPED_TRACE(testing::Message()
                   << op_name(l.kind) << " tile " << t.h << "x" << t.w << "x" << t.c);
      check_cover(l, t);
    }
  }
}

TEST(TileGeometry, BorderTilesGetTheLayersPadding) {
  const layer l = inferred({input(8, 8, 1), conv2d(1, 3).same()});
  const auto first = tile_of(l, {4, 8, 1}, 0, 0, 0);
  EXPECT_EQ(first.y.pad_lo, 1);
  EXPECT_EQ(first.y.pad_hi, 0);
  EXPECT_EQ(first.y.in_begin, 0);
  EXPECT_EQ(first.y.in_size, 5);  // rows 0..4 for outputs 0..3
  const auto last = tile_of(l, {4, 8, 1}, 1, 0, 0);
  EXPECT_EQ(last.y.pad_lo, 0);
  EXPECT_EQ(last.y.pad_hi, 1);
  EXPECT_EQ(last.y.in_begin, 3);
  EXPECT_EQ(last.y.in_size, 5);
  EXPECT_EQ(last.x.pad_lo, 1);  // one tile across: both sides padded
  EXPECT_EQ(last.x.pad_hi, 1);
}

}  // namespace
