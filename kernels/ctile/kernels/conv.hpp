// Convolution on an HWC tile (PULP-NN style): per core, im2col of two adjacent output pixels,
// then 4 output channels x 2 pixels with sdotusp4, then bias / batch-norm / requantization.
// Pixels whose receptive fields lie inside the tile are read in place, without im2col;
// single-row kernels (pointwise) there go 4 output channels x 4 pixels. Leftovers: Cout mod 4
// with 1 x 2 / 1 x 1 dots, pixels in pairs, an odd last pixel with 4 x 1.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>

#include "ctile/kernels/args.hpp"
#include "ctile/kernels/atoms/finish.hpp"
#include "ctile/kernels/atoms/matmul.hpp"

namespace ctile::kernels {

namespace detail {

/// Copies the receptive field of output pixel (oy, ox) into `col` ([ky][kx][c_in], zeros for
/// padding, zero tail up to a whole word). Taps are dh rows and dw columns apart (dilation);
/// the padding may exceed the window (rows or taps wholly outside the tile are zeros).
inline void im2col(const tile_args& a, int oy, int ox, std::uint8_t* col) {
  const int c = a.c_in;
  const int iy0 = oy * a.sh - a.pad_t;
  const int ix0 = ox * a.sw - a.pad_l;
  const int row = a.kw * c;
  const long pitch = static_cast<long>(a.w_in) * c;
  const int rows_span = (a.kh - 1) * a.dh + 1;
  // Inside the tile with whole words and dense columns: one word copy per kernel row.
  if ((row & 3) == 0 && a.dw == 1 && iy0 >= 0 && iy0 + rows_span <= a.h_in && ix0 >= 0 &&
      ix0 + a.kw <= a.w_in &&
      ((reinterpret_cast<std::uintptr_t>(a.in) | reinterpret_cast<std::uintptr_t>(col) |
        static_cast<std::uintptr_t>(a.w_in * c)) &
       3u) == 0) {
    const std::uint8_t* s = a.in + (static_cast<long>(iy0) * a.w_in + ix0) * c;
    std::uint8_t* d = col;
    for (int ky = 0; ky < a.kh; ++ky, s += a.dh * pitch, d += row) isa::copy_words(d, s, row / 4);
    return;
  }
  std::uint8_t* d = col;
  for (int ky = 0; ky < a.kh; ++ky) {
    const int iy = iy0 + ky * a.dh;
    if (iy < 0 || iy >= a.h_in) {
      for (int i = 0; i < row; ++i) d[i] = 0;
      d += row;
      continue;
    }
    const std::uint8_t* src = a.in + static_cast<long>(iy) * pitch;
    if (a.dw != 1) {  // dilated columns: tap by tap
      for (int kx = 0; kx < a.kw; ++kx, d += c) {
        const int ix = ix0 + kx * a.dw;
        if (ix < 0 || ix >= a.w_in) {
          for (int i = 0; i < c; ++i) d[i] = 0;
        } else {
          const std::uint8_t* s = src + static_cast<long>(ix) * c;
          for (int i = 0; i < c; ++i) d[i] = s[i];
        }
      }
      continue;
    }
    // Columns: a zero run on the left, the in-tile run copied at once, a zero run on the right
    // (each clamped to the kernel: the padding may exceed it).
    const int kx_lo = ix0 < 0 ? (-ix0 < a.kw ? -ix0 : a.kw) : 0;
    const int kx_in = a.w_in - ix0 < a.kw ? a.w_in - ix0 : a.kw;
    const int kx_hi = kx_in > kx_lo ? kx_in : kx_lo;
    for (int i = 0; i < kx_lo * c; ++i) d[i] = 0;
    d += kx_lo * c;
    if (kx_hi > kx_lo) {
      const std::uint8_t* s = src + static_cast<long>(ix0 + kx_lo) * c;
      const int n = (kx_hi - kx_lo) * c;
      int i = 0;
      if (((reinterpret_cast<std::uintptr_t>(s) | reinterpret_cast<std::uintptr_t>(d)) & 3u) == 0) {
        isa::copy_words(d, s, n / 4);
        i = n & ~3;
      }
      for (; i < n; ++i) d[i] = s[i];
      d += n;
    }
    const int right = a.kw - kx_hi;
    for (int i = 0; i < right * c; ++i) d[i] = 0;
    d += right * c;
  }
  const int k = a.kh * a.kw * c;
  for (int i = k; i < round4(k); ++i) col[i] = 0;
}

inline std::uint8_t u8(std::int32_t v) {
  return static_cast<std::uint8_t>(v);
}

/// Where a tile's outputs go: pixel p's channel c at out + p * px() + c * ch(). HWC (`CM`
/// false): px = c_out, ch = 1; channel-major: px = 1, ch = h_out * w_out. The step that is 1
/// is a constant.
template <bool CM>
struct out_steps {
  long step;  ///< HWC: c_out; channel-major: h_out * w_out
  [[nodiscard]] constexpr long px() const { return CM ? 1 : step; }
  [[nodiscard]] constexpr long ch() const { return CM ? step : 1; }
};
template <bool CM>
constexpr out_steps<CM> out_steps_of(const tile_args& a) {
  return {CM ? static_cast<long>(a.h_out) * a.w_out : a.c_out};
}

/// Output channels [c0, c1) of one or two columns (p1 null: one) into o0 / o1 (each a pixel's
/// channel 0; channels `cs` apart when channel-major).
template <bool CM>
inline void matmul_columns(const tile_args& a, const atoms::epilogue& epi, const std::uint8_t* p0,
                           const std::uint8_t* p1, int k, int c0, int c1, std::uint8_t* o0,
                           std::uint8_t* o1, long cs) {
  const std::int8_t* const weights = a.weights;
  const atoms::epilogue ep = epi;  // a local copy: its fields stay in registers
  int co = c0;
  if (p1 != nullptr) {
    for (; co + 4 <= c1; co += 4) {
      std::int32_t acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      atoms::mm4x2(p0, p1, weights + static_cast<long>(co) * k, k, k, acc);
      atoms::store_block<CM>(ep, co, acc, o0, o1, 2, cs);
    }
    for (; co < c1; ++co) {
      const std::int8_t* w = weights + static_cast<long>(co) * k;
      o0[atoms::ch_at<CM>(co, cs)] = u8(ep(co, atoms::dot(p0, w, k, 0)));
      o1[atoms::ch_at<CM>(co, cs)] = u8(ep(co, atoms::dot(p1, w, k, 0)));
    }
    return;
  }
  for (; co + 4 <= c1; co += 4) {
    std::int32_t acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    atoms::mm4x1(p0, weights + static_cast<long>(co) * k, k, k, acc);
    atoms::store_block<CM>(ep, co, acc, o0, o0, 1, cs);
  }
  for (; co < c1; ++co)
    o0[atoms::ch_at<CM>(co, cs)] =
        u8(ep(co, atoms::dot(p0, weights + static_cast<long>(co) * k, k, 0)));
}

/// Channels [c0, c1) of one pixel (p1 null: 4 x 1 blocks, then one by one) or the leftover
/// channels of a pixel pair (one by one), out of the hot loop.
template <int Kind, bool CM>
[[gnu::noinline]] inline void conv_rest(const std::int8_t* weights, const atoms::fast_requant& q,
                                        const std::uint8_t* p0, const std::uint8_t* p1,
                                        const rows_geometry& g, int c0, int c1, std::uint8_t* o0,
                                        std::uint8_t* o1, long cs) {
  const long pitch = g.pitch();
  const int rows = g.rows();
  const int k = g.k;
  int co = c0;
  const std::int8_t* w = weights + static_cast<long>(co) * k;
  if (p1 == nullptr) {
    for (; co + 4 <= c1; co += 4, w += 4 * k) {
      std::int32_t s[8];
      atoms::mm4x1_rows(p0, pitch, rows, w, k, g.words, s);
      atoms::store4xn<Kind, 1, CM>(q, co, s, o0, o0, cs);
    }
  }
  for (; co < c1; ++co, w += k) {
    const long at = atoms::ch_at<CM>(co, cs);
    o0[at] = atoms::fast_one<Kind>(q, co, atoms::dot_rows(p0, pitch, rows, w, g.words));
    if (p1 != nullptr)
      o1[at] = atoms::fast_one<Kind>(q, co, atoms::dot_rows(p1, pitch, rows, w, g.words));
  }
}

/// The generic pair path (filters of K mod 4 != 0 bytes): im2col (or the pixels themselves for
/// pointwise) and per-column dots with the K mod 4 tail.
/// (im2col reached out of line, so that conv_generic's frame holds its own locals only,
/// whatever the inliner decides for the rest of the unit: inlined at GCC -O3 in a larger
/// unit, it made the deepest kernel chain 48 B deeper.)
[[gnu::noinline]] inline void im2col_out_of_line(const tile_args& a, int oy, int ox,
                                                 std::uint8_t* col) {
  im2col(a, oy, ox, col);
}
template <bool CM>
[[gnu::noinline]] inline void conv_generic(const tile_args& a, int oy, int ox, bool two, int c0,
                                           int c1, std::uint8_t* col0, std::uint8_t* col1,
                                           std::uint8_t* o0, std::uint8_t* o1, long cs) {
  const atoms::epilogue ep(a);
  const int k = a.kh * a.kw * a.c_in;
  const std::uint8_t* p0 = col0;
  const std::uint8_t* p1 = col1;
  if (col0 == nullptr) {  // pointwise: the pixels themselves
    p0 = a.in + (static_cast<long>(oy) * a.sh * a.w_in + static_cast<long>(ox) * a.sw) * a.c_in;
    p1 = p0 + static_cast<long>(a.sw) * a.c_in;
  } else {
    im2col_out_of_line(a, oy, ox, col0);
    if (two) im2col_out_of_line(a, oy, ox + 1, col1);
  }
  matmul_columns<CM>(a, ep, p0, two ? p1 : nullptr, k, c0, c1, o0, o1, cs);
}

/// `n` >= 1 groups of four adjacent output pixels (`o` the first's channel 0 output) of a
/// single-row kernel whose receptive fields (from `p0`, sw * c_in bytes apart) lie inside the
/// tile: the channel blocks as 4 x 4 blocks requantized straight from registers (the leftover
/// channels of the box: quads_rest).
template <int Kind, bool Bias, bool BN, bool CM>
[[gnu::noinline]] inline void conv_quads(const tile_args& a, const atoms::fast_requant& qr,
                                         const box& b, const quad_steps& gr, const std::uint8_t* p0,
                                         std::uint8_t* o, int n) {
  // Local copies: the byte stores would otherwise make the compiler reload every field.
  const atoms::fast_requant q = qr.local();
  const quad_steps g = gr;
  const out_steps<CM> os = out_steps_of<CM>(a);
  const long oc = os.px(), cs = os.ch();
  const int nb = (b.c1 - b.c0) / 4;
  const std::int8_t* w = a.weights + static_cast<long>(b.c0) * g.k;
  // Kind 0 fused (atoms::quad_fused): the bound of t >> shift, clipping included.
  const std::int32_t t_bound =
      Kind == 0 && atoms::quad_fused ? std::min(q.t_hi >> q.shift, q.hi) : q.t_hi;
  const quad_out qo{t_bound,
                    q.mul,
                    q.shift,
                    q.hi,
                    oc,
                    o + atoms::ch_at<CM>(b.c0, cs),
                    Bias ? q.bias + b.c0 : nullptr,
                    BN ? q.kappa + b.c0 : nullptr,
                    BN ? q.lambda + b.c0 : nullptr,
                    cs};
  // The final clip chosen once for these pixels (kind 0 fused: none needed).
  if constexpr (Kind == 0 && atoms::quad_fused) {
    atoms::mm4x4_blocks<Kind, false, Bias, BN, CM>(p0, g, w, q, qo, nb, n);
  } else {
    if (q.clip)
      atoms::mm4x4_blocks<Kind, true, Bias, BN, CM>(p0, g, w, q, qo, nb, n);
    else
      atoms::mm4x4_blocks<Kind, false, Bias, BN, CM>(p0, g, w, q, qo, nb, n);
  }
}

/// The channels of the same `n` groups of four pixels that conv_quads leaves (those past the
/// last whole block of 4), pixel pair by pixel pair. Called beside conv_quads, not from it: its
/// frame and conv_rest's are never on a core's stack together (the cluster cores' stacks are
/// sized by the deepest chain of kernel frames, bench/stack).
template <int Kind, bool CM>
inline void quads_rest(const tile_args& a, const atoms::fast_requant& q, const box& b,
                       const rows_geometry& rows, long ps, const std::uint8_t* p0, std::uint8_t* o,
                       int n) {
  const int c_blocks = b.c0 + 4 * ((b.c1 - b.c0) / 4);
  if (c_blocks >= b.c1) return;
  const out_steps<CM> os = out_steps_of<CM>(a);
  const long oc = os.px(), cs = os.ch();
  for (int j = 0; j < n; ++j, p0 += 4 * ps, o += 4 * oc) {
    conv_rest<Kind, CM>(a.weights, q, p0, p0 + ps, rows, c_blocks, b.c1, o, o + oc, cs);
    conv_rest<Kind, CM>(a.weights, q, p0 + 2 * ps, p0 + 3 * ps, rows, c_blocks, b.c1, o + 2 * oc,
                        o + 3 * oc, cs);
  }
}

/// The box of a 1x1 kernel at stride 1 without padding over whole rows as one run of pixels
/// (input and output rows follow each other): its groups of 4 pixels across the rows
/// (conv_quads). Returns the number of pixels done.
template <int Kind, bool Bias, bool BN, bool CM>
[[gnu::noinline]] inline int conv_run(const tile_args& a, const box& b) {
  const int n = (b.y1 - b.y0) * (b.x1 - b.x0) / 4;
  if (n > 0) {
    const atoms::fast_requant q = atoms::fast_of(a);
    const rows_geometry rows = rows_geometry_of(a.w_in * a.c_in, 1, a.c_in / 4);
    const quad_steps g = quad_steps_of(a.c_in, rows.words);
    const std::uint8_t* p0 = a.in + static_cast<long>(b.y0) * a.w_in * a.c_in;
    std::uint8_t* o = static_cast<std::uint8_t*>(a.out) +
                      static_cast<long>(b.y0) * a.w_out * out_steps_of<CM>(a).px();
    conv_quads<Kind, Bias, BN, CM>(a, q, b, g, p0, o, n);
    quads_rest<Kind, CM>(a, q, b, rows, g.ps, p0, o, n);
  }
  return 4 * n;
}

/// Whether single-row receptive fields read in place go 4 pixels at a time (conv_quads): a
/// single-row kernel whose rows (kw * c_in contiguous bytes) are whole words, and at least one
/// block of 4 channels (on CORE-V with rows of 2 words or more: atoms::mm4x4_blocks).
inline bool quads_apply(const tile_args& a, const box& b) {
  const int row = a.kw * a.c_in;
  return (row & 3) == 0 && a.dw == 1 && a.kh == 1 && b.c1 - b.c0 >= 4 &&
         (!atoms::quad_fused || row >= 8);
}

/// Whether the box of a tile is one run of pixels for conv_run: quads of a 1x1 kernel at
/// stride 1 without padding over whole rows (input and output rows follow each other).
inline bool one_run(const tile_args& a, const box& b) {
  return quads_apply(a, b) && a.kw == 1 && a.sw == 1 && a.sh == 1 && a.pad_t == 0 && a.pad_l == 0 &&
         b.x0 == 0 && b.x1 == a.w_out && a.w_in == a.w_out && b.y1 <= a.h_in;
}

/// The box's pixels from the `done`-th on (in row order), pixel pair by pixel pair, with the
/// requantization kind and its options (bias, batch-norm) fixed (the final clip, rarely
/// needed, is chosen per block: one instantiation less of this loop each): a pair whose
/// windows lie inside the tile and whose kernel rows are whole words is read in place (a
/// kernel row of a pixel is kw * c_in contiguous bytes of HWC input); otherwise its two
/// windows are copied (im2col, zero padding) to `col0` / `col1`; when neither works (filters
/// of K mod 4 != 0 bytes) the generic path runs. Each 4 x 2 block is requantized straight
/// from registers, its parameters and outputs walking with the blocks.
template <int Kind, bool Bias, bool BN, bool CM>
[[gnu::noinline]] inline void conv_rows(const tile_args& a, const box& b, std::uint8_t* col0,
                                        std::uint8_t* col1, int done) {
  const atoms::fast_requant q = atoms::fast_of(a);  // a local copy: fields stay in registers
  auto* out = static_cast<std::uint8_t*>(a.out);
  const out_steps<CM> os = out_steps_of<CM>(a);
  const long opx = os.px(), cs = os.ch();
  const int c = a.c_in;
  const int row = a.kw * c;
  const int k = a.kh * row;
  // Kernel rows read in place are kw * c_in contiguous bytes (dense columns), dh rows apart.
  const bool rows_words = (row & 3) == 0 && a.dw == 1;
  const int rows_span = (a.kh - 1) * a.dh + 1;
  const rows_geometry in_place =
      rows_geometry_of(a.dh * a.w_in * c, a.kh, rows_words ? row / 4 : 1);
  const rows_geometry one_row = rows_geometry_of(k & ~3, 1, k / 4 > 0 ? k / 4 : 1);
  const int nb = (b.c1 - b.c0) / 4;
  const int c_blocks = b.c0 + 4 * nb;
  const bool quads = quads_apply(a, b);
  const quad_steps quad = quad_steps_of(static_cast<long>(a.sw) * c, in_place.words);
  const std::int8_t* const w_first = a.weights + static_cast<long>(b.c0) * k;
  // Where the row loop starts: after the run, if any.
  int ox_first = b.x0 + done % (b.x1 - b.x0);
  for (int oy = b.y0 + done / (b.x1 - b.x0); oy < b.y1; ++oy, ox_first = b.x0) {
    std::uint8_t* orow = out + static_cast<long>(oy) * a.w_out * opx;
    const int iy0 = oy * a.sh - a.pad_t;
    const bool rows_inside = iy0 >= 0 && iy0 + rows_span <= a.h_in;
    for (int ox = ox_first, step; ox < b.x1; ox += step) {
      step = 2;
      const int ix0 = ox * a.sw - a.pad_l;
      if constexpr (Kind < 3) {
        if (quads && rows_inside && ox + 4 <= b.x1 && ix0 >= 0 && ix0 + 3 * a.sw + a.kw <= a.w_in) {
          const std::uint8_t* p0 = a.in + (static_cast<long>(iy0) * a.w_in + ix0) * c;
          std::uint8_t* o = orow + static_cast<long>(ox) * opx;
          conv_quads<Kind, Bias, BN, CM>(a, q, b, quad, p0, o, 1);
          quads_rest<Kind, CM>(a, q, b, in_place, quad.ps, p0, o, 1);
          step = 4;
          continue;
        }
      }
      const bool two = ox + 1 < b.x1;
      const int ix_last = ix0 + (two ? a.sw : 0);
      std::uint8_t* o0 = orow + static_cast<long>(ox) * opx;
      std::uint8_t* o1 = o0 + opx;
      const std::uint8_t* p0;
      const std::uint8_t* p1;
      const rows_geometry* g;
      if (rows_words && rows_inside && ix0 >= 0 && ix_last + a.kw <= a.w_in) {
        p0 = a.in + (static_cast<long>(iy0) * a.w_in + ix0) * c;
        p1 = p0 + static_cast<long>(a.sw) * c;
        g = &in_place;
      } else if ((k & 3) == 0 && col0 != nullptr) {
        im2col(a, oy, ox, col0);
        if (two) im2col(a, oy, ox + 1, col1);
        p0 = col0, p1 = col1;
        g = &one_row;
      } else {
        conv_generic<CM>(a, oy, ox, two, b.c0, b.c1, col0, col1, o0, o1, cs);
        continue;
      }
      if (!two) {
        conv_rest<Kind, CM>(a.weights, q, p0, nullptr, *g, b.c0, b.c1, o0, o1, cs);
        continue;
      }
      if (nb > 0) {
        const std::int8_t* w = w_first;
        std::uint8_t* q0 = o0 + atoms::ch_at<CM>(b.c0, cs);
        std::uint8_t* q1 = o1 + atoms::ch_at<CM>(b.c0, cs);
        const long qstep = atoms::ch_at<CM>(4, cs);
        if constexpr (Kind < 3) {
          const std::int32_t* bp = Bias ? q.bias + b.c0 : nullptr;
          const std::int32_t* kp = BN ? q.kappa + b.c0 : nullptr;
          const std::int32_t* lp = BN ? q.lambda + b.c0 : nullptr;
          for (int i = nb; i != 0; --i) {
            std::int32_t s[8];
            atoms::mm4x2_rows(p0, p1, *g, w, s);
            if (q.clip)
              atoms::store4x2_at<Kind, true, Bias, BN, CM>(q, s, q0, q1, bp, kp, lp, cs);
            else
              atoms::store4x2_at<Kind, false, Bias, BN, CM>(q, s, q0, q1, bp, kp, lp, cs);
            q0 += qstep, q1 += qstep;
            if constexpr (Bias) bp += 4;
            if constexpr (BN) kp += 4, lp += 4;
          }
        } else {
          for (int co = b.c0; co < c_blocks; co += 4) {
            std::int32_t s[8];
            atoms::mm4x2_rows(p0, p1, *g, w, s);
            atoms::store4xn<3, 2, CM>(q, co, s, o0, o1, cs);
          }
        }
      }
      if (c_blocks < b.c1)
        conv_rest<Kind, CM>(a.weights, q, p0, p1, *g, c_blocks, b.c1, o0, o1, cs);
    }
  }
}

/// This core's box of a conv or pointwise tile with the requantization kind and its options
/// fixed: one run of pixels in groups of 4 (conv_run) where the box is one (one_run), the rest
/// pixel pair by pixel pair (conv_rows). The two are called one after the other, neither from
/// the other: their frames are never on a core's stack together (the cluster cores' stacks
/// are sized by the deepest chain of kernel frames, bench/stack).
template <int Kind, bool Bias, bool BN, bool CM>
inline void conv_pairs(const tile_args& a, const box& b, std::uint8_t* col0, std::uint8_t* col1) {
  int done = 0;
  if constexpr (Kind < 3)
    if (one_run(a, b)) done = conv_run<Kind, Bias, BN, CM>(a, b);
  if (done < (b.y1 - b.y0) * (b.x1 - b.x0)) conv_rows<Kind, Bias, BN, CM>(a, b, col0, col1, done);
}

/// conv_pairs with the plan's requantization kind and the options of this call, for the
/// output layout `CM` (channel-major or HWC).
///
/// `Opt`, when the caller knows it at compile time (the layer's bias and batch-norm: 2 for a
/// bias, 1 for batch-norm; -1 when not known), keeps only that option set's variants: the
/// arguments must then have exactly those arrays (a bias pointer when bit 2 is set, kappa and
/// lambda when bit 1 is).
template <bool CM, int Opt = -1>
inline void conv_any(const tile_args& a, const box& b, std::uint8_t* col0, std::uint8_t* col1) {
  const atoms::fast_requant q = atoms::fast_of(a);
  const int kind = atoms::fast_kind(a.quant);
  if (kind == 3) return conv_pairs<3, false, false, CM>(a, b, col0, col1);
  if constexpr (Opt >= 0) {
    // One instantiation per kind (0..2) of the one option set.
    [&]<int... K>(std::integer_sequence<int, K...>) {
      (void)((kind == K
                  ? (conv_pairs<K, (Opt & 2) != 0, (Opt & 1) != 0, CM>(a, b, col0, col1), true)
                  : false) ||
             ...);
    }
    (std::make_integer_sequence<int, 3>{});
  } else {
    const int opt = (q.bias != nullptr ? 2 : 0) + (q.kappa != nullptr ? 1 : 0);
    // One instantiation per kind (0..2) and option set: bias (2), batch-norm (1).
    [&]<int... O>(std::integer_sequence<int, O...>) {
      (void)((kind * 4 + opt == O
                  ? (conv_pairs<O / 4, (O & 2) != 0, (O & 1) != 0, CM>(a, b, col0, col1), true)
                  : false) ||
             ...);
    }
    (std::make_integer_sequence<int, 12>{});
  }
}

/// Signed inputs (`tile_args::in_signed`): each pixel of the box against four filters at a
/// time with signed x signed dot products (sdotsp), then the plan's epilogue. The receptive
/// field is read in place for a pointwise kernel (`col` null), else copied by im2col, whose
/// zero padding is the value 0 in two's complement too.
template <bool CM>
[[gnu::noinline]] inline void conv_signed(const tile_args& a, const box& b, std::uint8_t* col) {
  const atoms::epilogue ep(a);
  auto* out = static_cast<std::uint8_t*>(a.out);
  const out_steps<CM> os = out_steps_of<CM>(a);
  const long opx = os.px(), cs = os.ch();
  const int k = a.kh * a.kw * a.c_in;
  const std::int8_t* const weights = a.weights;
  for (int oy = b.y0; oy < b.y1; ++oy)
    for (int ox = b.x0; ox < b.x1; ++ox) {
      const std::uint8_t* p = col;
      if (col == nullptr)
        p = a.in + (static_cast<long>(oy) * a.sh * a.w_in + static_cast<long>(ox) * a.sw) * a.c_in;
      else
        im2col(a, oy, ox, col);
      std::uint8_t* o = out + (static_cast<long>(oy) * a.w_out + ox) * opx;
      int co = b.c0;
      for (; co + 4 <= b.c1; co += 4) {
        std::int32_t acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        atoms::mm4x1<true>(p, weights + static_cast<long>(co) * k, k, k, acc);
        for (int f = 0; f < 4; ++f) o[atoms::ch_at<CM>(co + f, cs)] = u8(ep(co + f, acc[2 * f]));
      }
      for (; co < b.c1; ++co)
        o[atoms::ch_at<CM>(co, cs)] =
            u8(ep(co, atoms::dot<true>(p, weights + static_cast<long>(co) * k, k, 0)));
    }
}

/// The channel-major variants live out of line of the HWC ones: a program that never asks for
/// a channel-major output does not keep their code.
template <int Opt = -1>
[[gnu::noinline]] inline void conv_any_chw(const tile_args& a, const box& b, std::uint8_t* col0,
                                           std::uint8_t* col1) {
  conv_any<true, Opt>(a, b, col0, col1);
}

/// The convolution variant for the tile: signed or unsigned inputs, channel-major or HWC
/// output, each a constant when the caller knows it (`Signed`, `Chw`: 0 or 1; -1 when not
/// known, then read from the arguments), so that only the variants a program can reach are
/// instantiated. `col0` is null for a pointwise kernel (the input read in place).
template <int Opt, int Chw, int Signed>
inline void conv_select(const tile_args& a, const box& b, std::uint8_t* col0, std::uint8_t* col1) {
  if constexpr (Signed != 0) {
    if (Signed == 1 || a.in_signed) {
      if constexpr (Chw != 0) {
        if (Chw == 1 || a.out_chw) {
          conv_signed<true>(a, b, col0);
          return;
        }
      }
      if constexpr (Chw != 1) conv_signed<false>(a, b, col0);
      return;
    }
  }
  if constexpr (Signed != 1) {
    if constexpr (Chw != 0) {
      if (Chw == 1 || a.out_chw) {
        conv_any_chw<Opt>(a, b, col0, col1);
        return;
      }
    }
    if constexpr (Chw != 1) conv_any<false, Opt>(a, b, col0, col1);
  }
}

}  // namespace detail

/// Pointwise convolution (1x1 kernel, any stride, no padding): this core's part of the tile
/// (output HWC, or channel-major with `out_chw`).
/// `Opt`, `Chw`, `Signed`: what the caller knows of the tile at compile time (see
/// detail::conv_select; -1 each: nothing, every variant reachable).
template <int Opt = -1, int Chw = -1, int Signed = -1>
inline void pointwise_hwc(const tile_args& a, int core) {
  const box b = work_of(kernel_kind::pointwise, a, core);
  if (b.empty()) return;
  detail::conv_select<Opt, Chw, Signed>(a, b, nullptr, nullptr);
}
/// The same for core `a.core`.
inline void pointwise_hwc(const tile_args& a) {
  pointwise_hwc(a, a.core);
}

/// Convolution (any kernel, stride, per-tile padding): this core's part of the tile.
/// Scratch: conv_scratch_per_core(kh, kw, c_in) bytes per core.
/// `Opt`, `Chw`, `Signed`: as for pointwise_hwc.
template <int Opt = -1, int Chw = -1, int Signed = -1>
inline void conv_hwc(const tile_args& a, int core) {
  if (a.kh == 1 && a.kw == 1 && a.pad_t == 0 && a.pad_l == 0 && a.pad_b == 0 && a.pad_r == 0) {
    pointwise_hwc<Opt, Chw, Signed>(a, core);
    return;
  }
  const box b = work_of(kernel_kind::conv, a, core);
  if (b.empty()) return;
  std::uint8_t* col0 =
      a.scratch + static_cast<long>(core) * conv_scratch_per_core(a.kh, a.kw, a.c_in);
  std::uint8_t* col1 = col0 + round4(a.kh * a.kw * a.c_in);
  detail::conv_select<Opt, Chw, Signed>(a, b, col0, col1);
}
/// The same for core `a.core`.
inline void conv_hwc(const tile_args& a) {
  conv_hwc(a, a.core);
}

/// Fully connected: the flattened HWC input against c_out filter rows; the cores split the
/// output neurons. Output u8, or int32 when the plan is `requant_mode::raw`. With the
/// reduction cut in K tiles (`partial`), the sums carry over in `partial` from the first K tile
/// to the last, which alone adds the bias, requantizes and stores.
namespace detail {
/// linear's body; `S`: signed inputs (sdotsp).
template <bool S>
inline void linear_run(const tile_args& a, const box& b) {
  const int k = a.h_in * a.w_in * a.c_in;
  const bool raw = a.quant.mode == requant_mode::raw;
  const bool carry_in = a.partial != nullptr && !a.k_first;
  const bool finish = a.partial == nullptr || a.k_last;
  const atoms::epilogue ep(a);
  const std::int8_t* const weights = a.weights;
  auto* o8 = static_cast<std::uint8_t*>(a.out);
  auto* o32 = static_cast<std::int32_t*>(a.out);
  const auto put = [&](int co, std::int32_t sum) {
    if (!finish) {
      a.partial[co] = sum;
    } else if (raw) {
      o32[co] = ep(co, sum);
    } else {
      o8[co] = u8(ep(co, sum));
    }
  };
  int co = b.c0;
  for (; co + 4 <= b.c1; co += 4) {
    std::int32_t acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    if (carry_in)
      for (int f = 0; f < 4; ++f) acc[2 * f] = a.partial[co + f];
    atoms::mm4x1<S>(a.in, weights + static_cast<long>(co) * k, k, k, acc);
    for (int f = 0; f < 4; ++f) put(co + f, acc[2 * f]);
  }
  for (; co < b.c1; ++co)
    put(co,
        atoms::dot<S>(a.in, weights + static_cast<long>(co) * k, k, carry_in ? a.partial[co] : 0));
}
}  // namespace detail

inline void linear(const tile_args& a, int core) {
  const box b = work_of(kernel_kind::linear, a, core);
  if (b.empty()) return;
  if (a.in_signed)
    detail::linear_run<true>(a, b);
  else
    detail::linear_run<false>(a, b);
}
/// The same for core `a.core`.
inline void linear(const tile_args& a) {
  linear(a, a.core);
}

}  // namespace ctile::kernels
