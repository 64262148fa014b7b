// The matrix atoms every weighted kernel is built from: 4 filter rows x 2 columns (PULP-NN's
// 4x2), 4 x 4 for single-row receptive fields, 4 x 1, and 1 x 1, over K bytes. Word loops go
// to the backend (hardware loops and post-increment loads on CORE-V); the K mod 4 tail bytes
// are added here.
#pragma once

#include <cstdint>

#include "ctile/kernels/arch/geometry.hpp"
#include "ctile/kernels/arch/isa.hpp"

namespace ctile::kernels::atoms {

namespace detail {

/// A word load, plain when the address is known to be 4-byte aligned.
template <bool Aligned>
inline std::uint32_t word(const void* p) {
  if constexpr (Aligned)
    return isa::load4a(p);
  else
    return isa::load4(p);
}
inline bool aligned4(const void* p) {
  return (reinterpret_cast<std::uintptr_t>(p) & 3u) == 0;
}

/// acc + the dot product of four input bytes with four weights: the input bytes unsigned
/// (sdotusp), or signed two's complement when `S` (sdotsp).
template <bool S>
[[gnu::always_inline]] inline std::int32_t dot4(std::uint32_t x, std::uint32_t w,
                                                std::int32_t acc) {
  if constexpr (S)
    return isa::sdotsp4(x, w, acc);
  else
    return isa::sdotusp4(x, w, acc);
}
/// One input byte as a value: unsigned, or signed when `S`.
template <bool S>
[[gnu::always_inline]] inline std::int32_t value(std::uint8_t b) {
  if constexpr (S)
    return static_cast<std::int8_t>(b);
  else
    return b;
}

template <bool A, bool S = false>
inline void mm4x2_words(const std::uint8_t* a0, const std::uint8_t* a1, const std::int8_t* w0,
                        const std::int8_t* w1, const std::int8_t* w2, const std::int8_t* w3,
                        int words, std::int32_t* acc) {
  std::int32_t s0 = acc[0], s1 = acc[1], s2 = acc[2], s3 = acc[3];
  std::int32_t s4 = acc[4], s5 = acc[5], s6 = acc[6], s7 = acc[7];
  for (int i = 0; i < words; ++i) {
    const std::uint32_t x0 = word<A>(a0 + 4 * i);
    const std::uint32_t x1 = word<A>(a1 + 4 * i);
    const std::uint32_t y0 = word<A>(w0 + 4 * i);
    const std::uint32_t y1 = word<A>(w1 + 4 * i);
    s0 = dot4<S>(x0, y0, s0);
    s1 = dot4<S>(x1, y0, s1);
    const std::uint32_t y2 = word<A>(w2 + 4 * i);
    s2 = dot4<S>(x0, y1, s2);
    s3 = dot4<S>(x1, y1, s3);
    const std::uint32_t y3 = word<A>(w3 + 4 * i);
    s4 = dot4<S>(x0, y2, s4);
    s5 = dot4<S>(x1, y2, s5);
    s6 = dot4<S>(x0, y3, s6);
    s7 = dot4<S>(x1, y3, s7);
  }
  acc[0] = s0, acc[1] = s1, acc[2] = s2, acc[3] = s3;
  acc[4] = s4, acc[5] = s5, acc[6] = s6, acc[7] = s7;
}

template <bool A, bool S = false>
inline void mm4x1_words(const std::uint8_t* a0, const std::int8_t* w0, const std::int8_t* w1,
                        const std::int8_t* w2, const std::int8_t* w3, int words,
                        std::int32_t* acc) {
  std::int32_t s0 = acc[0], s2 = acc[2], s4 = acc[4], s6 = acc[6];
  for (int i = 0; i < words; ++i) {
    const std::uint32_t x0 = word<A>(a0 + 4 * i);
    s0 = dot4<S>(x0, word<A>(w0 + 4 * i), s0);
    s2 = dot4<S>(x0, word<A>(w1 + 4 * i), s2);
    s4 = dot4<S>(x0, word<A>(w2 + 4 * i), s4);
    s6 = dot4<S>(x0, word<A>(w3 + 4 * i), s6);
  }
  acc[0] = s0, acc[2] = s2, acc[4] = s4, acc[6] = s6;
}

template <bool A, bool S = false>
inline std::int32_t dot_words(const std::uint8_t* a, const std::int8_t* w, int words,
                              std::int32_t s) {
  for (int i = 0; i < words; ++i) s = dot4<S>(word<A>(a + 4 * i), word<A>(w + 4 * i), s);
  return s;
}

template <bool S = false>
inline std::int32_t tail(const std::uint8_t* a, const std::int8_t* w, int from, int k,
                         std::int32_t s) {
  for (int i = from; i < k; ++i)
    s = static_cast<std::int32_t>(static_cast<std::uint32_t>(s) +
                                  static_cast<std::uint32_t>(value<S>(a[i]) * w[i]));
  return s;
}

}  // namespace detail

/// acc[2 * f + p] += dot(column p, filter f) for f < 4, p < 2; filters are `stride` apart.
/// `S`: the columns hold signed bytes (sdotsp; the word loops of every backend, CORE-V's
/// hand-scheduled loops being for unsigned inputs).
template <bool S = false>
[[gnu::always_inline]] inline void mm4x2(const std::uint8_t* a0, const std::uint8_t* a1,
                                         const std::int8_t* w, int k, int stride,
                                         std::int32_t* acc) {
  const int words = k / 4;
  const std::int8_t* w0 = w;
  const std::int8_t* w1 = w + stride;
  const std::int8_t* w2 = w1 + stride;
  const std::int8_t* w3 = w2 + stride;
#if defined(CTILE_KERNELS_ISA_COREV)
  if constexpr (!S) {
    if (words > 0) isa::mm4x2(a0, a1, w0, w1, w2, w3, words, acc);
  } else
#endif
  {
    if (detail::aligned4(a0) && detail::aligned4(a1) && detail::aligned4(w) && (stride & 3) == 0)
      detail::mm4x2_words<true, S>(a0, a1, w0, w1, w2, w3, words, acc);
    else
      detail::mm4x2_words<false, S>(a0, a1, w0, w1, w2, w3, words, acc);
  }
  const int done = 4 * words;
  if (done == k) return;
  // Written out (no indexing by a variable) so that acc stays in registers.
  acc[0] = detail::tail<S>(a0, w0, done, k, acc[0]);
  acc[1] = detail::tail<S>(a1, w0, done, k, acc[1]);
  acc[2] = detail::tail<S>(a0, w1, done, k, acc[2]);
  acc[3] = detail::tail<S>(a1, w1, done, k, acc[3]);
  acc[4] = detail::tail<S>(a0, w2, done, k, acc[4]);
  acc[5] = detail::tail<S>(a1, w2, done, k, acc[5]);
  acc[6] = detail::tail<S>(a0, w3, done, k, acc[6]);
  acc[7] = detail::tail<S>(a1, w3, done, k, acc[7]);
}

/// acc[2 * f] += dot(column, filter f) for f < 4 (odd slots untouched); `S` as in mm4x2.
template <bool S = false>
[[gnu::always_inline]] inline void mm4x1(const std::uint8_t* a0, const std::int8_t* w, int k,
                                         int stride, std::int32_t* acc) {
  const int words = k / 4;
  const std::int8_t* w0 = w;
  const std::int8_t* w1 = w + stride;
  const std::int8_t* w2 = w1 + stride;
  const std::int8_t* w3 = w2 + stride;
#if defined(CTILE_KERNELS_ISA_COREV)
  if constexpr (!S) {
    if (words > 0) isa::mm4x1(a0, w0, w1, w2, w3, words, acc);
  } else
#endif
  {
    if (detail::aligned4(a0) && detail::aligned4(w) && (stride & 3) == 0)
      detail::mm4x1_words<true, S>(a0, w0, w1, w2, w3, words, acc);
    else
      detail::mm4x1_words<false, S>(a0, w0, w1, w2, w3, words, acc);
  }
  const int done = 4 * words;
  if (done == k) return;
  acc[0] = detail::tail<S>(a0, w0, done, k, acc[0]);
  acc[2] = detail::tail<S>(a0, w1, done, k, acc[2]);
  acc[4] = detail::tail<S>(a0, w2, done, k, acc[4]);
  acc[6] = detail::tail<S>(a0, w3, done, k, acc[6]);
}

/// acc + dot(column, filter) over k bytes; `S` as in mm4x2.
template <bool S = false>
[[gnu::always_inline]] inline std::int32_t dot(const std::uint8_t* a, const std::int8_t* w, int k,
                                               std::int32_t acc) {
  const int words = k / 4;
#if defined(CTILE_KERNELS_ISA_COREV)
  if constexpr (!S) {
    if (words > 0) acc = isa::dot(a, w, words, acc);
  } else
#endif
  {
    if (detail::aligned4(a) && detail::aligned4(w))
      acc = detail::dot_words<true, S>(a, w, words, acc);
    else
      acc = detail::dot_words<false, S>(a, w, words, acc);
  }
  return detail::tail<S>(a, w, 4 * words, k, acc);
}

/// s[2 f + p] = dot(column p, filter f) for f < 4, p < 2 over the receptive field `g`
/// (a column's rows `g.pitch()` bytes apart; a filter's rows follow each other, filters
/// `g.k` bytes apart from `w`): in place when the kernel rows are whole words (no im2col),
/// or one im2col row. Leaves a0 / a1 as they were and advances `w` to the next 4 filters.
[[gnu::always_inline]] inline void mm4x2_rows(const std::uint8_t*& a0, const std::uint8_t*& a1,
                                              const rows_geometry& g, const std::int8_t*& w,
                                              std::int32_t (&s)[8]) {
#if defined(CTILE_KERNELS_ISA_COREV)
  isa::mm4x2_rows(a0, a1, g, w, s);
#else
  for (auto& v : s) v = 0;
  const int rb = 4 * g.words;
  const long pitch = g.pitch();
  for (int r = 0; r < g.rows(); ++r) mm4x2(a0 + r * pitch, a1 + r * pitch, w + r * rb, rb, g.k, s);
  w += 4L * g.k;
#endif
}

/// s[4 f + p] = dot(pixel p, filter f) for f < 4, p < 4 over one row of g.words words: pixel
/// p at a + p * g.ps, filter f at w + f * g.k (CORE-V fuses this with the requantization:
/// atoms::mm4x4_block).
[[gnu::always_inline]] inline void mm4x4_row(const std::uint8_t* a, const quad_steps& g,
                                             const std::int8_t* w, std::int32_t (&s)[16]) {
  const int k = static_cast<int>(g.k);
  const long ps = g.ps;
  std::int32_t lo[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::int32_t hi[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  mm4x2(a, a + ps, w, k, k, lo);
  mm4x2(a + 2 * ps, a + 3 * ps, w, k, k, hi);
  for (int f = 0; f < 4; ++f) {
    s[4 * f] = lo[2 * f], s[4 * f + 1] = lo[2 * f + 1];
    s[4 * f + 2] = hi[2 * f], s[4 * f + 3] = hi[2 * f + 1];
  }
}

/// s[2 f] = dot(column, filter f) for f < 4, over rows as in mm4x2_rows.
[[gnu::always_inline]] inline void mm4x1_rows(const std::uint8_t* a0, long pitch, int rows,
                                              const std::int8_t* w, int k, int words,
                                              std::int32_t (&s)[8]) {
  for (auto& v : s) v = 0;
  const int rb = 4 * words;
  for (int r = 0; r < rows; ++r, a0 += pitch, w += rb) mm4x1(a0, w, rb, k, s);
}

/// dot(column, filter) over rows as in mm4x2_rows.
[[gnu::always_inline]] inline std::int32_t dot_rows(const std::uint8_t* a, long pitch, int rows,
                                                    const std::int8_t* w, int words) {
  std::int32_t acc = 0;
  const int rb = 4 * words;
  for (int r = 0; r < rows; ++r, a += pitch, w += rb) acc = dot(a, w, rb, acc);
  return acc;
}

}  // namespace ctile::kernels::atoms
