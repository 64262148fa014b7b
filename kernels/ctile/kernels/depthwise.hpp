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

/// The requantized output of a depthwise accumulator: kinds 0..2 get the bias in `acc`
/// already (the dot products start from it), kind 3 goes through the plan out of line.
template <int Kind, bool BN>
[[gnu::always_inline]] inline std::uint8_t dw_finish(const atoms::fast_requant& q, int c,
                                                     std::uint32_t kf, std::uint32_t lf,
                                                     std::int32_t acc) {
  if constexpr (Kind == 3) {
    return atoms::fast_one<3>(q, c, acc);
  } else {
    auto t = static_cast<std::uint32_t>(acc);
    if constexpr (BN) t = t * kf + lf;
    return static_cast<std::uint8_t>(q.clip ? atoms::fast_finish<Kind, true>(q, t)
                                            : atoms::fast_finish<Kind, false>(q, t));
  }
}

/// b + the dot products of three window rows with three filter rows.
[[gnu::always_inline]] inline std::int32_t dw3_dot(std::uint32_t r0, std::uint32_t r1,
                                                   std::uint32_t r2, std::uint32_t f0,
                                                   std::uint32_t f1, std::uint32_t f2,
                                                   std::int32_t b) {
  return isa::sdotusp4(r2, f2, isa::sdotusp4(r1, f1, isa::sdotusp4(r0, f0, b)));
}

/// A row word of the window at `q` that may end past the tile (`end`): the bytes up to the
/// end, zeros after them (the filter lanes past the input are zero anyway).
inline std::uint32_t dw_row_tail(const std::uint8_t* q, const std::uint8_t* end) {
  if (end - q >= 4) return isa::load4(q);
  std::uint32_t v = 0;
  for (int i = 0; i < end - q; ++i) v |= static_cast<std::uint32_t>(q[i]) << (8 * i);
  return v;
}

/// This core's box of a depthwise tile with a filter of 3 rows, up to 4 wide. Per channel the
/// filter rows are words (lanes >= kw zero); per column they are shifted past the padded
/// columns on the left and masked past the input on the right, and the window's first
/// column is read with word loads. Rows outside [0, h_in) are zero and a word that would end
/// past the tile is read byte by byte: the outputs that meet either (top and bottom) are done
/// one by one; the others, with stride 1, keep the window's rows in registers: each output
/// loads one new row word (the rows roll down the column) and runs 3 sdotusp4 from the bias
/// (a hardware loop on CORE-V). Requantization kind `Kind`, final clip and batch-norm fixed.
/// What every channel of a 3-row depthwise tile shares: rows [first, last] of outputs
/// [j_top, j_top + mid_all) are inside; columns [xa, xb) have no padded column.
struct dw3_shape {
  const std::uint8_t* end;  ///< the end of the input tile
  long wi, ostep;
  int h_in, sh, kw, n, iy0, j_top, first, mid_all, last, xa, xb;
  bool edges;  ///< outputs reaching padded rows exist
};

/// One channel's columns and outputs besides the rolled run of the interior columns (whose
/// first `done` outputs are written): border columns, top and bottom outputs, the rest of the
/// run. Out of line: the per-channel path stays short.
template <int Kind, bool BN>
[[gnu::noinline]] void dw3_rest(const tile_args& a, const box& bx, const dw3_shape& g,
                                const atoms::fast_requant& q, int c, std::uint32_t fr0,
                                std::uint32_t fr1, std::uint32_t fr2, std::int32_t b,
                                std::uint32_t kf, std::uint32_t lf, int xe, int done) {
  const long wi = g.wi, ostep = g.ostep;
  const int h_in = g.h_in, sh = g.sh, kw = g.kw, n = g.n, iy0 = g.iy0, j_top = g.j_top,
            mid_all = g.mid_all, xa = g.xa;
  const std::uint8_t* const end = g.end;
  const std::uint8_t* const plane = a.in + static_cast<long>(c) * h_in * wi;
#if defined(CTILE_KERNELS_ISA_COREV)
  constexpr bool corev = true;
#else
  constexpr bool corev = false;
#endif
  std::uint8_t* const o_first = static_cast<std::uint8_t*>(a.out) +
                                static_cast<long>(bx.y0) * ostep +
                                static_cast<long>(bx.x0) * a.c_out + c;
  // Outputs [j0, j0 + m) of a column from its first input column `col`, all rows inside
  // and safe: the rows roll down the column in registers.
  const auto run = [&](const std::uint8_t* col, std::uint8_t* o, int j0, int m, std::uint32_t f0,
                       std::uint32_t f1, std::uint32_t f2) __attribute__((always_inline)) {
    const std::uint8_t* p = col + (iy0 + j0 * sh) * wi;
    o += j0 * ostep;
    if (sh == 1) {
      std::uint32_t r0 = isa::load4(p);
      std::uint32_t r1 = isa::load4(p + wi);
      p += 2 * wi;
#if defined(CTILE_KERNELS_ISA_COREV)
      if constexpr (Kind < 3) {
        if (m >= 3) {
          const isa::dw_quant dq{b, kf, lf, q.t_hi, q.mul, q.shift, q.hi};
          if (q.clip)
            isa::dw3_roll<Kind, true, BN>(p, r0, r1, wi, o, ostep, m / 3, f0, f1, f2, dq);
          else
            isa::dw3_roll<Kind, false, BN>(p, r0, r1, wi, o, ostep, m / 3, f0, f1, f2, dq);
          m %= 3;
        }
      }
#endif
      for (; m >= 3 && !(corev && Kind < 3); m -= 3) {  // CORE-V: done by the assembly
        const std::uint32_t r2 = isa::load4(p);
        *o = dw_finish<Kind, BN>(q, c, kf, lf, dw3_dot(r0, r1, r2, f0, f1, f2, b));
        o += ostep;
        r0 = isa::load4(p + wi);
        *o = dw_finish<Kind, BN>(q, c, kf, lf, dw3_dot(r1, r2, r0, f0, f1, f2, b));
        o += ostep;
        r1 = isa::load4(p + 2 * wi);
        *o = dw_finish<Kind, BN>(q, c, kf, lf, dw3_dot(r2, r0, r1, f0, f1, f2, b));
        o += ostep;
        p += 3 * wi;
      }
      if (m > 0) {
        const std::uint32_t r2 = isa::load4(p);
        *o = dw_finish<Kind, BN>(q, c, kf, lf, dw3_dot(r0, r1, r2, f0, f1, f2, b));
        o += ostep;
        if (m > 1) {
          *o =
              dw_finish<Kind, BN>(q, c, kf, lf, dw3_dot(r1, r2, isa::load4(p + wi), f0, f1, f2, b));
        }
      }
    } else {
      const long step = sh * wi;
      for (; m > 0; --m, p += step, o += ostep) {
        const std::int32_t acc =
            dw3_dot(isa::load4(p), isa::load4(p + wi), isa::load4(p + 2 * wi), f0, f1, f2, b);
        *o = dw_finish<Kind, BN>(q, c, kf, lf, acc);
      }
    }
  };
  // Column by column (the interior run's columns only need their top and bottom outputs
  // and the rest of the rolled run): outputs [rb, re) rolled, the others one by one (rows
  // outside [0, h_in) zero, words that would end past the tile read byte by byte).
  for (int x = bx.x0; x < bx.x1; ++x) {
    const bool interior = x >= xa && x < xe;
    if (interior && !g.edges && done >= mid_all) continue;
    const int ix0 = x * a.sw - a.pad_l;
    const int sl = ix0 < 0 ? -ix0 : 0;
    const int lanes = (ix0 + kw > a.w_in ? a.w_in - ix0 : kw) - sl;
    std::uint8_t* o = o_first + static_cast<long>(x - bx.x0) * a.c_out;
    if (lanes <= 0) {  // a window in the padding only
      for (int j = 0; j < n; ++j) o[j * ostep] = dw_finish<Kind, BN>(q, c, kf, lf, b);
      continue;
    }
    const std::uint32_t mask = lanes >= 4 ? ~0u : (1u << (8 * lanes)) - 1u;
    const std::uint32_t f0 = (fr0 >> (8 * sl)) & mask, f1 = (fr1 >> (8 * sl)) & mask,
                        f2 = (fr2 >> (8 * sl)) & mask;
    const std::uint8_t* const col = plane + ix0 + sl;
    int rb = j_top, re = j_top + mid_all;  // the rolled outputs of this column
    if (interior) {
      rb += done;
    } else {
      while (re > rb && end - (col + (iy0 + (re - 1) * sh + 2) * wi) < 4) --re;
    }
    const auto row = [&](int iy) __attribute__((always_inline))->std::uint32_t {
      return iy >= 0 && iy < h_in ? dw_row_tail(col + iy * wi, end) : 0u;
    };
    for (int j = 0; j < n; ++j) {
      if (j == rb && re > rb) {
        run(col, o, rb, re - rb, f0, f1, f2);
        j = re - 1;
        continue;
      }
      if (interior && j >= j_top && j < j_top + mid_all) continue;  // rolled already
      const int iy = iy0 + j * sh;
      o[j * ostep] = dw_finish<Kind, BN>(q, c, kf, lf,
                                         dw3_dot(row(iy), row(iy + 1), row(iy + 2), f0, f1, f2, b));
    }
  }
}

template <int Kind, bool BN>
void dw3_tile(const tile_args& a, const box& bx) {
  const atoms::fast_requant q = atoms::fast_of(a);
  dw3_shape g{};
  g.wi = a.w_in;
  g.h_in = a.h_in, g.sh = a.sh, g.kw = a.kw, g.n = bx.y1 - bx.y0;
  g.iy0 = bx.y0 * a.sh - a.pad_t;
  g.ostep = static_cast<long>(a.w_out) * a.c_out;
  g.end = a.in + static_cast<long>(a.c_in) * a.h_in * a.w_in;
  while (g.j_top < g.n && g.iy0 + g.j_top * g.sh < 0) ++g.j_top;
  g.first = g.iy0 + g.j_top * g.sh;
  if (g.first + 2 < g.h_in)
    g.mid_all = g.sh == 1 ? g.h_in - 2 - g.first : (g.h_in - 3 - g.first) / g.sh + 1;
  if (g.mid_all > g.n - g.j_top) g.mid_all = g.n - g.j_top;
  g.edges = g.j_top > 0 || g.j_top + g.mid_all < g.n;
  g.last = g.first + (g.mid_all > 0 ? (g.mid_all - 1) * g.sh + 2 : 0);  // last rolled row
  g.xa = bx.x0;
  while (g.xa < bx.x1 && g.xa * a.sw - a.pad_l < 0) ++g.xa;
  g.xb = g.xa;
  while (g.xb < bx.x1 && g.xb * a.sw - a.pad_l + g.kw <= a.w_in) ++g.xb;
  const int kw = g.kw, xa = g.xa, xb = g.xb;
  const long wi = g.wi;
  const std::uint32_t kmask = kw >= 4 ? ~0u : (1u << (8 * kw)) - 1u;  // the filter's lanes
  // Loop invariants in locals: the assembly clobbers memory, so fields of `a` would be
  // reloaded after every channel.
  const int c_in = a.c_in, c_out = a.c_out, sw = a.sw, pad_l = a.pad_l;
  const std::int8_t* const weights = a.weights;
  const long plane_bytes = static_cast<long>(a.h_in) * wi;
  const std::int32_t* const bias = q.bias;
  const bool rest = bx.x0 < xa || xb < bx.x1 || g.edges;
  const std::uint8_t* plane = a.in + bx.c0 * plane_bytes;
  // The first rolled output of the interior run, and its input (channel c0).
  std::uint8_t* o_run = static_cast<std::uint8_t*>(a.out) +
                        static_cast<long>(bx.y0 + g.j_top) * g.ostep +
                        static_cast<long>(xa) * c_out + bx.c0;
#if defined(CTILE_KERNELS_ISA_COREV)
  const long in_run = static_cast<long>(xa) * sw - pad_l + static_cast<long>(g.first) * wi;
  const int n3 = g.sh == 1 ? g.mid_all / 3 : 0;
  const long pstep = sw - (2 + 3L * n3) * wi;
  const long ostep_col = c_out - 3L * n3 * g.ostep;
#endif
  // CORE-V, 3x3 at stride 1: the interior columns of all channels but the tile's last (the
  // filter words of the last one would end past the weights; its last input rows may too)
  // in one hardware-loop nest per column.
  int c_fast = bx.c0;
#if defined(CTILE_KERNELS_ISA_COREV)
  if constexpr (Kind < 3) {
    if (kw == 3 && n3 > 0 && xb > xa) {
      c_fast = bx.c1 < c_out - 1 ? bx.c1 : c_out - 1;
      if (c_fast > bx.c0) {
        const isa::dw_quant dq{0, 0, 0, q.t_hi, q.mul, q.shift, q.hi};
        isa::dw3_chans ch{nullptr,
                          nullptr,
                          weights + static_cast<long>(bx.c0) * 9,
                          bias != nullptr ? bias + bx.c0 : nullptr,
                          BN ? q.kappa + bx.c0 : nullptr,
                          BN ? q.lambda + bx.c0 : nullptr,
                          c_fast - bx.c0,
                          n3,
                          wi,
                          g.ostep,
                          plane_bytes - (2 + 3L * n3) * wi,
                          1 - 3L * n3 * g.ostep};
        for (int x = xa; x < xb; ++x) {
          ch.p = plane + in_run + static_cast<long>(x - xa) * sw;
          ch.o = o_run + static_cast<long>(x - xa) * c_out;
          if (bias != nullptr)
            q.clip ? isa::dw3_roll_chans<Kind, true, BN, true>(ch, dq)
                   : isa::dw3_roll_chans<Kind, false, BN, true>(ch, dq);
          else
            q.clip ? isa::dw3_roll_chans<Kind, true, BN, false>(ch, dq)
                   : isa::dw3_roll_chans<Kind, false, BN, false>(ch, dq);
        }
        if (rest || 3 * n3 < g.mid_all) {
          for (int c = bx.c0; c < c_fast; ++c) {
            const std::int8_t* w = weights + static_cast<long>(c) * 9;
            const std::uint32_t fr0 = isa::load4(w) & kmask, fr1 = isa::load4(w + 3) & kmask,
                                fr2 = isa::load4(w + 6) & kmask;
            const std::int32_t b = bias != nullptr ? bias[c] : 0;
            const std::uint32_t kf = BN ? static_cast<std::uint32_t>(q.kappa[c]) : 1u;
            const std::uint32_t lf = BN ? static_cast<std::uint32_t>(q.lambda[c]) : 0u;
            dw3_rest<Kind, BN>(a, bx, g, q, c, fr0, fr1, fr2, b, kf, lf, xb, 3 * n3);
          }
        }
        plane += (c_fast - bx.c0) * plane_bytes;
        o_run += c_fast - bx.c0;
      }
    }
  }
#endif
  for (int c = c_fast; c < bx.c1; ++c, plane += plane_bytes, ++o_run) {
    const std::int8_t* w = weights + static_cast<long>(c) * 3 * kw;
    std::uint32_t fr0, fr1, fr2;
    if (c + 1 < c_out) {  // word loads may read into the next channel's filter
      fr0 = isa::load4(w) & kmask, fr1 = isa::load4(w + kw) & kmask;
      fr2 = isa::load4(w + 2 * kw) & kmask;
    } else {
      fr0 = fr1 = fr2 = 0;
      for (int kx = 0; kx < kw; ++kx) {
        fr0 |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(w[kx])) << (8 * kx);
        fr1 |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(w[kw + kx])) << (8 * kx);
        fr2 |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(w[2 * kw + kx])) << (8 * kx);
      }
    }
    const std::int32_t b = Kind < 3 && bias != nullptr ? bias[c] : 0;
    std::uint32_t kf = 1, lf = 0;
    if constexpr (BN) {
      kf = static_cast<std::uint32_t>(q.kappa[c]);
      lf = static_cast<std::uint32_t>(q.lambda[c]);
    }
    // The interior run [xa, xe): the same filter words, every row of the rolled outputs
    // readable (only the last channel's last columns can fail that).
    int xe = xb;
    if (c == c_in - 1)
      while (xe > xa && g.end - (plane + (xe - 1) * sw - pad_l + g.last * wi) < 4) --xe;
    int done = 0;  // outputs of the rolled run written in every interior column
#if defined(CTILE_KERNELS_ISA_COREV)
    if constexpr (Kind < 3) {
      if (xe > xa && n3 > 0) {
        const isa::dw_quant dq{b, kf, lf, q.t_hi, q.mul, q.shift, q.hi};
        if (q.clip)
          isa::dw3_roll_cols<Kind, true, BN>(plane + in_run, wi, o_run, g.ostep, n3, xe - xa, pstep,
                                             ostep_col, fr0, fr1, fr2, dq);
        else
          isa::dw3_roll_cols<Kind, false, BN>(plane + in_run, wi, o_run, g.ostep, n3, xe - xa,
                                              pstep, ostep_col, fr0, fr1, fr2, dq);
        done = 3 * n3;
      }
    }
#endif
    if (rest || xe < xb || done < g.mid_all)
      dw3_rest<Kind, BN>(a, bx, g, q, c, fr0, fr1, fr2, b, kf, lf, xe, done);
  }
}

using dw3_fn = void (*)(const tile_args&, const box&);

/// dw3_tile for this call's requantization: kinds 0..2 x batch-norm, then kind 3 (one
/// instantiation each, chosen once per call; the final clip picks one of two assembly
/// variants inside).
inline dw3_fn dw3_for(const atoms::fast_requant& q, const requant_plan& plan) {
  struct table {
    dw3_fn f[7];
  };
  static constexpr table t = []<int... O>(std::integer_sequence<int, O...>) {
    return table{{&dw3_tile<O / 2, (O & 1) != 0>..., &dw3_tile<3, false>}};
  }
  (std::make_integer_sequence<int, 6>{});
  const int kind = atoms::fast_kind(plan);
  if (kind == 3) return t.f[6];
  return t.f[kind * 2 + (q.kappa != nullptr ? 1 : 0)];
}

}  // namespace detail

/// This core's part of a depthwise tile. Scratch: depthwise_scratch_per_core(h_out, kh, kw,
/// sh) bytes per core.
inline void depthwise_chw(const tile_args& a, int core) {
  const box b = work_of(kernel_kind::depthwise, a, core);
  if (b.empty()) return;
  // Signed inputs take the stripe path below, with signed x signed dot products (sdotsp).
  const bool dense = a.dh == 1 && a.dw == 1;
  if (dense && a.kh == 3 && a.kw <= 4 && !a.in_signed) {
    detail::dw3_for(atoms::fast_of(a), a.quant)(a, b);
    return;
  }
  auto* out = static_cast<std::uint8_t*>(a.out);
  const atoms::epilogue ep(a);
  const int n = a.kh * a.kw;
  const int nw = round4(n);
  const int rows = depthwise_stripe_rows(b.y1 - b.y0, a.kh, a.sh);
  std::uint8_t* stripe =
      a.scratch + static_cast<long>(core) * depthwise_scratch_per_core(a.h_out, a.kh, a.kw, a.sh);
  std::uint8_t* filt = stripe + round4(a.kw * depthwise_stripe_rows(a.h_out, a.kh, a.sh) + 4);
  std::uint8_t* const fpad = filt + depthwise_filter_words(a.kh, a.kw) * 4;
  for (int i = rows * a.kw; i < rows * a.kw + 4; ++i) stripe[i] = 0;  // word slack
  const int r0 = b.y0 * a.sh - a.pad_t;                               // input row of stripe row 0
  const bool rows_inside = r0 >= 0 && r0 + rows <= a.h_in;
  const int last_row = r0 + rows - 1;
  const long ostep = static_cast<long>(a.w_out) * a.c_out;
  const long rstep = static_cast<long>(a.sh) * a.w_in;
  const bool narrow = a.kw <= 4 && rows_inside && !a.in_signed;
  if (!dense) {  // dilated: each window's taps gathered into the stripe, dotted with the filter
    for (int c = b.c0; c < b.c1; ++c) {
      const auto* w = a.weights + static_cast<long>(c) * n;
      for (int i = 0; i < n; ++i) fpad[i] = static_cast<std::uint8_t>(w[i]);
      for (int i = n; i < nw; ++i) fpad[i] = 0;
      const auto* fw = reinterpret_cast<const std::int8_t*>(fpad);
      const std::uint8_t* plane = a.in + static_cast<long>(c) * a.h_in * a.w_in;
      for (int oy = b.y0; oy < b.y1; ++oy) {
        const int iy0 = oy * a.sh - a.pad_t;
        for (int ox = b.x0; ox < b.x1; ++ox) {
          const int ix0 = ox * a.sw - a.pad_l;
          std::uint8_t* s = stripe;
          for (int ky = 0; ky < a.kh; ++ky) {
            const int iy = iy0 + ky * a.dh;
            const bool row_in = iy >= 0 && iy < a.h_in;
            const std::uint8_t* src = plane + static_cast<long>(row_in ? iy : 0) * a.w_in;
            for (int kx = 0; kx < a.kw; ++kx, ++s) {
              const int ix = ix0 + kx * a.dw;
              *s = row_in && ix >= 0 && ix < a.w_in ? src[ix] : 0;
            }
          }
          for (int i = n; i < nw; ++i) stripe[i] = 0;
          out[(static_cast<long>(oy) * a.w_out + ox) * a.c_out + c] =
              static_cast<std::uint8_t>(ep(c, a.in_signed ? atoms::dot<true>(stripe, fw, nw, 0)
                                                          : atoms::dot(stripe, fw, nw, 0)));
        }
      }
    }
    return;
  }
  for (int c = b.c0; c < b.c1; ++c) {
    const auto* w = a.weights + static_cast<long>(c) * n;
    const std::uint8_t* plane = a.in + static_cast<long>(c) * a.h_in * a.w_in;
    // The filter layouts in scratch, written the first time a column of this channel needs
    // them.
    bool rows_ready = false, pad_ready = false;
    const long after_plane = static_cast<long>(a.c_in - 1 - c) * a.h_in * a.w_in;
    for (int ox = b.x0; ox < b.x1; ++ox) {
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
      // Zero columns on the left and right, clamped to the kernel (the padding may exceed it).
      const int kx_lo = ix0 < 0 ? (-ix0 < a.kw ? -ix0 : a.kw) : 0;
      const int kx_in = a.w_in - ix0 < a.kw ? a.w_in - ix0 : a.kw;
      const int kx_hi = kx_in > kx_lo ? kx_in : kx_lo;
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
        *o = static_cast<std::uint8_t>(
            ep(c, a.in_signed ? atoms::dot<true>(win, fw, nw, 0) : atoms::dot(win, fw, nw, 0)));
    }
  }
}
/// The same for core `a.core`.
inline void depthwise_chw(const tile_args& a) {
  depthwise_chw(a, a.core);
}

}  // namespace ctile::kernels
