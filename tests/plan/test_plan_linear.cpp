// Fully connected layers whose weight rows do not fit L1 whole: the planner cuts the reduction
// (the flattened input, K bytes) in K tiles. Checked against an independent count of the L1
// bytes, a brute force over the documented search space, and the least budget it reports.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <ctile/ctile.hpp>
#include <ctile/plan/search.hpp>
#include <ctile/platform/gap8.hpp>
#include <string>
#include <vector>

namespace {

using namespace ctile;

layer fc_layer(shape in, layer fc) {
  std::vector<layer> ls{input(in.h, in.w, in.c), fc};
  EXPECT_TRUE(infer(ls).ok());
  return ls.back();
}

const layer fcs[] = {
    fc_layer({8, 8, 64}, linear(10).with_bias().raw()),
    fc_layer({4, 4, 50}, linear(37).bn().requantized(1, 4096)),
    fc_layer({1, 1, 1001}, linear(100).with_bias().bn().requantized(1, 4096)),
    fc_layer({3, 7, 5}, linear(6).requantized(1, 300)),
};

// Independent L1 bytes of tc output channels by tk bytes of the reduction (tk == K: whole)
// under an L1 budget: the input whole when the reduction is whole or its two slices would take
// as much (else two slices), the weights and parameters double-buffered when they change
// between tiles, the int32 partial sums when the reduction is cut, and the output: whole in one
// buffer when that fits the budget, else two buffers of the most channel tiles that fit (at
// least one); 4-byte aligned.
int need(const layer& l, int tc, int tk, int budget) {
  auto up4 = [](long v) { return static_cast<int>((v + 3) / 4 * 4); };
  const int K = static_cast<int>(l.in.elements());
  const int nc = (l.out.c + tc - 1) / tc, nk = (K + tk - 1) / tk;
  const long kl = 4L * tc * ((l.bias ? 1 : 0) + (l.batchnorm ? 2 : 0));
  const int copies_w = nc > 1 || nk > 1 ? 2 : 1;
  const int x = nk == 1 || up4(K) <= 2 * up4(tk) ? up4(K) : 2 * up4(tk);
  const int rest = x + copies_w * (up4(long{tc} * tk) + up4(kl)) + (nk > 1 ? 4 * tc : 0);
  const long eb = l.output_bytes_per_element();
  const int whole = rest + up4(l.out.c * eb);
  if (nc == 1 || whole <= budget) return whole;
  for (int g = nc - 1; g > 1; --g)
    if (rest + 2 * up4(g * tc * eb) <= budget) return rest + 2 * up4(g * tc * eb);
  return rest + 2 * up4(tc * eb);
}

// The documented search space: per channel tile, the whole reduction if it fits, else the
// balanced K tiles (ceil(K / n) rounded up to a multiple of 4, n >= 2) that fit, largest
// first, at most 8 distinct sizes. `all`: every balanced K tile (what ctile-solve gives Z3).
std::vector<int> k_tiles(const layer& l, int tc, int budget, bool all) {
  const int K = static_cast<int>(l.in.elements());
  if (need(l, tc, K, budget) <= budget) return {K};
  std::vector<int> r;
  for (int n = 2; n <= (K + 3) / 4; ++n) {
    const int tk = std::min(K, ((K + n - 1) / n + 3) / 4 * 4);
    if (need(l, tc, tk, budget) > budget) continue;
    if (!r.empty() && r.back() == tk) continue;
    r.push_back(tk);
    if (!all && r.size() == 8) break;
  }
  return r;
}

struct best_plan {
  bool found = false;
  int tc = 0, tk = 0;
  std::int64_t cycles = 0;
};
best_plan brute_force(const layer& l, const platform& p, bool all) {
  const tiling_problem P = make_problem(l, p);
  const int K = static_cast<int>(l.in.elements());
  best_plan b;
  for (int tc = l.out.c; tc >= 1; --tc)
    for (int tk : k_tiles(l, tc, p.l1_budget(), all)) {
      const std::int64_t c =
          cost::layer_cycles(P, tc, 1, 1, cost::default_split(P), tk < K ? tk : 0);
      if (!b.found || c < b.cycles) b = {true, tc, tk, c};
    }
  return b;
}

const int budgets[] = {160, 400, 1000, 1500, 2048, 3000, 5000, 12000};

TEST(PlanLinear, L1BytesOfKTilesMatchAnIndependentCount) {
  for (const layer& l : fcs) {
    const tiling_problem P = make_problem(l, gap8);
    const int K = static_cast<int>(l.in.elements());
    for (int tc = 1; tc <= l.out.c; ++tc)
      for (int tk = 4; tk <= K; tk += 4) {
        const int t = tk < K ? tk : 0;
        const int want = need(l, tc, tk, P.l1_budget);
        ASSERT_EQ(l1_bytes_for(P, tc, 1, 1, t), want) << tc << " x k" << tk;
        ASSERT_EQ(buffers_for(P, tc, 1, 1, t).total(), want) << tc << " x k" << tk;
      }
  }
}

TEST(PlanLinear, PlanEqualsBruteForceOverItsSearchSpace) {
  int cut = 0;
  for (const layer& l : fcs)
    for (int b : budgets) {
      const platform p = gap8.with_stacks(0, 0).with_l1(b);
      SCOPED_TRACE(std::string(l.name.c_str()) + " K " + std::to_string(l.in.elements()) +
                   " budget " + std::to_string(b));
      const best_plan want = brute_force(l, p, false);
      const layer_plan got = plan_layer(l, p);
      ASSERT_EQ(got.fits, want.found);
      if (!want.found) continue;
      EXPECT_EQ(got.tile_c, want.tc);
      EXPECT_EQ(got.tile_k, want.tk);
      EXPECT_EQ(got.l1_cycles, want.cycles);
      EXPECT_LE(got.l1.total, p.l1_budget());
      EXPECT_EQ(got.n_k, static_cast<int>((l.in.elements() + want.tk - 1) / want.tk));
      EXPECT_EQ(got.last_k, static_cast<int>(l.in.elements()) - (got.n_k - 1) * got.tile_k);
      cut += got.n_k > 1;
    }
  EXPECT_GT(cut, 10) << "the budgets did not force K tiles";
}

// Every balanced K tile, as the solver sees them, is never worse than the compiler's bounded
// search; both see the same plan whenever the reduction fits whole.
TEST(PlanLinear, TheFullSpaceIsNeverWorse) {
  for (const layer& l : fcs)
    for (int b : budgets) {
      const platform p = gap8.with_stacks(0, 0).with_l1(b);
      const best_plan bounded = brute_force(l, p, false), full = brute_force(l, p, true);
      ASSERT_EQ(bounded.found, full.found);
      if (!full.found) continue;
      EXPECT_LE(full.cycles, bounded.cycles);
      if (full.tk == static_cast<int>(l.in.elements())) {
        EXPECT_EQ(full.cycles, bounded.cycles);
      }
    }
}

// The least L1 reported for a layer is exactly the budget at which it starts to fit.
TEST(PlanLinear, LeastL1IsExact) {
  for (const layer& l : fcs) {
    const layer_plan any = plan_layer(l, gap8.with_stacks(0, 0).with_l1(1 << 20));
    const int least = any.l1_needed;
    EXPECT_TRUE(plan_layer(l, gap8.with_stacks(0, 0).with_l1(least)).fits);
    EXPECT_FALSE(plan_layer(l, gap8.with_stacks(0, 0).with_l1(least - 1)).fits);
  }
}

// DORY does not cut the reduction: under its objective a whole-row tiling wins when one fits.
TEST(PlanLinear, DoryObjectiveCutsOnlyWhenNothingElseFits) {
  for (const layer& l : fcs)
    for (int b : budgets) {
      const platform p = gap8.with_stacks(0, 0).with_l1(b);
      const layer_plan d = plan_layer(l, p, objective::dory);
      const bool whole_fits =
          need(l, 1, static_cast<int>(l.in.elements()), p.l1_budget()) <= p.l1_budget();
      if (whole_fits) {
        EXPECT_EQ(d.n_k, 1);
      } else if (d.fits) {
        EXPECT_GT(d.n_k, 1);
      }
    }
}

// With L1 to spare, a classifier keeps its reduction whole.
TEST(PlanLinear, AmpleL1KeepsTheReductionWhole) {
  for (const layer& l : fcs) {
    const layer_plan p = plan_layer(l, gap8.with_l1(1 << 20));
    ASSERT_TRUE(p.fits);
    EXPECT_EQ(p.n_k, 1);
    EXPECT_EQ(p.tile_k, static_cast<int>(l.in.elements()));
  }
}

}  // namespace
