// Depthwise convolution: CHW input tile in L1 (the DMA transposes it), HWC output.
// Filters up to 4 wide, on columns without padding: each window row is one word load from the
// input plane (the bytes past the window meet zero weights), dotted by sdotusp4 with the
// filter row held in a register. Otherwise, per channel and output column, a padded vertical
// stripe of kw input columns is laid out row-major ([row][kx]), so every output pixel's
// window is kh * kw contiguous bytes, dotted with the channel's filter (zero-padded to words).
#pragma once

#include <cstdint>
#include <utility>

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

/// The requantized output of a depthwise accumulator: kinds 0..2 get the bias in `acc`
/// already (the dot products start from it), kind 3 goes through the plan out of line.
template <int Kind, bool Clip, bool BN>
[[gnu::always_inline]] inline std::uint8_t dw_finish(const atoms::fast_requant& q, int c,
                                                     std::uint32_t kf, std::uint32_t lf,
                                                     std::int32_t acc) {
  if constexpr (Kind == 3) {
    return atoms::fast_one<3>(q, c, acc);
  } else {
    auto t = static_cast<std::uint32_t>(acc);
    if constexpr (BN) t = t * kf + lf;
    return static_cast<std::uint8_t>(atoms::fast_finish<Kind, Clip>(q, t));
  }
}

/// b + the dot products of three window rows with three filter rows.
[[gnu::always_inline]] inline std::int32_t dw3_dot(std::uint32_t r0, std::uint32_t r1,
                                                   std::uint32_t r2, std::uint32_t f0,
                                                   std::uint32_t f1, std::uint32_t f2,
                                                   std::int32_t b) {
  return isa::sdotusp4(r2, f2, isa::sdotusp4(r1, f1, isa::sdotusp4(r0, f0, b)));
}

/// What the columns of one channel of a 3-row depthwise filter (up to 4 wide) share.
struct dw3_channel_args {
  const std::uint8_t* plane;  ///< the channel's input plane
  std::uint8_t* out;          ///< output (b.y0, x0) of the channel
  long ostep;                 ///< output row pitch (w_out * c_out)
  int c_out;
  int w_in, h_in;
  int iy0;  ///< input row of the first output's window (negative: padded rows on top)
  int sh, sw, pad_l, kw;
  int n;               ///< outputs per column
  int x0, x1;          ///< the columns
  std::uint32_t f[3];  ///< the filter rows as words (lanes >= kw zero)
};

/// Columns [x0, x1) of one channel: per column the filter words are shifted past the padded
/// columns on the left and masked past the input on the right, the window's first column
/// read with word loads; rows outside [0, h_in) are zero, so the outputs that reach them
/// (top and bottom) are done one by one; the others, with stride 1, keep the window's rows in
/// registers: each output loads one new row word (the rows roll down the column) and runs 3
/// sdotusp4 from the bias (a hardware loop on CORE-V). The caller guarantees that every word
/// load stays inside the input tile.
template <int Kind, bool Clip, bool BN>
void dw3_channel(const atoms::fast_requant& fq, int c, const dw3_channel_args& g) {
  const atoms::fast_requant q = fq.local();  // a local copy: its fields stay in registers
  const std::int32_t b = Kind < 3 && q.bias != nullptr ? q.bias[c] : 0;
  std::uint32_t kf = 1, lf = 0;
  if constexpr (BN) {
    kf = static_cast<std::uint32_t>(q.kappa[c]);
    lf = static_cast<std::uint32_t>(q.lambda[c]);
  }
  const long wi = g.w_in;
  const int n = g.n, sh = g.sh, h_in = g.h_in, iy0 = g.iy0;
  const long ostep = g.ostep;
  // Outputs [j_top, j_top + mid) have their three rows inside (the same for every column).
  int j_top = 0;
  while (j_top < n && iy0 + j_top * sh < 0) ++j_top;
  const int first = iy0 + j_top * sh;
  int mid = 0;
  if (first + 2 < h_in) mid = sh == 1 ? h_in - 2 - first : (h_in - 3 - first) / sh + 1;
  if (mid > n - j_top) mid = n - j_top;
  for (int ox = g.x0; ox < g.x1; ++ox) {
    const int ix0 = ox * g.sw - g.pad_l;
    const int sl = ix0 < 0 ? -ix0 : 0;
    const int lanes = (ix0 + g.kw > g.w_in ? g.w_in - ix0 : g.kw) - sl;
    const std::uint32_t mask = lanes >= 4 ? ~0u : (1u << (8 * lanes)) - 1u;
    const std::uint32_t f0 = (g.f[0] >> (8 * sl)) & mask;
    const std::uint32_t f1 = (g.f[1] >> (8 * sl)) & mask;
    const std::uint32_t f2 = (g.f[2] >> (8 * sl)) & mask;
    const std::uint8_t* plane = g.plane + ix0 + sl;
    std::uint8_t* o = g.out + static_cast<long>(ox - g.x0) * g.c_out;
    const auto edge = [&](int iy) __attribute__((always_inline)) {
      std::uint32_t r[3];
      for (int ky = 0; ky < 3; ++ky)
        r[ky] = iy + ky >= 0 && iy + ky < h_in ? isa::load4(plane + (iy + ky) * wi) : 0u;
      *o = dw_finish<Kind, Clip, BN>(q, c, kf, lf, dw3_dot(r[0], r[1], r[2], f0, f1, f2, b));
      o += ostep;
    };
    for (int j = 0; j < j_top; ++j) edge(iy0 + j * sh);
    if (mid > 0) {
      const std::uint8_t* p = plane + first * wi;
      int m = mid;
      if (sh == 1) {
        std::uint32_t r0 = isa::load4(p);
        std::uint32_t r1 = isa::load4(p + wi);
        p += 2 * wi;
#if defined(CTILE_KERNELS_ISA_COREV)
        if constexpr (Kind < 3) {
          if (m >= 3) {
            const isa::dw_quant dq{b, kf, lf, q.t_hi, q.mul, q.shift, q.hi};
            isa::dw3_roll<Kind, Clip, BN>(p, r0, r1, wi, o, ostep, m / 3, f0, f1, f2, dq);
            m %= 3;
          }
        }
#endif
        for (; m >= 3; m -= 3) {
          const std::uint32_t r2 = isa::load4(p);
          *o = dw_finish<Kind, Clip, BN>(q, c, kf, lf, dw3_dot(r0, r1, r2, f0, f1, f2, b));
          o += ostep;
          r0 = isa::load4(p + wi);
          *o = dw_finish<Kind, Clip, BN>(q, c, kf, lf, dw3_dot(r1, r2, r0, f0, f1, f2, b));
          o += ostep;
          r1 = isa::load4(p + 2 * wi);
          *o = dw_finish<Kind, Clip, BN>(q, c, kf, lf, dw3_dot(r2, r0, r1, f0, f1, f2, b));
          o += ostep;
          p += 3 * wi;
        }
        if (m > 0) {
          const std::uint32_t r2 = isa::load4(p);
          *o = dw_finish<Kind, Clip, BN>(q, c, kf, lf, dw3_dot(r0, r1, r2, f0, f1, f2, b));
          o += ostep;
          if (m > 1) {
            *o = dw_finish<Kind, Clip, BN>(q, c, kf, lf,
                                           dw3_dot(r1, r2, isa::load4(p + wi), f0, f1, f2, b));
            o += ostep;
          }
        }
      } else {
        const long step = sh * wi;
        for (; m > 0; --m, p += step, o += ostep) {
          const std::int32_t acc =
              dw3_dot(isa::load4(p), isa::load4(p + wi), isa::load4(p + 2 * wi), f0, f1, f2, b);
          *o = dw_finish<Kind, Clip, BN>(q, c, kf, lf, acc);
        }
      }
    }
    for (int j = j_top + mid; j < n; ++j) edge(iy0 + j * sh);
  }
}

using dw3_fn = void (*)(const atoms::fast_requant&, int, const dw3_channel_args&);

/// dw3_channel for this call's requantization: kinds 0..2 x final clip x batch-norm, then
/// kind 3 (one instantiation each, chosen once per call).
inline dw3_fn dw3_for(const atoms::fast_requant& q, const requant_plan& plan) {
  struct table {
    dw3_fn f[13];
  };
  static constexpr table t = []<int... O>(std::integer_sequence<int, O...>) {
    return table{
        {&dw3_channel<O / 4, (O & 2) != 0, (O & 1) != 0>..., &dw3_channel<3, false, false>}};
  }
  (std::make_integer_sequence<int, 12>{});
  const int kind = atoms::fast_kind(plan);
  if (kind == 3) return t.f[12];
  return t.f[kind * 4 + (q.clip ? 2 : 0) + (q.kappa != nullptr ? 1 : 0)];
}

}  // namespace detail

/// This core's part of a depthwise tile. Scratch: depthwise_scratch_per_core(h_out, kh, kw,
/// sh) bytes per core.
inline void depthwise_chw(const tile_args& a) {
  const box b = work_of(kernel_kind::depthwise, a);
  if (b.empty()) return;
  auto* out = static_cast<std::uint8_t*>(a.out);
  const atoms::epilogue ep(a);
  const atoms::fast_requant fq = atoms::fast_of(a);
  const detail::dw3_fn col3 = detail::dw3_for(fq, a.quant);
  const int n = a.kh * a.kw;
  const int nw = round4(n);
  const int rows = depthwise_stripe_rows(b.y1 - b.y0, a.kh, a.sh);
  std::uint8_t* stripe =
      a.scratch + static_cast<long>(a.core) * depthwise_scratch_per_core(a.h_out, a.kh, a.kw, a.sh);
  std::uint8_t* filt = stripe + round4(a.kw * depthwise_stripe_rows(a.h_out, a.kh, a.sh) + 4);
  std::uint8_t* const fpad = filt + depthwise_filter_words(a.kh, a.kw) * 4;
  for (int i = rows * a.kw; i < rows * a.kw + 4; ++i) stripe[i] = 0;  // word slack
  const int r0 = b.y0 * a.sh - a.pad_t;                               // input row of stripe row 0
  const bool rows_inside = r0 >= 0 && r0 + rows <= a.h_in;
  const int last_row = r0 + rows - 1;
  const int last_read = last_row < a.h_in ? last_row : a.h_in - 1;
  const long ostep = static_cast<long>(a.w_out) * a.c_out;
  const long rstep = static_cast<long>(a.sh) * a.w_in;
  const bool three = a.kh == 3 && a.kw <= 4;
  const bool narrow = a.kw <= 4 && rows_inside;
  for (int c = b.c0; c < b.c1; ++c) {
    const auto* w = a.weights + static_cast<long>(c) * n;
    const std::uint8_t* plane = a.in + static_cast<long>(c) * a.h_in * a.w_in;
    // Filter rows as words (zero-padded lanes), for the 3-row columns; the other layouts
    // are written to scratch the first time a column of this channel needs them.
    std::uint32_t fr[3] = {0, 0, 0};
    if (three) {
      for (int ky = 0; ky < 3; ++ky)
        for (int kx = 0; kx < a.kw; ++kx)
          fr[ky] |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(w[ky * a.kw + kx]))
                    << (8 * kx);
    }
    bool rows_ready = false, pad_ready = false;
    const long after_plane = static_cast<long>(a.c_in - 1 - c) * a.h_in * a.w_in;
    int x_fast = b.x0;  // columns [b.x0, x_fast) go through dw3_channel
    if (three) {
      // A column's word loads may run past its first column into the following rows and
      // planes; they must stay inside the input tile (a prefix of the columns passes).
      const long after = static_cast<long>(a.h_in - 1 - last_read) * a.w_in + after_plane;
      for (; x_fast < b.x1; ++x_fast) {
        const int ix0 = x_fast * a.sw - a.pad_l;
        const int sl = ix0 < 0 ? -ix0 : 0;
        const int lanes = (ix0 + a.kw > a.w_in ? a.w_in - ix0 : a.kw) - sl;
        if (lanes <= 0 || static_cast<long>(ix0 + sl) + 4 - a.w_in > after) break;
      }
      if (x_fast > b.x0) {
        detail::dw3_channel_args g{plane,
                                   out + (static_cast<long>(b.y0) * a.w_out + b.x0) * a.c_out + c,
                                   ostep,
                                   a.c_out,
                                   a.w_in,
                                   a.h_in,
                                   r0,
                                   a.sh,
                                   a.sw,
                                   a.pad_l,
                                   a.kw,
                                   b.y1 - b.y0,
                                   b.x0,
                                   x_fast,
                                   {fr[0], fr[1], fr[2]}};
        col3(fq, c, g);
      }
    }
    for (int ox = x_fast; ox < b.x1; ++ox) {
      const int ix0 = ox * a.sw - a.pad_l;
      std::uint8_t* o = out + (static_cast<long>(b.y0) * a.w_out + ox) * a.c_out + c;
      const long past = static_cast<long>(ix0) + 4 - a.w_in;
      const long after = static_cast<long>(a.h_in - 1 - last_row) * a.w_in + after_plane;
      const bool direct = narrow && ix0 >= 0 && ix0 + a.kw <= a.w_in && past <= after;
      if (direct) {
        if (!rows_ready) {  // filter rows as words (zero-padded), kh of them
          for (int ky = 0; ky < a.kh; ++ky)
            for (int kx = 0; kx < 4; ++kx)
              filt[4 * ky + kx] = kx < a.kw ? static_cast<std::uint8_t>(w[ky * a.kw + kx]) : 0;
          rows_ready = true;
        }
        const std::uint8_t* p = plane + static_cast<long>(r0) * a.w_in + ix0;
        for (int oy = b.y0; oy < b.y1; ++oy, p += rstep, o += ostep) {
          std::int32_t acc = 0;
          const std::uint8_t* q = p;
          for (int ky = 0; ky < a.kh; ++ky, q += a.w_in)
            acc = isa::sdotusp4(isa::load4(q), isa::load4a(filt + 4 * ky), acc);
          *o = static_cast<std::uint8_t>(ep(c, acc));
        }
        continue;
      }
      if (!pad_ready) {  // the filter padded to words
        for (int i = 0; i < n; ++i) fpad[i] = static_cast<std::uint8_t>(w[i]);
        for (int i = n; i < nw; ++i) fpad[i] = 0;
        pad_ready = true;
      }
      const auto* fw = reinterpret_cast<const std::int8_t*>(fpad);
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
