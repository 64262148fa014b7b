// Quantization parameters and the exact integer semantics that every kernel must reproduce.
//
//   acc = sum x[u8] * w[s8] (+ bias)                int32
//   t   = kappa[c] * acc + lambda[c]                (only with batch-norm; exact)
//   y   = clip(floor(t * m / d), lo, hi)            t * m in int64, d any positive integer
//
// With lo >= 0 (always the case: activations are unsigned) floor and truncation give the same
// clipped result, so either rounding of the division is a faithful implementation.
#pragma once

#include <cstdint>

namespace ctile {

/// Requantization of a 32-bit value to an unsigned activation: multiply, exact division, clip.
struct requant {
  std::int64_t m = 1;  ///< multiplier (NEMO's Mul constant)
  std::int64_t d = 1;  ///< divisor, any positive integer (2^k, but also e.g. 2^24 - 1)
  int lo = 0;          ///< lower clip bound (ReLU: 0)
  int hi = 255;        ///< upper clip bound (2^bits - 1)

  friend constexpr bool operator==(const requant&, const requant&) = default;

  /// Output bit width implied by the clip range (8 for 0..255, 4 for 0..15, ...).
  [[nodiscard]] constexpr int bits() const {
    int b = 0;
    while ((std::int64_t{1} << b) - 1 < hi) ++b;
    return b;
  }
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
constexpr std::uint8_t apply(const requant& q, std::int64_t t) {
  return static_cast<std::uint8_t>(clamp64(floor_div(t * q.m, q.d), q.lo, q.hi));
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

}  // namespace ctile
