// Where one output tile of a layer sits, which input region it reads and which padding it
// sees. Pure arithmetic on constants: with a layer and tile sizes known at compile time, every
// value here folds to a constant in the tile loops.
#pragma once

#include "ctile/core/geometry.hpp"
#include "ctile/layers/layer.hpp"

namespace ctile::schedule {

/// One axis of a tile: output range, input range actually read, and the padding the kernel
/// must apply on each side (non-zero only on border tiles).
struct axis_tile {
  int out_begin = 0;
  int out_size = 0;
  int in_begin = 0;
  int in_size = 0;
  int pad_lo = 0;
  int pad_hi = 0;
};

/// The tile `index` of an output axis cut into tiles of `tile` elements.
[[gnu::always_inline]] constexpr axis_tile tile_axis(int in, int out, int k, int s, int pad_lo,
                                                     int tile, int index) {
  axis_tile a;
  a.out_begin = index * tile;
  a.out_size = out - a.out_begin < tile ? out - a.out_begin : tile;
  const int first = a.out_begin * s - pad_lo;                            // first input row touched
  const int last = (a.out_begin + a.out_size - 1) * s - pad_lo + k - 1;  // last one
  a.pad_lo = first < 0 ? -first : 0;
  a.pad_hi = last > in - 1 ? last - (in - 1) : 0;
  a.in_begin = first < 0 ? 0 : first;
  a.in_size = (last > in - 1 ? in - 1 : last) - a.in_begin + 1;
  return a;
}

/// Number of tiles of size `tile` covering `n`.
constexpr int tiles_of(int n, int tile) {
  return (n + tile - 1) / tile;
}

/// A whole tile: the two spatial axes and the output-channel range.
struct tile_region {
  axis_tile y;
  axis_tile x;
  int c_begin = 0;    ///< first output channel
  int c_size = 0;     ///< output channels in this tile
  int cin_begin = 0;  ///< first input channel read (depthwise/pools/add: = c_begin)
  int cin_size = 0;   ///< input channels read
  [[nodiscard]] constexpr padding pad() const { return {y.pad_lo, y.pad_hi, x.pad_lo, x.pad_hi}; }
};

/// Geometry of tile (iy, ix, ic) of layer `l` cut into output tiles of th x tw x tc.
/// For a linear layer the "spatial" axes are 1x1 and the whole input is read.
[[gnu::always_inline]] constexpr tile_region tile_of(const layer& l, shape tile, int iy, int ix,
                                                     int ic) {
  tile_region r;
  const bool windowed = l.kind == op::conv || l.kind == op::depthwise || l.kind == op::maxpool ||
                        l.kind == op::avgpool;
  if (windowed) {
    r.y = tile_axis(l.in.h, l.out.h, l.window().h, l.stride.h, l.pad.t, tile.h, iy);
    r.x = tile_axis(l.in.w, l.out.w, l.window().w, l.stride.w, l.pad.l, tile.w, ix);
  } else {  // add: element-wise; linear: whole input
    const bool whole = l.kind == op::linear;
    r.y = tile_axis(whole ? 1 : l.in.h, l.out.h, 1, 1, 0, tile.h, iy);
    r.x = tile_axis(whole ? 1 : l.in.w, l.out.w, 1, 1, 0, tile.w, ix);
  }
  r.c_begin = ic * tile.c;
  r.c_size = l.out.c - r.c_begin < tile.c ? l.out.c - r.c_begin : tile.c;
  const bool channelwise = l.kind != op::conv && l.kind != op::linear;
  r.cin_begin = channelwise ? r.c_begin : 0;
  r.cin_size = channelwise ? r.c_size : l.in.c;
  return r;
}

}  // namespace ctile::schedule
