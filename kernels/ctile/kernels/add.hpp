// Residual add on HWC tiles: each input rescaled ((x * mul + add) >> shift, clipped when the
// rescale says so), summed, requantized exactly.
#pragma once

#include <cstdint>

#include "ctile/kernels/args.hpp"
#include "ctile/kernels/requant.hpp"
#include "ctile/layers/quant.hpp"

namespace ctile::kernels {

/// This core's part of an add tile (in, in2 and out all h_out x w_out x c_out).
inline void add_hwc(const tile_args& a) {
  const box b = work_of(kernel_kind::add, a);
  if (b.empty()) return;
  auto* out = static_cast<std::uint8_t*>(a.out);
  const requant_plan& q = a.quant;
  for (int y = b.y0; y < b.y1; ++y)
    for (int x = b.x0; x < b.x1; ++x) {
      const long base = (static_cast<long>(y) * a.w_out + x) * a.c_out;
      for (int ch = b.c0; ch < b.c1; ++ch) {
        const std::int64_t t = apply(a.scale0, a.in[base + ch], q.lo, q.hi) +
                               apply(a.scale1, a.in2[base + ch], q.lo, q.hi);
        out[base + ch] = static_cast<std::uint8_t>(
            q.t64 ? requantize64(q, t) : requantize(q, static_cast<std::int32_t>(t)));
      }
    }
}

}  // namespace ctile::kernels
