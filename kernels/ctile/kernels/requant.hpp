// Exact requantization without division: y = clip(floor(t * m / d), lo, hi) computed as a
// multiply and a shift that is *proven* exact over the range of t a layer can produce.
//
// The proof. Let g = gcd(m, d), m' = m / g, d' = d / g, and for a shift s let
// M = ceil(m' * 2^s / d') and e = M * d' - m' * 2^s (0 <= e < d'). For 0 <= t, write
// t * m' = q * d' + r with 0 <= r <= d' - 1; then t * M / 2^s = q + (r + t * e / 2^s) / d',
// so floor(t * M / 2^s) = q = floor(t * m / d) whenever t * e < 2^s. Over [0, b] it is
// enough that b * e < 2^s.
//
// Clipping bounds the interval (m > 0, 0 <= lo): both sides are non-decreasing in t, every
// t <= 0 gives a value <= 0 <= lo, and every t >= H = ceil(hi * d / m) a value >= hi. So
// kernels clamp t to [0, b] with b = min(H, max(t_max, 0)) before the multiply, which changes
// nothing after the final clip, and only [0, b] needs the proof. When no shift with M < 2^32
// satisfies it, the plan falls back to a true 64-bit division.
//
// A signed clip (lo < 0): every t < L = ceil(lo * d / m) gives a value < lo, so kernels clamp t
// to [L - 1, ...] (t_lo) and add K = j * d' >= -(L - 1) (off): floor((t + K) * m' / d') =
// floor(t * m' / d') + j * m' (y_off, subtracted after), and the shifted t lies in [0, b + K],
// where the proof above applies.
#pragma once

#include <cstdint>

#include "ctile/layers/quant.hpp"

namespace ctile::kernels {

/// A closed range of t values, [lo, hi].
struct t_range {
  std::int64_t lo = 0;
  std::int64_t hi = 0;
  friend constexpr bool operator==(const t_range&, const t_range&) = default;
};

/// How a kernel turns t into an output value.
enum class requant_mode : std::uint8_t {
  raw,      ///< no requantization: the int32 value itself (linear layers with int32 output)
  shift32,  ///< y = (u * mul) >> shift, the product proven to fit 32 bits
  mulhi,    ///< y = mulhu(u, mul) >> (shift - 32)
  mul64,    ///< y = (u64(u) * mul) >> shift
  divide,   ///< y = floor(t * m / d) with a 64-bit division (no exact multiply exists)
};

/// The compiled form of a `ctile::requant` for one layer (plain values, constexpr).
struct requant_plan {
  requant_mode mode = requant_mode::raw;
  bool t64 = false;       ///< t may not fit int32: kernels compute t in 64 bits
  std::uint32_t mul = 1;  ///< multiplier M
  int shift = 0;          ///< total shift s
  std::int32_t t_hi = 0;  ///< clamp t to [0, t_hi] before the multiply
  std::int32_t lo = 0;    ///< output clip
  std::int32_t hi = 255;
  std::int64_t m = 1;  ///< the original constants, for `divide`
  std::int64_t d = 1;
  std::int32_t t_lo = 0;   ///< signed clips: clamp t to [t_lo, t_hi] (else 0)
  std::int32_t off = 0;    ///< signed clips: added to the clamped t before the multiply
  std::int32_t y_off = 0;  ///< signed clips: subtracted from the shifted product
  friend constexpr bool operator==(const requant_plan&, const requant_plan&) = default;
};

namespace detail {

constexpr std::int64_t gcd64(std::int64_t a, std::int64_t b) {
  while (b != 0) {
    const std::int64_t r = a % b;
    a = b;
    b = r;
  }
  return a;
}
constexpr std::int64_t ceil_div_pos(std::int64_t a, std::int64_t b) {  // a >= 0, b > 0
  return (a + b - 1) / b;
}
constexpr int bit_width(std::uint64_t v) {
  int n = 0;
  while (v != 0) ++n, v >>= 1;
  return n;
}

}  // namespace detail

/// Compiles `q` for values of t in `r`: a multiply-and-shift proven exact over r (see the
/// header comment), or `divide` when none exists. Usable at compile time and at run time.
constexpr requant_plan plan_requant(const requant& q, t_range r) {
  constexpr std::int64_t i32min = -2147483647 - 1;
  constexpr std::int64_t i32max = 2147483647;
  requant_plan p;
  p.m = q.m;
  p.d = q.d;
  p.lo = q.lo;
  p.hi = q.hi;
  p.t64 = r.lo < i32min || r.hi > i32max;
  p.mode = requant_mode::divide;
  // Outside these bounds the argument (or its 64-bit arithmetic) does not apply.
  constexpr std::int64_t lim = std::int64_t{1} << 40;
  if (q.m <= 0 || q.d <= 0 || q.m > i32max || q.d > lim || q.lo < -65536 || q.lo > q.hi ||
      q.hi < 0 || q.hi > 65535 || r.lo > r.hi)
    return p;
  const std::int64_t g = detail::gcd64(q.m, q.d);
  const std::uint64_t mp = static_cast<std::uint64_t>(q.m / g);
  const std::uint64_t dp = static_cast<std::uint64_t>(q.d / g);
  // Signed clips: the clamp's lower end and the offset that makes the clamped t non-negative.
  std::int64_t t_lo = 0, off = 0, y_off = 0;
  if (q.lo < 0) {
    const std::int64_t L = -floor_div(-std::int64_t{q.lo} * q.d, q.m);  // ceil(lo * d / m)
    t_lo = L - 1 > r.lo ? L - 1 : r.lo;
    if (t_lo < 0) {
      const std::int64_t j = detail::ceil_div_pos(-t_lo, static_cast<std::int64_t>(dp));
      off = j * static_cast<std::int64_t>(dp);
      y_off = j * static_cast<std::int64_t>(mp);
    } else {
      t_lo = 0;
    }
  }
  const std::int64_t H = detail::ceil_div_pos(std::int64_t{q.hi} * q.d, q.m);
  const std::int64_t top = r.hi > t_lo ? r.hi : t_lo;
  const std::int64_t b = (top < H ? top : H) + off;  // the bound of the shifted t
  if (b > i32max || t_lo < -i32max || y_off > i32max) return p;
  const auto ub = static_cast<std::uint64_t>(b);
  const int smax = 63 - detail::bit_width(mp);
  for (int s = 0; s <= smax; ++s) {
    const std::uint64_t num = mp << s;
    const std::uint64_t M = (num + dp - 1) / dp;
    if (M >= (std::uint64_t{1} << 32)) break;  // larger shifts only grow M
    const std::uint64_t e = M * dp - num;
    // b * e < 2^s, without overflow: e == 0, or b <= (2^s - 1) / e.
    const std::uint64_t two_s = std::uint64_t{1} << s;
    if (e != 0 && ub > (two_s - 1) / e) continue;
    p.mul = static_cast<std::uint32_t>(M);
    p.shift = s;
    p.t_hi = static_cast<std::int32_t>(b - off);
    p.t_lo = static_cast<std::int32_t>(t_lo);
    p.off = static_cast<std::int32_t>(off);
    p.y_off = static_cast<std::int32_t>(y_off);
    if (s < 32 && ub * M < (std::uint64_t{1} << 32)) {
      p.mode = requant_mode::shift32;
      return p;
    }
    // A larger shift stays exact (M and e at most double); prefer mulhu when M still fits.
    if (s < 32) {
      const std::uint64_t M32 = ((mp << 32) + dp - 1) / dp;
      if (detail::bit_width(mp) <= 31 && M32 < (std::uint64_t{1} << 32)) {
        p.mul = static_cast<std::uint32_t>(M32);
        p.shift = 32;
        p.mode = requant_mode::mulhi;
        return p;
      }
      p.mode = requant_mode::mul64;
      return p;
    }
    p.mode = requant_mode::mulhi;
    return p;
  }
  return p;
}

/// A plan that outputs the raw int32 value (no requantization).
constexpr requant_plan raw_output() {
  return requant_plan{};
}

/// Whether a plan clips to a signed range (its t_lo, off and y_off are in use).
constexpr bool signed_clip(const requant_plan& p) {
  return p.t_lo != 0 || p.off != 0 || p.y_off != 0;
}

/// The requantized output of an int32 t (kernels call this per output value). `Signed`
/// false: the caller knows the plan's clip is unsigned (!signed_clip(p)), so the signed
/// clamp and offsets fold away.
template <bool Signed = true>
inline std::int32_t requantize(const requant_plan& p, std::int32_t t) {
  const std::int32_t t_lo = Signed ? p.t_lo : 0, off = Signed ? p.off : 0;
  const std::int32_t y_off = Signed ? p.y_off : 0;
  switch (p.mode) {
    case requant_mode::raw:
      return t;
    case requant_mode::shift32: {
      const std::int32_t c = (t < t_lo ? t_lo : (t > p.t_hi ? p.t_hi : t)) + off;
      const std::uint32_t y = (static_cast<std::uint32_t>(c) * p.mul) >> p.shift;
      const auto v = static_cast<std::int32_t>(y) - y_off;
      return v < p.lo ? p.lo : (v > p.hi ? p.hi : v);
    }
    case requant_mode::mulhi: {
      const std::int32_t c = (t < t_lo ? t_lo : (t > p.t_hi ? p.t_hi : t)) + off;
      const auto hi32 =
          static_cast<std::uint32_t>((std::uint64_t{static_cast<std::uint32_t>(c)} * p.mul) >> 32);
      const auto v = static_cast<std::int32_t>(hi32 >> (p.shift - 32)) - y_off;
      return v < p.lo ? p.lo : (v > p.hi ? p.hi : v);
    }
    case requant_mode::mul64: {
      const std::int32_t c = (t < t_lo ? t_lo : (t > p.t_hi ? p.t_hi : t)) + off;
      const auto v = static_cast<std::int32_t>(
                         (std::uint64_t{static_cast<std::uint32_t>(c)} * p.mul) >> p.shift) -
                     y_off;
      return v < p.lo ? p.lo : (v > p.hi ? p.hi : v);
    }
    case requant_mode::divide:
      break;
  }
  return static_cast<std::int32_t>(clamp64(floor_div(std::int64_t{t} * p.m, p.d), p.lo, p.hi));
}

/// The same for a 64-bit t (plans with t64 set).
inline std::int32_t requantize64(const requant_plan& p, std::int64_t t) {
  if (p.mode == requant_mode::raw) return static_cast<std::int32_t>(t);
  if (p.mode == requant_mode::divide)
    return static_cast<std::int32_t>(clamp64(floor_div(t * p.m, p.d), p.lo, p.hi));
  // Clamping into [t_lo, t_hi] (inside int32) first is exact by construction.
  const std::int64_t c = t < p.t_lo ? p.t_lo : (t > p.t_hi ? p.t_hi : t);
  return requantize(p, static_cast<std::int32_t>(c));
}

}  // namespace ctile::kernels
