// Residual add on HWC tiles: each input rescaled ((x * mul + add) >> shift, clipped when the
// rescale says so), summed, requantized exactly.
#pragma once

#include <cstdint>

#include "ctile/kernels/args.hpp"
#include "ctile/kernels/requant.hpp"
#include "ctile/layers/quant.hpp"

namespace ctile::kernels {

namespace detail {

/// A rescale whose arithmetic on 0..255 inputs stays within +-2^30 in 32 bits.
constexpr bool rescale_fits32(const rescale& r) {
  const std::int64_t m = r.mul < 0 ? -std::int64_t{r.mul} : r.mul;
  const std::int64_t c = r.add < 0 ? -std::int64_t{r.add} : r.add;
  return r.shift >= 0 && r.shift < 31 && m * 255 + c < (std::int64_t{1} << 30);
}

[[gnu::always_inline]] inline std::int32_t rescale32(const rescale& r, std::int32_t x,
                                                     std::int32_t lo, std::int32_t hi) {
  const std::int32_t v = (x * r.mul + r.add) >> r.shift;  // arithmetic since C++20
  return r.clip ? (v < lo ? lo : (v > hi ? hi : v)) : v;
}

}  // namespace detail

namespace detail {
/// An add over box `b`. Plain: unsigned inputs and an unsigned clip (the common case, with no
/// sign handling in the loop).
template <bool Plain>
inline void add_box(const tile_args& a, const box& b) {
  auto* out = static_cast<std::uint8_t*>(a.out);
  const requant_plan q = a.quant;
  const rescale r0 = a.scale0, r1 = a.scale1;
  const bool fast = !q.t64 && detail::rescale_fits32(r0) && detail::rescale_fits32(r1);
  // Signed inputs: their bytes as int8 (flip the top bit, subtract 128).
  const std::int32_t s0 = !Plain && a.in_signed ? 0x80 : 0;
  const std::int32_t s1 = !Plain && a.in2_signed ? 0x80 : 0;
  for (int y = b.y0; y < b.y1; ++y)
    for (int x = b.x0; x < b.x1; ++x) {
      const long base = (static_cast<long>(y) * a.w_out + x) * a.c_out;
      const std::uint8_t* p0 = a.in + base;
      const std::uint8_t* p1 = a.in2 + base;
      std::uint8_t* o = out + base;
      if (fast) {
        for (int ch = b.c0; ch < b.c1; ++ch) {
          const std::int32_t t = detail::rescale32(r0, (p0[ch] ^ s0) - s0, q.lo, q.hi) +
                                 detail::rescale32(r1, (p1[ch] ^ s1) - s1, q.lo, q.hi);
          o[ch] = static_cast<std::uint8_t>(requantize<!Plain>(q, t));
        }
        continue;
      }
      for (int ch = b.c0; ch < b.c1; ++ch) {
        const std::int64_t t =
            apply(r0, (p0[ch] ^ s0) - s0, q.lo, q.hi) + apply(r1, (p1[ch] ^ s1) - s1, q.lo, q.hi);
        o[ch] = static_cast<std::uint8_t>(q.t64 ? requantize64(q, t)
                                                : requantize(q, static_cast<std::int32_t>(t)));
      }
    }
}
}  // namespace detail

/// This core's part of an add tile (in, in2 and out all h_out x w_out x c_out).
inline void add_hwc(const tile_args& a, int core) {
  const box b = work_of(kernel_kind::add, a, core);
  if (b.empty()) return;
  if (!a.in_signed && !a.in2_signed && !signed_clip(a.quant))
    detail::add_box<true>(a, b);
  else
    detail::add_box<false>(a, b);
}
/// The same for core `a.core`.
inline void add_hwc(const tile_args& a) {
  add_hwc(a, a.core);
}

}  // namespace ctile::kernels
