// Portable kernels for tiles with a 16-bit operand: a layer that reads or writes a tensor whose
// proven range needs more than 8 bits (an unclipped residual sum or average pool). Plain C++
// loops over the tile with the exact integer semantics of quant.hpp (64-bit accumulators and
// requantization by the layer's own m and d), every kind of the layer vocabulary. Elements are
// 1 byte (u8 / s8) or 2 bytes (u16 / s16, little-endian) as `tile_args::in_bytes`,
// `in2_bytes` and `out_bytes` say; kernels::run sends every tile with a 2 here, so the 8-bit
// kernels (and their SIMD paths) never see 16-bit data.
#pragma once

#include <bit>
#include <cstdint>

#include "ctile/kernels/args.hpp"
#include "ctile/kernels/requant.hpp"
#include "ctile/layers/quant.hpp"

namespace ctile::kernels::wide {

/// Element `i` of an activation buffer of `bytes`-byte elements (`sgn`: two's complement).
inline std::int32_t load(const std::uint8_t* p, long i, int bytes, bool sgn) {
  if (bytes == 2) {
    const auto v = static_cast<std::uint16_t>(p[2 * i] | (p[2 * i + 1] << 8));
    return sgn ? std::int32_t{static_cast<std::int16_t>(v)} : std::int32_t{v};
  }
  return sgn ? std::int32_t{static_cast<std::int8_t>(p[i])} : std::int32_t{p[i]};
}

/// Stores `v` as element `i` of an output of `bytes`-byte elements (1, 2, or 4 for int32).
inline void store(void* out, long i, int bytes, std::int32_t v) {
  auto* o = static_cast<std::uint8_t*>(out);
  const auto u = static_cast<std::uint32_t>(v);
  for (int k = 0; k < bytes; ++k) o[bytes * i + k] = static_cast<std::uint8_t>(u >> (8 * k));
}

/// Element `i` from `bytes`-byte elements, the width and signedness fixed (the MAC loops).
/// `Aligned`: `p` is 2-byte aligned, so that a 16-bit element is one halfword load (the target
/// is little-endian, as the elements are).
template <int Bytes, bool Sgn, bool Aligned = false>
inline std::int32_t element(const std::uint8_t* p, long i) {
  if constexpr (Bytes == 2 && Aligned) {
    std::uint16_t v;
    __builtin_memcpy(&v, static_cast<const std::uint8_t*>(__builtin_assume_aligned(p, 2)) + 2 * i,
                     2);
    return Sgn ? std::int32_t{static_cast<std::int16_t>(v)} : std::int32_t{v};
  } else if constexpr (Bytes == 2) {
    const auto v = static_cast<std::uint16_t>(p[2 * i] | (p[2 * i + 1] << 8));
    return Sgn ? std::int32_t{static_cast<std::int16_t>(v)} : std::int32_t{v};
  } else {
    return Sgn ? std::int32_t{static_cast<std::int8_t>(p[i])} : std::int32_t{p[i]};
  }
}

/// The products of `n` consecutive elements from `p` and `n` int8 weights, summed exactly. A
/// product of a 16-bit element and an int8 weight is at most 65,535 x 128 < 2^23 in magnitude,
/// so 256 of them fit an int32: the sum runs in 32 bits by blocks of 256, carried in 64. Kept
/// out of line: inlined into a kernel's loops, its MAC loop ran short of registers under GCC
/// (rv32imc) and spilled to the stack every MAC.
template <int Bytes, bool Sgn, bool Aligned = false>
[[gnu::noinline]] std::int64_t dot_as(const std::uint8_t* p, const std::int8_t* w, long n) {
  std::int64_t acc = 0;
  while (n > 0) {
    const long m = n < 256 ? n : 256;
    std::int32_t s = 0;
    for (long i = 0; i < m; ++i) s += element<Bytes, Sgn, Aligned>(p, i) * w[i];
    acc += s;
    p += m * Bytes, w += m, n -= m;
  }
  return acc;
}
/// Calls `f.template operator()<Bytes, Sgn, Aligned>()` with the element width and signedness
/// of an operand at `p` and whether its 16-bit elements are aligned (every element is when `p`
/// is), so that a kernel's loops are made for them once per tile rather than choosing per
/// element or per dot product.
template <class F>
inline void with_elements(const std::uint8_t* p, int bytes, bool sgn, F&& f) {
  if (bytes == 2) {
    const bool aligned = (reinterpret_cast<std::uintptr_t>(p) & 1) == 0;
    if (sgn) {
      if (aligned)
        f.template operator()<2, true, true>();
      else
        f.template operator()<2, true, false>();
    } else {
      if (aligned)
        f.template operator()<2, false, true>();
      else
        f.template operator()<2, false, false>();
    }
  } else if (sgn) {
    f.template operator()<1, true, false>();
  } else {
    f.template operator()<1, false, false>();
  }
}

/// The requantization of t as the plan's constants define it (quant.hpp: exact). floor(t m / d)
/// is an arithmetic shift when d is a power of two (what the exports' Div nodes hold), else the
/// 64-bit division.
inline std::int32_t requant(const requant_plan& q, std::int64_t t) {
  if (q.mode == requant_mode::raw) return static_cast<std::int32_t>(t);
  const std::int64_t p = t * q.m;
  const auto d = static_cast<std::uint64_t>(q.d);
  const std::int64_t f = (d & (d - 1)) == 0 ? p >> std::countr_zero(d) : floor_div(p, q.d);
  return static_cast<std::int32_t>(clamp64(f, q.lo, q.hi));
}

/// A weighted layer's accumulator of output channel `co` (of the tile) to its output value.
inline std::int32_t finish(const tile_args& a, int co, std::int64_t acc) {
  if (a.bias != nullptr) acc += a.bias[co];
  if (a.quant.mode == requant_mode::raw) return static_cast<std::int32_t>(acc);
  if (a.kappa != nullptr) acc = batchnorm(acc, a.kappa[co], a.lambda[co]);
  return requant(a.quant, acc);
}

/// The output element's bytes: 4 for raw int32, else `out_bytes`.
inline int out_width(const tile_args& a) {
  return a.quant.mode == requant_mode::raw ? 4 : a.out_bytes;
}

/// Conv and pointwise: HWC input, weights [c_out][kh][kw][c_in], HWC (or, with out_chw,
/// channel-major) output; the tile's padding is zero.
template <int Bytes, bool Sgn, bool Aligned>
inline void conv_as(const tile_args& a, const box& b) {
  const int ob = out_width(a);
  for (int oy = b.y0; oy < b.y1; ++oy)
    for (int ox = b.x0; ox < b.x1; ++ox)
      for (int co = b.c0; co < b.c1; ++co) {
        std::int64_t acc = 0;
        const int x0 = ox * a.sw - a.pad_l;  // the input column of tap kx = 0
        for (int ky = 0; ky < a.kh; ++ky) {
          const int iy = oy * a.sh - a.pad_t + ky * a.dh;
          if (iy < 0 || iy >= a.h_in) continue;
          const long row = static_cast<long>(iy) * a.w_in;
          const long w_row = (static_cast<long>(co) * a.kh + ky) * a.kw;
          if (a.dw == 1) {
            // The taps of a kernel row that lie in the tile are consecutive pixels, whose
            // elements follow one another in the HWC input as their weights do: one sum.
            const int k0 = x0 < 0 ? -x0 : 0;
            const int k1 = a.w_in - x0 < a.kw ? a.w_in - x0 : a.kw;
            if (k1 > k0)
              acc += dot_as<Bytes, Sgn, Aligned>(a.in + Bytes * (row + x0 + k0) * a.c_in,
                                                 a.weights + (w_row + k0) * a.c_in,
                                                 static_cast<long>(k1 - k0) * a.c_in);
            continue;
          }
          for (int kx = 0; kx < a.kw; ++kx) {
            const int ix = x0 + kx * a.dw;
            if (ix < 0 || ix >= a.w_in) continue;
            acc += dot_as<Bytes, Sgn, Aligned>(a.in + Bytes * (row + ix) * a.c_in,
                                               a.weights + (w_row + kx) * a.c_in, a.c_in);
          }
        }
        const long at = a.out_chw ? static_cast<long>(co) * a.h_out * a.w_out +
                                        static_cast<long>(oy) * a.w_out + ox
                                  : (static_cast<long>(oy) * a.w_out + ox) * a.c_out + co;
        store(a.out, at, ob, finish(a, co, acc));
      }
}
inline void conv(const tile_args& a, const box& b) {
  with_elements(a.in, a.in_bytes, a.in_signed,
                [&]<int Bytes, bool Sgn, bool Aligned>() { conv_as<Bytes, Sgn, Aligned>(a, b); });
}

/// Depthwise: CHW input, weights [c][kh][kw], HWC output.
inline void depthwise(const tile_args& a, const box& b) {
  const int ob = out_width(a);
  const long plane = static_cast<long>(a.h_in) * a.w_in;
  for (int oy = b.y0; oy < b.y1; ++oy)
    for (int ox = b.x0; ox < b.x1; ++ox)
      for (int c = b.c0; c < b.c1; ++c) {
        std::int64_t acc = 0;
        for (int ky = 0; ky < a.kh; ++ky) {
          const int iy = oy * a.sh - a.pad_t + ky * a.dh;
          if (iy < 0 || iy >= a.h_in) continue;
          for (int kx = 0; kx < a.kw; ++kx) {
            const int ix = ox * a.sw - a.pad_l + kx * a.dw;
            if (ix < 0 || ix >= a.w_in) continue;
            acc += std::int64_t{load(a.in, c * plane + static_cast<long>(iy) * a.w_in + ix,
                                     a.in_bytes, a.in_signed)} *
                   a.weights[(static_cast<long>(c) * a.kh + ky) * a.kw + kx];
          }
        }
        store(a.out, (static_cast<long>(oy) * a.w_out + ox) * a.c_out + c, ob, finish(a, c, acc));
      }
}

/// Linear: the flattened input against c_out weight rows; with the reduction cut in K tiles,
/// the sums carry over in `partial`, 64 bits per output channel (the plan's scratch holds
/// 8 bytes per channel for a wide linear layer: linear_partial_bytes), so they stay exact.
template <int Bytes, bool Sgn, bool Aligned>
inline void linear_as(const tile_args& a, const box& b) {
  const long k = static_cast<long>(a.h_in) * a.w_in * a.c_in;
  const bool carry_in = a.partial != nullptr && !a.k_first;
  const bool done = a.partial == nullptr || a.k_last;
  const int ob = out_width(a);
  auto* partial = reinterpret_cast<std::uint8_t*>(a.partial);
  for (int co = b.c0; co < b.c1; ++co) {
    std::uint64_t carried = 0;  // little-endian bytes: no alignment needed
    if (carry_in)
      for (int i = 0; i < 8; ++i) carried |= std::uint64_t{partial[8 * co + i]} << (8 * i);
    std::int64_t acc = static_cast<std::int64_t>(carried);
    acc += dot_as<Bytes, Sgn, Aligned>(a.in, a.weights + co * k, k);
    if (!done) {
      const auto u = static_cast<std::uint64_t>(acc);
      for (int i = 0; i < 8; ++i) partial[8 * co + i] = static_cast<std::uint8_t>(u >> (8 * i));
    } else {
      store(a.out, co, ob, finish(a, co, acc));
    }
  }
}
inline void linear(const tile_args& a, const box& b) {
  with_elements(a.in, a.in_bytes, a.in_signed,
                [&]<int Bytes, bool Sgn, bool Aligned>() { linear_as<Bytes, Sgn, Aligned>(a, b); });
}

/// Max and average pools: HWC, windows clipped to the tile (padding is skipped by a max and
/// adds zeros to an average).
inline void pool(const tile_args& a, const box& b, bool max) {
  for (int oy = b.y0; oy < b.y1; ++oy)
    for (int ox = b.x0; ox < b.x1; ++ox)
      for (int c = b.c0; c < b.c1; ++c) {
        std::int64_t sum = 0;
        std::int32_t m = 0;
        bool seen = false;
        for (int ky = 0; ky < a.kh; ++ky) {
          const int iy = oy * a.sh - a.pad_t + ky;
          if (iy < 0 || iy >= a.h_in) continue;
          for (int kx = 0; kx < a.kw; ++kx) {
            const int ix = ox * a.sw - a.pad_l + kx;
            if (ix < 0 || ix >= a.w_in) continue;
            const std::int32_t v = load(a.in, (static_cast<long>(iy) * a.w_in + ix) * a.c_in + c,
                                        a.in_bytes, a.in_signed);
            sum += v;
            m = !seen || v > m ? v : m;
            seen = true;
          }
        }
        store(a.out, (static_cast<long>(oy) * a.w_out + ox) * a.c_out + c, a.out_bytes,
              max ? m : requant(a.quant, sum));
      }
}

/// Residual add: both inputs HWC of the output's dims, each rescaled, summed, requantized.
inline void add(const tile_args& a, const box& b) {
  for (int y = b.y0; y < b.y1; ++y)
    for (int x = b.x0; x < b.x1; ++x)
      for (int c = b.c0; c < b.c1; ++c) {
        const long i = (static_cast<long>(y) * a.w_out + x) * a.c_out + c;
        const std::int64_t s =
            apply(a.scale0, load(a.in, i, a.in_bytes, a.in_signed), a.quant.lo, a.quant.hi) +
            apply(a.scale1, load(a.in2, i, a.in2_bytes, a.in2_signed), a.quant.lo, a.quant.hi);
        store(a.out, i, a.out_bytes, requant(a.quant, s));
      }
}

/// Runs kernel `k` on core `core`'s part of a tile with a 16-bit operand.
inline void run(kernel_kind k, const tile_args& a, int core) {
  const box b = work_of(k, a, core);
  if (b.empty()) return;
  switch (k) {
    case kernel_kind::conv:
    case kernel_kind::pointwise:
      conv(a, b);
      return;
    case kernel_kind::depthwise:
      depthwise(a, b);
      return;
    case kernel_kind::linear:
      linear(a, b);
      return;
    case kernel_kind::maxpool:
      pool(a, b, true);
      return;
    case kernel_kind::avgpool:
      pool(a, b, false);
      return;
    case kernel_kind::add:
      add(a, b);
      return;
  }
}

}  // namespace ctile::kernels::wide
