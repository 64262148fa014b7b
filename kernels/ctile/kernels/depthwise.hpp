// Depthwise convolution: CHW input tile in L1 (the DMA transposes it), HWC output.
// Filters up to 4 wide, on columns without padding: each window row is one word load from the
// input plane (the bytes past the window meet zero weights), dotted by sdotusp4 with the
// filter row held in a register. Otherwise, per channel and output column, a padded vertical
// stripe of kw input columns is laid out row-major ([row][kx]), so every output pixel's
// window is kh * kw contiguous bytes, dotted with the channel's filter (zero-padded to words).
#pragma once

#include <cstdint>

#include "ctile/kernels/args.hpp"
#include "ctile/kernels/atoms/finish.hpp"
#include "ctile/kernels/atoms/matmul.hpp"

namespace ctile::kernels {

namespace detail {

/// One output column of a 3-row filter read straight from the plane, `n` outputs.
template <int Path, bool Lo0>
inline void dw3_column(const atoms::epilogue& epi, int c, const std::uint8_t* p, long w_in,
                       long rstep, std::uint8_t* o, long ostep, int n, const std::uint8_t* filt) {
  const atoms::epilogue ep = epi;  // a local copy: its fields stay in registers
  const std::uint32_t f0 = isa::load4a(filt), f1 = isa::load4a(filt + 4),
                      f2 = isa::load4a(filt + 8);
  const long w2 = 2 * w_in;
  for (int i = 0; i < n; ++i, p += rstep, o += ostep) {
    std::int32_t acc = isa::sdotusp4(isa::load4(p), f0, 0);
    acc = isa::sdotusp4(isa::load4(p + w_in), f1, acc);
    acc = isa::sdotusp4(isa::load4(p + w2), f2, acc);
    *o = static_cast<std::uint8_t>(atoms::finish_as<Path, Lo0>(ep, c, acc));
  }
}

}  // namespace detail

/// This core's part of a depthwise tile. Scratch: depthwise_scratch_per_core(h_out, kh, kw,
/// sh) bytes per core.
inline void depthwise_chw(const tile_args& a) {
  const box b = work_of(kernel_kind::depthwise, a);
  if (b.empty()) return;
  auto* out = static_cast<std::uint8_t*>(a.out);
  const atoms::epilogue ep(a);
  const int n = a.kh * a.kw;
  const int nw = round4(n);
  const int rows = depthwise_stripe_rows(b.y1 - b.y0, a.kh, a.sh);
  std::uint8_t* stripe =
      a.scratch + static_cast<long>(a.core) * depthwise_scratch_per_core(a.h_out, a.kh, a.kw, a.sh);
  std::uint8_t* filt = stripe + round4(a.kw * depthwise_stripe_rows(a.h_out, a.kh, a.sh) + 4);
  for (int i = rows * a.kw; i < rows * a.kw + 4; ++i) stripe[i] = 0;  // word slack
  const int r0 = b.y0 * a.sh - a.pad_t;                               // input row of stripe row 0
  const bool rows_inside = r0 >= 0 && r0 + rows <= a.h_in;
  const int last_row = r0 + rows - 1;
  const long ostep = static_cast<long>(a.w_out) * a.c_out;
  const long rstep = static_cast<long>(a.sh) * a.w_in;
  for (int c = b.c0; c < b.c1; ++c) {
    const auto* w = a.weights + static_cast<long>(c) * n;
    const std::uint8_t* plane = a.in + static_cast<long>(c) * a.h_in * a.w_in;
    const bool narrow = a.kw <= 4 && rows_inside;
    if (narrow) {  // filter rows as words (zero-padded), kh of them
      for (int ky = 0; ky < a.kh; ++ky)
        for (int kx = 0; kx < 4; ++kx)
          filt[4 * ky + kx] = kx < a.kw ? static_cast<std::uint8_t>(w[ky * a.kw + kx]) : 0;
    }
    for (int i = 0; i < n; ++i)
      filt[depthwise_filter_words(a.kh, a.kw) * 4 + i] = static_cast<std::uint8_t>(w[i]);
    for (int i = n; i < nw; ++i) filt[depthwise_filter_words(a.kh, a.kw) * 4 + i] = 0;
    const auto* fw =
        reinterpret_cast<const std::int8_t*>(filt + depthwise_filter_words(a.kh, a.kw) * 4);
    for (int ox = b.x0; ox < b.x1; ++ox) {
      const int ix0 = ox * a.sw - a.pad_l;
      std::uint8_t* o = out + (static_cast<long>(b.y0) * a.w_out + ox) * a.c_out + c;
      // The word loads of the window's last row may run past it into the following rows
      // and planes; they must stay inside the input tile.
      const long past = static_cast<long>(ix0) + 4 - a.w_in;
      const long after = static_cast<long>(a.h_in - 1 - last_row) * a.w_in +
                         static_cast<long>(a.c_in - 1 - c) * a.h_in * a.w_in;
      const bool direct = narrow && ix0 >= 0 && ix0 + a.kw <= a.w_in && past <= after;
      if (direct) {
        const std::uint8_t* p = plane + static_cast<long>(r0) * a.w_in + ix0;
        if (a.kh == 3) {
          const int cnt = b.y1 - b.y0;
          const long wi = a.w_in;
          if (ep.path == 0 && ep.lo == 0)
            detail::dw3_column<0, true>(ep, c, p, wi, rstep, o, ostep, cnt, filt);
          else if (ep.path == 1 && ep.lo == 0)
            detail::dw3_column<1, true>(ep, c, p, wi, rstep, o, ostep, cnt, filt);
          else
            detail::dw3_column<2, false>(ep, c, p, wi, rstep, o, ostep, cnt, filt);
        } else {
          for (int oy = b.y0; oy < b.y1; ++oy, p += rstep, o += ostep) {
            std::int32_t acc = 0;
            const std::uint8_t* q = p;
            for (int ky = 0; ky < a.kh; ++ky, q += a.w_in)
              acc = isa::sdotusp4(isa::load4(q), isa::load4a(filt + 4 * ky), acc);
            *o = static_cast<std::uint8_t>(ep(c, acc));
          }
        }
        continue;
      }
      const int kx_lo = ix0 < 0 ? -ix0 : 0;
      const int kx_hi = ix0 + a.kw > a.w_in ? a.w_in - ix0 : a.kw;
      std::uint8_t* s = stripe;
      for (int r = 0; r < rows; ++r, s += a.kw) {
        const int iy = r0 + r;
        if (iy < 0 || iy >= a.h_in) {
          for (int kx = 0; kx < a.kw; ++kx) s[kx] = 0;
          continue;
        }
        const std::uint8_t* src = plane + static_cast<long>(iy) * a.w_in + ix0;
        int kx = 0;
        for (; kx < kx_lo; ++kx) s[kx] = 0;
        for (; kx < kx_hi; ++kx) s[kx] = src[kx];
        for (; kx < a.kw; ++kx) s[kx] = 0;
      }
      const std::uint8_t* win = stripe;
      for (int oy = b.y0; oy < b.y1; ++oy, win += a.sh * a.kw, o += ostep)
        *o = static_cast<std::uint8_t>(ep(c, atoms::dot(win, fw, nw, 0)));
    }
  }
}

}  // namespace ctile::kernels
