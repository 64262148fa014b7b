// Convolution on an HWC tile (PULP-NN style): per core, im2col of two adjacent output pixels,
// then 4 output channels x 2 pixels with sdotusp4, then bias / batch-norm / requantization.
// Pointwise (1x1, no padding) reads the input pixels in place, without im2col. Leftovers:
// Cout mod 4 with 1 x 2 / 1 x 1 dots, an odd last pixel with 4 x 1.
#pragma once

#include <cstdint>
#include <utility>

#include "ctile/kernels/args.hpp"
#include "ctile/kernels/atoms/finish.hpp"
#include "ctile/kernels/atoms/matmul.hpp"

namespace ctile::kernels {

namespace detail {

/// Copies the receptive field of output pixel (oy, ox) into `col` ([ky][kx][c_in], zeros for
/// padding, zero tail up to a whole word).
inline void im2col(const tile_args& a, int oy, int ox, std::uint8_t* col) {
  const int c = a.c_in;
  const int iy0 = oy * a.sh - a.pad_t;
  const int ix0 = ox * a.sw - a.pad_l;
  const int row = a.kw * c;
  // Inside the tile with whole words: one word copy per kernel row.
  if ((row & 3) == 0 && iy0 >= 0 && iy0 + a.kh <= a.h_in && ix0 >= 0 && ix0 + a.kw <= a.w_in &&
      ((reinterpret_cast<std::uintptr_t>(a.in) | reinterpret_cast<std::uintptr_t>(col) |
        static_cast<std::uintptr_t>(a.w_in * c)) &
       3u) == 0) {
    const std::uint8_t* s = a.in + (static_cast<long>(iy0) * a.w_in + ix0) * c;
    const long pitch = static_cast<long>(a.w_in) * c;
    std::uint8_t* d = col;
    for (int ky = 0; ky < a.kh; ++ky, s += pitch, d += row) isa::copy_words(d, s, row / 4);
    return;
  }
  std::uint8_t* d = col;
  for (int ky = 0; ky < a.kh; ++ky) {
    const int iy = iy0 + ky;
    if (iy < 0 || iy >= a.h_in) {
      for (int i = 0; i < a.kw * c; ++i) d[i] = 0;
      d += a.kw * c;
      continue;
    }
    // Columns: a zero run on the left, the in-tile run copied at once, a zero run on the right.
    const int kx_lo = ix0 < 0 ? -ix0 : 0;
    const int kx_hi = ix0 + a.kw > a.w_in ? a.w_in - ix0 : a.kw;
    for (int i = 0; i < kx_lo * c; ++i) d[i] = 0;
    d += kx_lo * c;
    if (kx_hi > kx_lo) {
      const std::uint8_t* s = a.in + (static_cast<long>(iy) * a.w_in + ix0 + kx_lo) * c;
      const int n = (kx_hi - kx_lo) * c;
      int i = 0;
      if (((reinterpret_cast<std::uintptr_t>(s) | reinterpret_cast<std::uintptr_t>(d)) & 3u) == 0) {
        isa::copy_words(d, s, n / 4);
        i = n & ~3;
      }
      for (; i < n; ++i) d[i] = s[i];
      d += n;
    }
    const int right = a.kw - (kx_hi > kx_lo ? kx_hi : kx_lo);
    for (int i = 0; i < right * c; ++i) d[i] = 0;
    d += right * c;
  }
  const int k = a.kh * a.kw * c;
  for (int i = k; i < round4(k); ++i) col[i] = 0;
}

inline std::uint8_t u8(std::int32_t v) {
  return static_cast<std::uint8_t>(v);
}

/// Output channels [c0, c1) of one or two columns (p1 null: one) into o0 / o1.
inline void matmul_columns(const tile_args& a, const atoms::epilogue& epi, const std::uint8_t* p0,
                           const std::uint8_t* p1, int k, int c0, int c1, std::uint8_t* o0,
                           std::uint8_t* o1) {
  const std::int8_t* const weights = a.weights;
  const atoms::epilogue ep = epi;  // a local copy: its fields stay in registers
  int co = c0;
  if (p1 != nullptr) {
#if defined(CTILE_KERNELS_ISA_COREV)
    // Whole words: up to 8 blocks at a time in one nested hardware loop, then requantized.
    if (k % 4 == 0 && k >= 4) {
      std::int32_t acc[64];
      while (co + 4 <= c1) {
        const int nb = (c1 - co) / 4 < 8 ? (c1 - co) / 4 : 8;
        isa::mm4x2_blocks(p0, p1, weights + static_cast<long>(co) * k, k / 4, nb, acc);
        for (int i = 0; i < nb; ++i, co += 4) atoms::store_block(ep, co, acc + 8 * i, o0, o1, 2);
      }
    }
#endif
    for (; co + 4 <= c1; co += 4) {
      std::int32_t acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      atoms::mm4x2(p0, p1, weights + static_cast<long>(co) * k, k, k, acc);
      atoms::store_block(ep, co, acc, o0, o1, 2);
    }
    for (; co < c1; ++co) {
      const std::int8_t* w = weights + static_cast<long>(co) * k;
      o0[co] = u8(ep(co, atoms::dot(p0, w, k, 0)));
      o1[co] = u8(ep(co, atoms::dot(p1, w, k, 0)));
    }
    return;
  }
  for (; co + 4 <= c1; co += 4) {
    std::int32_t acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    atoms::mm4x1(p0, weights + static_cast<long>(co) * k, k, k, acc);
    atoms::store_block(ep, co, acc, o0, o0, 1);
  }
  for (; co < c1; ++co)
    o0[co] = u8(ep(co, atoms::dot(p0, weights + static_cast<long>(co) * k, k, 0)));
}

/// `nb` >= 1 4 x 2 blocks of a pixel pair (kinds 0..2), requantized straight from
/// registers: parameters and outputs walk with the blocks (no channel index).
template <int Kind, bool Clip, bool Bias, bool BN>
inline void blocks4x2(const atoms::fast_requant& fq, const std::uint8_t* p0, const std::uint8_t* p1,
                      long pitch, int rows, int words, const std::int8_t* w, int k, int nb,
                      std::uint8_t* q0, std::uint8_t* q1, int c0) {
  const atoms::fast_requant q = fq;  // a local copy: its fields stay in registers
  const std::int32_t* bp = Bias ? q.bias + c0 : nullptr;
  const std::int32_t* kp = BN ? q.kappa + c0 : nullptr;
  const std::int32_t* lp = BN ? q.lambda + c0 : nullptr;
  do {
    std::int32_t s[8];
    atoms::mm4x2_rows(p0, p1, pitch, rows, w, k, words, s);
    atoms::store4x2_at<Kind, Clip, Bias, BN>(q, s, q0, q1, bp, kp, lp);
    q0 += 4, q1 += 4;
    if constexpr (Bias) bp += 4;
    if constexpr (BN) kp += 4, lp += 4;
  } while (--nb != 0);
}

/// blocks4x2 with its compile-time options chosen from the plan and the parameters present.
template <int Kind>
inline void blocks4x2_any(const atoms::fast_requant& q, const std::uint8_t* p0,
                          const std::uint8_t* p1, long pitch, int rows, int words,
                          const std::int8_t* w, int k, int nb, std::uint8_t* q0, std::uint8_t* q1,
                          int c0) {
  const int opt = (q.clip ? 4 : 0) + (q.bias != nullptr ? 2 : 0) + (q.kappa != nullptr ? 1 : 0);
  // One instantiation per option set: clip (4), bias (2), batch-norm (1).
  [&]<int... O>(std::integer_sequence<int, O...>) {
    (void)((opt == O ? (blocks4x2<Kind, (O & 4) != 0, (O & 2) != 0, (O & 1) != 0>(
                            q, p0, p1, pitch, rows, words, w, k, nb, q0, q1, c0),
                        true)
                     : false) ||
           ...);
  }
  (std::make_integer_sequence<int, 8>{});
}

/// Output channels [c0, c1) of a pixel pair (or one pixel when p1 is null) whose receptive
/// fields are `rows` rows of `words` words, `pitch` bytes apart (in place in the input, or
/// one im2col row): 4 x 2 blocks, then the leftover channels one by one.
template <int Kind>
inline void conv_block_rows(const std::int8_t* weights, const atoms::fast_requant& fq,
                            const std::uint8_t* p0, const std::uint8_t* p1, long pitch, int rows,
                            int words, int k, int c0, int c1, std::uint8_t* o0, std::uint8_t* o1) {
  int co = c0;
  const std::int8_t* w = weights + static_cast<long>(co) * k;
  if (p1 != nullptr) {
    const int nb = (c1 - c0) / 4;
    if constexpr (Kind < 3) {
      if (nb > 0)
        blocks4x2_any<Kind>(fq, p0, p1, pitch, rows, words, w, k, nb, o0 + co, o1 + co, co);
      co += 4 * nb;
      w += 4L * nb * k;
    } else {
      for (; co + 4 <= c1; co += 4) {
        std::int32_t s[8];
        atoms::mm4x2_rows(p0, p1, pitch, rows, w, k, words, s);
        atoms::store4xn<Kind, 2>(fq, co, s, o0, o1);
      }
    }
    for (; co < c1; ++co, w += k) {
      o0[co] = atoms::fast_one<Kind>(fq, co, atoms::dot_rows(p0, pitch, rows, w, words));
      o1[co] = atoms::fast_one<Kind>(fq, co, atoms::dot_rows(p1, pitch, rows, w, words));
    }
    return;
  }
  for (; co + 4 <= c1; co += 4, w += 4 * k) {
    std::int32_t s[8];
    atoms::mm4x1_rows(p0, pitch, rows, w, k, words, s);
    atoms::store4xn<Kind, 1>(fq, co, s, o0, o0);
  }
  for (; co < c1; ++co, w += k)
    o0[co] = atoms::fast_one<Kind>(fq, co, atoms::dot_rows(p0, pitch, rows, w, words));
}

/// This core's box of a conv or pointwise tile, pixel pair by pixel pair: a pair whose
/// windows lie inside the tile and whose kernel rows are whole words is read in place (a
/// kernel row of a pixel is kw * c_in contiguous bytes of HWC input); otherwise its two
/// windows are copied (im2col, zero padding) to `col0` / `col1`; when neither works (filters
/// of K mod 4 != 0 bytes) the generic per-column path with the K mod 4 tail runs.
template <int Kind>
inline void conv_box(const tile_args& a, const box& b, std::uint8_t* col0, std::uint8_t* col1) {
  auto* out = static_cast<std::uint8_t*>(a.out);
  const atoms::fast_requant fq = atoms::fast_of(a);
  const int c = a.c_in;
  const int row = a.kw * c;
  const int k = a.kh * row;
  const long pitch = static_cast<long>(a.w_in) * c;
  const bool rows_words = (row & 3) == 0;
  for (int oy = b.y0; oy < b.y1; ++oy) {
    std::uint8_t* orow = out + static_cast<long>(oy) * a.w_out * a.c_out;
    const int iy0 = oy * a.sh - a.pad_t;
    const bool rows_inside = iy0 >= 0 && iy0 + a.kh <= a.h_in;
    for (int ox = b.x0; ox < b.x1; ox += 2) {
      const bool two = ox + 1 < b.x1;
      const int ix0 = ox * a.sw - a.pad_l;
      const int ix_last = ix0 + (two ? a.sw : 0);
      std::uint8_t* o0 = orow + static_cast<long>(ox) * a.c_out;
      std::uint8_t* o1 = o0 + a.c_out;
      if (rows_words && rows_inside && ix0 >= 0 && ix_last + a.kw <= a.w_in) {
        const std::uint8_t* p0 = a.in + (static_cast<long>(iy0) * a.w_in + ix0) * c;
        const std::uint8_t* p1 = two ? p0 + static_cast<long>(a.sw) * c : nullptr;
        conv_block_rows<Kind>(a.weights, fq, p0, p1, pitch, a.kh, row / 4, k, b.c0, b.c1, o0, o1);
      } else if ((k & 3) == 0 && col0 != nullptr) {
        im2col(a, oy, ox, col0);
        if (two) im2col(a, oy, ox + 1, col1);
        conv_block_rows<Kind>(a.weights, fq, col0, two ? col1 : nullptr, k, 1, k / 4, k, b.c0, b.c1,
                              o0, o1);
      } else {
        const atoms::epilogue ep(a);
        const std::uint8_t* p0 = col0;
        const std::uint8_t* p1 = col1;
        if (col0 == nullptr) {  // pointwise: the pixels themselves
          p0 = a.in + (static_cast<long>(iy0) * a.w_in + ix0) * c;
          p1 = p0 + static_cast<long>(a.sw) * c;
        } else {
          im2col(a, oy, ox, col0);
          if (two) im2col(a, oy, ox + 1, col1);
        }
        matmul_columns(a, ep, p0, two ? p1 : nullptr, k, b.c0, b.c1, o0, o1);
      }
    }
  }
}

template <class F>
inline void with_fast_kind(const tile_args& a, F&& f) {
  switch (atoms::fast_kind(a.quant)) {
    case 0:
      return f.template operator()<0>();
    case 1:
      return f.template operator()<1>();
    case 2:
      return f.template operator()<2>();
    default:
      return f.template operator()<3>();
  }
}

}  // namespace detail

/// Pointwise convolution (1x1 kernel, any stride, no padding): this core's part of the tile.
inline void pointwise_hwc(const tile_args& a) {
  const box b = work_of(kernel_kind::pointwise, a);
  if (b.empty()) return;
  detail::with_fast_kind(a, [&]<int Kind>() { detail::conv_box<Kind>(a, b, nullptr, nullptr); });
}

/// Convolution (any kernel, stride, per-tile padding): this core's part of the tile.
/// Scratch: conv_scratch_per_core(kh, kw, c_in) bytes per core.
inline void conv_hwc(const tile_args& a) {
  if (a.kh == 1 && a.kw == 1 && a.pad_t == 0 && a.pad_l == 0 && a.pad_b == 0 && a.pad_r == 0) {
    pointwise_hwc(a);
    return;
  }
  const box b = work_of(kernel_kind::conv, a);
  if (b.empty()) return;
  std::uint8_t* col0 =
      a.scratch + static_cast<long>(a.core) * conv_scratch_per_core(a.kh, a.kw, a.c_in);
  std::uint8_t* col1 = col0 + round4(a.kh * a.kw * a.c_in);
  detail::with_fast_kind(a, [&]<int Kind>() { detail::conv_box<Kind>(a, b, col0, col1); });
}

/// Fully connected: the flattened HWC input against c_out filter rows; the cores split the
/// output neurons. Output u8, or int32 when the plan is `requant_mode::raw`.
inline void linear(const tile_args& a) {
  const box b = work_of(kernel_kind::linear, a);
  if (b.empty()) return;
  const int k = a.h_in * a.w_in * a.c_in;
  const bool raw = a.quant.mode == requant_mode::raw;
  const atoms::epilogue ep(a);
  const std::int8_t* const weights = a.weights;
  auto* o8 = static_cast<std::uint8_t*>(a.out);
  auto* o32 = static_cast<std::int32_t*>(a.out);
  int co = b.c0;
  for (; co + 4 <= b.c1; co += 4) {
    std::int32_t acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    atoms::mm4x1(a.in, weights + static_cast<long>(co) * k, k, k, acc);
    for (int f = 0; f < 4; ++f) {
      const std::int32_t v = ep(co + f, acc[2 * f]);
      if (raw)
        o32[co + f] = v;
      else
        o8[co + f] = detail::u8(v);
    }
  }
  for (; co < b.c1; ++co) {
    const std::int32_t v = ep(co, atoms::dot(a.in, weights + static_cast<long>(co) * k, k, 0));
    if (raw)
      o32[co] = v;
    else
      o8[co] = detail::u8(v);
  }
}

}  // namespace ctile::kernels
