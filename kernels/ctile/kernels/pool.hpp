// Max and average pooling on an HWC tile (per-tile padding: padded taps are skipped, as in
// the reference). Max works on four channels at once with maxu4 (signed bytes with their top
// bits flipped); average sums the window and requantizes exactly (global average: the window
// is the whole tile).
#pragma once

#include <cstdint>

#include "ctile/kernels/arch/isa.hpp"
#include "ctile/kernels/args.hpp"
#include "ctile/kernels/requant.hpp"

namespace ctile::kernels {

namespace detail {

/// Input window of output pixel (oy, ox) clipped to the tile: rows [y0, y1), cols [x0, x1).
struct window {
  int y0, y1, x0, x1;
};
inline window window_of(const tile_args& a, int oy, int ox) {
  const int iy = oy * a.sh - a.pad_t;
  const int ix = ox * a.sw - a.pad_l;
  window w{iy, iy + a.kh, ix, ix + a.kw};
  if (w.y0 < 0) w.y0 = 0;
  if (w.x0 < 0) w.x0 = 0;
  if (w.y1 > a.h_in) w.y1 = a.h_in;
  if (w.x1 > a.w_in) w.x1 = a.w_in;
  return w;
}

}  // namespace detail

/// Max pool: this core's part of the tile.
namespace detail {
/// Max pool over box `b` (Signed: the input's bytes are int8).
template <bool Signed>
inline void maxpool_box(const tile_args& a, const box& b) {
  auto* out = static_cast<std::uint8_t*>(a.out);
  const int c = a.c_in;
  // Signed bytes: flipping each byte's top bit maps -128..127 onto 0..255 in order, so the
  // unsigned byte-wise max of the flipped words is the flipped signed max.
  constexpr std::uint32_t flip = Signed ? 0x80808080u : 0u;
  constexpr std::uint32_t flip1 = flip & 0xFFu;
  for (int oy = b.y0; oy < b.y1; ++oy)
    for (int ox = b.x0; ox < b.x1; ++ox) {
      const detail::window w = detail::window_of(a, oy, ox);
      std::uint8_t* o = out + (static_cast<long>(oy) * a.w_out + ox) * a.c_out;
      int ch = b.c0;
      for (; ch + 4 <= b.c1; ch += 4) {
        std::uint32_t m = 0;
        for (int y = w.y0; y < w.y1; ++y)
          for (int x = w.x0; x < w.x1; ++x)
            m = isa::maxu4(m,
                           isa::load4(a.in + (static_cast<long>(y) * a.w_in + x) * c + ch) ^ flip);
        isa::store4(o + ch, m ^ flip);
      }
      for (; ch < b.c1; ++ch) {
        std::uint32_t m = 0;
        for (int y = w.y0; y < w.y1; ++y)
          for (int x = w.x0; x < w.x1; ++x) {
            const std::uint32_t v = a.in[(static_cast<long>(y) * a.w_in + x) * c + ch] ^ flip1;
            m = v > m ? v : m;
          }
        o[ch] = static_cast<std::uint8_t>(m ^ flip1);
      }
    }
}
}  // namespace detail

inline void maxpool_hwc(const tile_args& a, int core) {
  const box b = work_of(kernel_kind::maxpool, a, core);
  if (b.empty()) return;
  if (a.in_signed)
    detail::maxpool_box<true>(a, b);
  else
    detail::maxpool_box<false>(a, b);
}
/// The same for core `a.core`.
inline void maxpool_hwc(const tile_args& a) {
  maxpool_hwc(a, a.core);
}

/// Average pool: floor(sum * m / d) clipped, exactly (the plan from plan_for / plan_requant
/// over [0, 255 * kh * kw]).
namespace detail {
/// Average pool over box `b`. Plain: unsigned input and an unsigned clip (the common case,
/// whose requantization has no signed clamp or offsets).
template <bool Plain>
inline void avgpool_box(const tile_args& a, const box& b) {
  auto* out = static_cast<std::uint8_t*>(a.out);
  const int c = a.c_in;
  for (int oy = b.y0; oy < b.y1; ++oy)
    for (int ox = b.x0; ox < b.x1; ++ox) {
      const detail::window w = detail::window_of(a, oy, ox);
      std::uint8_t* o = out + (static_cast<long>(oy) * a.w_out + ox) * a.c_out;
      for (int ch = b.c0; ch < b.c1; ++ch) {
        std::int32_t s = 0;
        for (int y = w.y0; y < w.y1; ++y) {
          const std::uint8_t* p = a.in + (static_cast<long>(y) * a.w_in + w.x0) * c + ch;
          if (!Plain && a.in_signed)
            for (int x = w.x0; x < w.x1; ++x, p += c) s += static_cast<std::int8_t>(*p);
          else
            for (int x = w.x0; x < w.x1; ++x, p += c) s += *p;
        }
        o[ch] = static_cast<std::uint8_t>(requantize<!Plain>(a.quant, s));
      }
    }
}
}  // namespace detail

inline void avgpool_hwc(const tile_args& a, int core) {
  const box b = work_of(kernel_kind::avgpool, a, core);
  if (b.empty()) return;
  if (!a.in_signed && !signed_clip(a.quant))
    detail::avgpool_box<true>(a, b);
  else
    detail::avgpool_box<false>(a, b);
}
/// The same for core `a.core`.
inline void avgpool_hwc(const tile_args& a) {
  avgpool_hwc(a, a.core);
}

}  // namespace ctile::kernels
