// Quantization parameters and the exact integer semantics that every kernel must reproduce.
//
//   acc = sum x[u8] * w[s8] (+ bias)                int32
//   t   = kappa[c] * acc + lambda[c]                (only with batch-norm; exact)
//   y   = clip(floor(t * m / d), lo, hi)            t * m in int64, d any positive integer
//
// Activations are held in 8-bit containers: an unsigned range (0..255, or a sub-byte 0..2^b-1)
// or a signed one (-128..127, or a sub-byte -2^(b-1)..2^(b-1)-1, stored as two's complement).
// The division is a floor: with a signed clip range (lo < 0) floor and truncation differ.
#pragma once

#include <cstdint>

namespace ctile {

/// A closed range of integer values, [lo, hi]: what a tensor may hold.
struct value_range {
  std::int32_t lo = 0;
  std::int32_t hi = 255;

  friend constexpr bool operator==(const value_range&, const value_range&) = default;

  [[nodiscard]] constexpr bool is_signed() const { return lo < 0; }
  /// Bit width of the smallest container of this signedness holding the range (8 for 0..255
  /// and -128..127, 2 for -2..1 and 0..3, 9 for 0..358).
  [[nodiscard]] constexpr int bits() const {
    int b = 1;
    if (is_signed()) {
      while (b < 32 &&
             (-(std::int64_t{1} << (b - 1)) > lo || (std::int64_t{1} << (b - 1)) - 1 < hi))
        ++b;
    } else {
      while (b < 32 && (std::int64_t{1} << b) - 1 < hi) ++b;
    }
    return b;
  }
  /// The 8-bit container of this signedness: -128..127 or 0..255.
  [[nodiscard]] constexpr value_range container() const {
    return is_signed() ? value_range{-128, 127} : value_range{0, 255};
  }
  /// Whether every value fits the 8-bit container (u8 or s8).
  [[nodiscard]] constexpr bool fits_8bit() const { return lo <= hi && bits() <= 8; }
  [[nodiscard]] constexpr bool contains(std::int64_t v) const { return lo <= v && v <= hi; }
};

/// The range of b-bit unsigned values, 0..2^b-1 (b in 1..8).
constexpr value_range unsigned_range(int b) {
  return {0, static_cast<std::int32_t>((std::int64_t{1} << b) - 1)};
}
/// The range of b-bit two's-complement values, -2^(b-1)..2^(b-1)-1 (b in 2..8).
constexpr value_range signed_range(int b) {
  return {static_cast<std::int32_t>(-(std::int64_t{1} << (b - 1))),
          static_cast<std::int32_t>((std::int64_t{1} << (b - 1)) - 1)};
}
/// The bounds of a requantization that does not clip (`layer::unclipped()`).
inline constexpr value_range no_clip{-2147483647 - 1, 2147483647};

/// Requantization of a 32-bit value to an activation: multiply, exact division, clip.
struct requant {
  std::int64_t m = 1;  ///< multiplier (NEMO's Mul constant)
  std::int64_t d = 1;  ///< divisor, any positive integer (2^k, but also e.g. 2^24 - 1)
  int lo = 0;          ///< lower clip bound (ReLU: 0; a signed range: -2^(bits-1))
  int hi = 255;        ///< upper clip bound (2^bits - 1, or 2^(bits-1) - 1 when signed)

  friend constexpr bool operator==(const requant&, const requant&) = default;

  [[nodiscard]] constexpr value_range clip() const { return {lo, hi}; }
  [[nodiscard]] constexpr bool clips() const { return !(clip() == no_clip); }
  /// Output bit width implied by the clip range (8 for 0..255, 4 for 0..15 and -8..7, ...).
  [[nodiscard]] constexpr int bits() const { return clip().bits(); }
};

/// Per-input rescaling of a residual add: clip(((x * mul + add) >> shift), lo, hi) when
/// `clip` is set, else the shifted value as it is. Shifts are arithmetic (floor).
struct rescale {
  std::int32_t mul = 1;
  std::int32_t add = 0;
  int shift = 0;
  bool clip = false;
  friend constexpr bool operator==(const rescale&, const rescale&) = default;
};

/// floor(a / b) for b > 0, exact for every int64 a.
constexpr std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  const std::int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

constexpr std::int64_t clamp64(std::int64_t v, std::int64_t lo, std::int64_t hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

/// The exact requantization of one value (after batch-norm, if any).
constexpr std::int32_t apply(const requant& q, std::int64_t t) {
  return static_cast<std::int32_t>(clamp64(floor_div(t * q.m, q.d), q.lo, q.hi));
}

/// Batch-norm on an accumulator, computed exactly (kernels prove at build time that their
/// 32-bit arithmetic cannot overflow for the layer's ranges, or widen).
constexpr std::int64_t batchnorm(std::int64_t acc, std::int32_t kappa, std::int32_t lambda) {
  return std::int64_t{kappa} * acc + lambda;
}

/// One residual input rescaled.
constexpr std::int64_t apply(const rescale& r, std::int64_t x, int lo, int hi) {
  // >> on a negative int64 is arithmetic since C++20.
  const std::int64_t v = (x * r.mul + r.add) >> r.shift;
  return r.clip ? clamp64(v, lo, hi) : v;
}

/// The range of [min(a, b), max(a, b)], each end saturated to int32.
constexpr value_range range_between(std::int64_t a, std::int64_t b) {
  constexpr std::int64_t lo32 = -2147483647 - 1, hi32 = 2147483647;
  if (a > b) {
    const std::int64_t t = a;
    a = b;
    b = t;
  }
  return {static_cast<std::int32_t>(clamp64(a, lo32, hi32)),
          static_cast<std::int32_t>(clamp64(b, lo32, hi32))};
}

/// The range of apply(q, t) for t in [t_lo, t_hi]: floor(t * m / d) is monotone in t, so the
/// ends give the range; then the clip.
constexpr value_range requant_range(const requant& q, std::int64_t t_lo, std::int64_t t_hi) {
  const value_range v = range_between(apply(requant{q.m, q.d, no_clip.lo, no_clip.hi}, t_lo),
                                      apply(requant{q.m, q.d, no_clip.lo, no_clip.hi}, t_hi));
  return {static_cast<std::int32_t>(clamp64(v.lo, q.lo, q.hi)),
          static_cast<std::int32_t>(clamp64(v.hi, q.lo, q.hi))};
}

/// The range of apply(r, x, lo, hi) for x in `in` (monotone in x: the ends give the range).
constexpr value_range rescaled_range(const rescale& r, value_range in, int lo, int hi) {
  return range_between(apply(r, in.lo, lo, hi), apply(r, in.hi, lo, hi));
}

}  // namespace ctile
