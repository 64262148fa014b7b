// The exact divider: every plan is checked against ctile::apply (the reference semantics)
// exhaustively on small ranges, at every point where floor(t * m / d) steps for large
// divisors, and on the functions that bound t.
#include <gtest/gtest.h>

#include <cstdint>
#include <ctile/kernels/layer_args.hpp>
#include <ctile/kernels/ranges.hpp>
#include <ctile/kernels/requant.hpp>
#include <ctile/network/infer.hpp>
#include <random>
#include <vector>

namespace {

using namespace ctile;
using namespace ctile::kernels;

std::int32_t planned(const requant_plan& p, std::int64_t t) {
  return p.t64 ? requantize64(p, t) : requantize(p, static_cast<std::int32_t>(t));
}

// Exhaustive over [lo, hi] (and a margin outside it, where clamping takes over).
void exhaustive(const requant& q, t_range r) {
  const requant_plan p = plan_requant(q, r);
  for (std::int64_t t = r.lo; t <= r.hi; ++t)
    ASSERT_EQ(planned(p, t), apply(q, t))
        << "t=" << t << " m=" << q.m << " d=" << q.d << " mode=" << int(p.mode);
}

TEST(ExactRequant, ExhaustiveSmallRanges) {
  for (std::int64_t d = 1; d <= 70; ++d)
    for (std::int64_t m = 1; m <= 24; ++m) {
      exhaustive({m, d, 0, 255}, {-600, 5000});
      exhaustive({m, d, 3, 15}, {-10, 700});
    }
}

TEST(ExactRequant, ExhaustiveNonTrivialConstants) {
  const std::int64_t ds[] = {255, 1000, 4095, 65535, 99991, 1 << 20};
  const std::int64_t ms[] = {1, 3, 77, 1021, 65537, 1234567};
  for (auto d : ds)
    for (auto m : ms) {
      const requant q{m, d, 0, 255};
      // The whole range where the result moves, plus margins.
      const std::int64_t H = (255 * d + m - 1) / m;
      exhaustive(q, {-1000, std::min<std::int64_t>(H + 1000, 300'000)});
    }
}

TEST(ExactRequant, PowersOfTwoAreShifts) {
  for (int k = 0; k < 31; ++k) {
    const requant q{1, std::int64_t{1} << k, 0, 255};
    const requant_plan p = plan_requant(q, {-(1ll << 31), (1ll << 31) - 1});
    EXPECT_NE(p.mode, requant_mode::divide) << k;
    for (std::int64_t j = 0; j <= 256; ++j) {
      const std::int64_t t = j << k;
      if (t > 2147483647) break;
      ASSERT_EQ(planned(p, t), apply(q, t));
      ASSERT_EQ(planned(p, t - 1), apply(q, t - 1));
    }
  }
}

// d = 2^24 - 1, where a shift by 24 is off by one: check every step of the output, and a
// spread of points, over realistic ranges of t.
TEST(ExactRequant, DivisorTwoToTheTwentyFourMinusOne) {
  const std::int64_t d = (1 << 24) - 1;
  std::mt19937_64 rng(11);
  for (std::int64_t m : {1ll, 3ll, 255ll, 65535ll, 8388607ll, 16777214ll}) {
    const requant q{m, d, 0, 255};
    const std::int64_t H = (255 * d + m - 1) / m;
    const std::int64_t top = std::min<std::int64_t>(H + 5, (1ll << 30));
    const requant_plan p = plan_requant(q, {-(1ll << 20), top});
    EXPECT_NE(p.mode, requant_mode::divide) << m;
    for (std::int64_t y = 0; y <= 256; ++y) {
      // The smallest t with floor(t * m / d) >= y, and its neighbours.
      const std::int64_t t = (y * d + m - 1) / m;
      for (std::int64_t u = t - 2; u <= t + 2; ++u) {
        if (u > top) break;
        ASSERT_EQ(planned(p, u), apply(q, u)) << "m=" << m << " t=" << u;
      }
    }
    for (int n = 0; n < 20000; ++n) {
      const auto t =
          static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(top + (1 << 20))) -
          (1 << 20);
      ASSERT_EQ(planned(p, t), apply(q, t));
    }
  }
  // Over the whole int32 range a 31-bit multiplier still passes the proof (s = 55):
  // check every step of the output reachable in int32.
  const requant q{1, d, 0, 255};
  const requant_plan p = plan_requant(q, {-(1ll << 31), (1ll << 31) - 1});
  EXPECT_NE(p.mode, requant_mode::divide);
  for (std::int64_t y = 0; y * d <= 2147483647; ++y)
    for (std::int64_t t = y * d - 1; t <= std::min<std::int64_t>(y * d + 1, 2147483647); ++t)
      ASSERT_EQ(planned(p, t), apply(q, t)) << t;
  EXPECT_EQ(planned(p, -2147483647 - 1), 0);
}

TEST(ExactRequant, FallsBackToDivisionWhenNothingIsProven) {
  // d = 2^40 - 1: every int32 t gives 0, the clamp interval lies outside int32.
  const requant q{1, (1ll << 40) - 1, 0, 255};
  const requant_plan p = plan_requant(q, {-(1ll << 31), (1ll << 31) - 1});
  EXPECT_EQ(p.mode, requant_mode::divide);
  for (std::int64_t t : {std::int64_t{0}, std::int64_t{2147483647}, -std::int64_t{2147483647} - 1})
    EXPECT_EQ(planned(p, t), apply(q, t));
  // A negative multiplier is outside the proof too; division stays exact.
  const requant n{-3, 7, 0, 255};
  const requant_plan pn = plan_requant(n, {-1000, 1000});
  EXPECT_EQ(pn.mode, requant_mode::divide);
  for (std::int64_t t = -1000; t <= 1000; ++t) ASSERT_EQ(planned(pn, t), apply(n, t));
}

// Signed clips (-2..1, -8..7, -128..127, and unsigned ones reached from negative t) keep a
// multiply and a shift: t clamped from below and offset by a multiple of d' (see requant.hpp),
// exact against ctile::apply (floor, not truncation) for every t of the range.
TEST(ExactRequant, SignedClipsAreMultiplyAndShift) {
  const std::int64_t ms[] = {1, 3, 5, 1000, 12345};
  const std::int64_t ds[] = {1, 2, 7, 256, 1000, 65535, (1 << 24) - 1};
  const value_range clips[] = {signed_range(2), signed_range(4), signed_range(8), {-3, 200}};
  int fast = 0, cases = 0;
  for (const std::int64_t m : ms)
    for (const std::int64_t d : ds)
      for (const value_range c : clips) {
        const requant q{m, d, c.lo, c.hi};
        const t_range r{-40000, 40000};
        const requant_plan p = plan_requant(q, r);
        fast += p.mode != requant_mode::divide;
        ++cases;
        for (std::int64_t t = r.lo; t <= r.hi; ++t)
          ASSERT_EQ(planned(p, t), apply(q, t))
              << "t=" << t << " m=" << m << " d=" << d << " lo=" << c.lo << " mode=" << int(p.mode);
      }
  EXPECT_EQ(fast, cases);
  // The whole int32 range of t, at the steps of floor(t * m / d).
  const requant q{7, 1 << 20, -128, 127};
  const requant_plan p = plan_requant(q, {-(1ll << 31), (1ll << 31) - 1});
  EXPECT_NE(p.mode, requant_mode::divide);
  for (std::int64_t y = -140; y <= 140; ++y) {
    const std::int64_t t0 = floor_div(y * (1 << 20), 7);
    for (std::int64_t t = t0 - 2; t <= t0 + 2; ++t) ASSERT_EQ(planned(p, t), apply(q, t)) << t;
  }
  EXPECT_EQ(planned(p, -2147483647 - 1), -128);
  EXPECT_EQ(planned(p, 2147483647), 127);
}

TEST(ExactRequant, SixtyFourBitT) {
  const requant q{5, 1 << 30, 0, 255};
  const requant_plan p = plan_requant(q, {-(1ll << 40), 1ll << 40});
  EXPECT_TRUE(p.t64);
  for (std::int64_t t : {-(1ll << 40), -1ll, 0ll, 1ll << 29, (1ll << 32) + 7, 1ll << 35, 1ll << 40})
    EXPECT_EQ(planned(p, t), apply(q, t)) << t;
}

TEST(ExactRequant, UsableAtCompileTime) {
  constexpr requant_plan p = plan_requant({3, 7, 0, 255}, {0, 10000});
  static_assert(p.mode == requant_mode::shift32 || p.mode == requant_mode::mulhi,
                "a small exact division compiles to a multiply and a shift");
  static_assert(plan_requant({1, 1 << 8, 0, 255}, {0, 1 << 20}).shift == 8,
                "a power-of-two divisor is a plain shift");
  EXPECT_EQ(requantize(p, 700), 255);
  EXPECT_EQ(requantize(p, 70), 30);
}

TEST(TRange, FromDimsAndFromData) {
  std::vector<layer> ls{input(4, 4, 2), conv2d(2, 3).same().with_bias().bn().requantized(1, 1000)};
  ASSERT_TRUE(infer(ls).ok());
  const layer& l = ls[1];
  const std::int8_t w[2 * 9 * 2] = {1,  -2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                    -1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5};
  const std::int32_t bias[2] = {10, -20};
  const std::int32_t kappa[2] = {2, -3};
  const std::int32_t lambda[2] = {7, 100};
  const layer_params p{w, bias, kappa, lambda};
  // Channel 0: acc in [255 * -2 + 10, 255 * 4 + 10] = [-500, 1030], t = 2 acc + 7.
  // Channel 1: acc in [255 * -2 - 20, 255 * 5 - 20] = [-530, 1255], t = -3 acc + 100.
  const t_range r = t_range_of(l, p);
  EXPECT_EQ(r.lo, std::min(-993, -3 * 1255 + 100));
  EXPECT_EQ(r.hi, std::max(2067, -3 * -530 + 100));
  const t_range worst = worst_t_range(l);
  EXPECT_LE(worst.lo, r.lo);
  EXPECT_GE(worst.hi, r.hi);
  // Average pool: 0 .. 255 * window.
  std::vector<layer> ps{input(4, 4, 2), avgpool(2)};
  ASSERT_TRUE(infer(ps).ok());
  EXPECT_EQ(worst_t_range(ps[1]), (t_range{0, 255 * 4}));
}

}  // namespace
