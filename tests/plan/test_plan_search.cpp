// The searches are exact: on small layers, DORY-objective plans equal a brute-force
// enumeration with DORY's objective written out independently here, and cost-model plans
// equal a brute-force minimum of the model over every tiling and split. On every layer of every
// example network, the cost-model plan is never worse than DORY's choice under the model.
#include <gtest/gtest.h>

#include <ctile/kernels/args.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "networks.hpp"

namespace {

using namespace ctile;

// Small layers of every kind, with budgets that force tiling on each axis.
using small_net = network<input(12, 10, 8),                                    //
                          conv2d(12, 3).same().bn().named("conv"),             //
                          depthwise(3).strides(2).padded(1).bn().named("dw"),  //
                          pointwise(20).bn().named("pw"),                      //
                          maxpool(2).named("pool"),                            //
                          conv2d(20, 1).bn().named("pw2"),                     //
                          add("pool").named("add"),                            //
                          conv2d(9, 3, 2).strides(2, 1).padded(1, 0, 0, 1).with_bias().named("odd"),
                          linear(7).with_bias().raw().named("fc")>;

// Independent L1 need of a tile (DESIGN.md section 2): input, output, weights and kappa/lambda
// double-buffered when they change between tiles, im2col / depthwise scratch, 4-byte aligned.
// `cores`: the working cores whose scratch counts (0: all of the platform's).
int need(const layer& l, const platform& p, int tc, int th, int tw, int cores = 0) {
  if (cores == 0) cores = p.cores;
  auto up4 = [](long v) { return static_cast<int>((v + 3) / 4 * 4); };
  const int H = l.out.h, W = l.out.w, C = l.out.c;
  const int nh = (H + th - 1) / th, nw = (W + tw - 1) / tw, nc = (C + tc - 1) / tc;
  long x = 0;
  int in_h = 0;
  if (l.kind == op::linear) {
    x = l.in.h * l.in.w * l.in.c;
  } else {
    in_h = std::min((th - 1) * l.stride.h + l.kernel.h, l.in.h);
    const int in_w = std::min((tw - 1) * l.stride.w + l.kernel.w, l.in.w);
    x = long{in_h} * in_w * (l.kind == op::conv ? l.in.c : tc);
  }
  const bool changes_x =
      l.kind == op::linear ? false : (l.kind == op::conv ? nh * nw > 1 : nh * nw * nc > 1);
  const int inputs = l.kind == op::add ? 2 : 1;
  long wts = 0;
  if (l.kind == op::conv) wts = long{tc} * l.kernel.h * l.kernel.w * l.in.c;
  if (l.kind == op::depthwise) wts = long{tc} * l.kernel.h * l.kernel.w;
  if (l.kind == op::linear) wts = long{tc} * l.in.h * l.in.w * l.in.c;
  const bool params = l.kind == op::conv || l.kind == op::depthwise || l.kind == op::linear;
  const long kl = params ? 4L * tc * ((l.bias ? 1 : 0) + (l.batchnorm ? 2 : 0)) : 0;
  // Kernel scratch: what the kernels say they need for a tile of th output rows.
  long scratch = 0;
  if (l.kind == op::conv && !(l.kernel.h == 1 && l.kernel.w == 1 && l.pad == padding{}))
    scratch = kernels::scratch_bytes(kernels::kernel_kind::conv, th, l.in.c, l.kernel.h, l.kernel.w,
                                     l.stride.h, cores);
  if (l.kind == op::depthwise)
    scratch = kernels::scratch_bytes(kernels::kernel_kind::depthwise, th, tc, l.kernel.h,
                                     l.kernel.w, l.stride.h, cores);
  (void)in_h;
  const long y = long{th} * tw * tc * l.output_bytes_per_element();
  const int rest = (changes_x ? 2 : 1) * inputs * up4(x) + (nc > 1 ? 2 : 1) * (up4(wts) + up4(kl)) +
                   up4(scratch);
  if (l.kind == op::linear) {
    // The whole output in one buffer when it fits, else two of the most channel tiles that
    // fit, at least one.
    const int whole = rest + up4(long{C} * l.output_bytes_per_element());
    if (nc == 1 || whole <= p.l1_budget()) return whole;
    for (int g = nc - 1; g > 1; --g)
      if (rest + 2 * up4(g * y) <= p.l1_budget()) return rest + 2 * up4(g * y);
  }
  return rest + (nh * nw * nc > 1 ? 2 : 1) * up4(y);
}

// DORY's objective, from its description: 0.5 x (input + output + weight bytes in L1) +
// 100 x output channels of a standard conv's tile + 10^6 x each of (h-1) mod 8, (w-1) mod 2,
// (c-1) mod 4 for the tile and for the border tile.
double dory_objective(const layer& l, const platform& p, int tc, int th, int tw) {
  const int H = l.out.h, W = l.out.w, C = l.out.c;
  const int nh = (H + th - 1) / th, nw = (W + tw - 1) / tw, nc = (C + tc - 1) / tc;
  const int lh = H - (nh - 1) * th, lw = W - (nw - 1) * tw, lc = C - (nc - 1) * tc;
  // The L1 fill without kappa/lambda, scratch or alignment.
  long x = 0;
  if (l.kind == op::linear) {
    x = long{l.in.h} * l.in.w * l.in.c;
  } else {
    const int in_h = std::min((th - 1) * l.stride.h + l.kernel.h, l.in.h);
    const int in_w = std::min((tw - 1) * l.stride.w + l.kernel.w, l.in.w);
    x = long{in_h} * in_w * (l.kind == op::conv ? l.in.c : tc);
  }
  const bool changes_x =
      l.kind == op::linear ? false : (l.kind == op::conv ? nh * nw > 1 : nh * nw * nc > 1);
  const long xs = (changes_x ? 2 : 1) * x * (l.kind == op::add ? 2 : 1);
  const long ys = (nh * nw * nc > 1 ? 2 : 1) * long{th} * tw * tc * l.output_bytes_per_element();
  long wts = 0;
  if (l.kind == op::conv) wts = long{tc} * l.kernel.h * l.kernel.w * l.in.c;
  if (l.kind == op::depthwise) wts = long{tc} * l.kernel.h * l.kernel.w;
  if (l.kind == op::linear) wts = long{tc} * l.in.h * l.in.w * l.in.c;
  const long ws = (nc > 1 ? 2 : 1) * wts;
  (void)p;
  const double terms =
      (th - 1) % 8 + (tw - 1) % 2 + (tc - 1) % 4 + (lh - 1) % 8 + (lw - 1) % 2 + (lc - 1) % 4;
  return 0.5 * static_cast<double>(xs + ys + ws) + 100.0 * (l.kind == op::conv ? tc : 0) +
         1e6 * terms;
}

struct pick {
  bool found = false;
  int tc = 0, th = 0, tw = 0;
};

// Brute force in the documented order: channels, rows, columns from large to small; the first
// best wins. Depthwise tiles are whole rows.
template <class Better>
pick brute_force(const layer& l, const platform& p, Better better, int cores = 0) {
  pick best;
  for (int tc = l.out.c; tc >= 1; --tc)
    for (int th = l.out.h; th >= 1; --th)
      for (int tw = l.out.w; tw >= 1; --tw) {
        if (l.kind == op::depthwise && tw != l.out.w) continue;
        if (need(l, p, tc, th, tw, cores) > p.l1_budget()) continue;
        if (!best.found || better(tc, th, tw, best)) best = {true, tc, th, tw};
      }
  return best;
}

// The core counts a layer is planned for, in order: all the platform's; when nothing fits
// and the kernel keeps scratch per core (conv with im2col, depthwise), half, a quarter, ...
bool scratch_per_core(const layer& l) {
  return (l.kind == op::conv && !(l.kernel.h == 1 && l.kernel.w == 1 && l.pad == padding{})) ||
         l.kind == op::depthwise;
}
std::vector<int> fewer_cores(const platform& p) {
  std::vector<int> r;
  for (int n = p.cores / 2; n >= 1; n /= 2) r.push_back(n);
  return r;
}

// L1 budgets (total L1, before the 27,300 B of stacks DORY reserves: gap8_dory) that force
// tiling.
const int budgets[] = {27300 + 700, 27300 + 1500, 27300 + 3000, 27300 + 9000};

TEST(PlanSearch, L1NeedMatchesAnIndependentCount) {
  for (int b : budgets) {
    const platform p = gap8_dory.with_l1(b);
    for (std::size_t i = 1; i < small_net::size; ++i) {
      const layer& l = small_net::layers[i];
      const tiling_problem P = make_problem(l, p);
      for (int tc = 1; tc <= l.out.c; ++tc)
        for (int th = 1; th <= l.out.h; ++th)
          for (int tw = 1; tw <= l.out.w; ++tw) {
            ASSERT_EQ(l1_bytes_for(P, tc, th, tw), need(l, p, tc, th, tw))
                << l.name.c_str() << " " << tc << "x" << th << "x" << tw;
            ASSERT_EQ(buffers_for(P, tc, th, tw).total(), need(l, p, tc, th, tw));
          }
    }
  }
}

TEST(PlanSearch, DoryObjectiveEqualsBruteForce) {
  int compared = 0;
  for (int b : budgets) {
    const platform p = gap8_dory.with_l1(b);
    for (std::size_t i = 1; i < small_net::size; ++i) {
      const layer& l = small_net::layers[i];
      SCOPED_TRACE(std::string(l.name.c_str()) + " budget " + std::to_string(b));
      const auto better = [&](int tc, int th, int tw, const pick& cur) {
        return dory_objective(l, p, tc, th, tw) > dory_objective(l, p, cur.tc, cur.th, cur.tw);
      };
      pick want = brute_force(l, p, better);
      if (!want.found && scratch_per_core(l))
        for (int n : fewer_cores(p)) {
          const pick w = brute_force(l, p, better, n);
          if (w.found && (!want.found || better(w.tc, w.th, w.tw, want))) want = w;
        }
      const layer_plan got = plan_layer(l, p, objective::dory);
      ASSERT_EQ(got.fits, want.found);
      if (!want.found) continue;
      EXPECT_EQ(got.tile_c, want.tc);
      EXPECT_EQ(got.tile_h, want.th);
      EXPECT_EQ(got.tile_w, want.tw);
      ++compared;
    }
  }
  EXPECT_GT(compared, 20);
}

TEST(PlanSearch, CostModelPlanEqualsBruteForceOverTilingsAndSplits) {
  int compared = 0;
  for (int b : budgets) {
    const platform p = gap8_dory.with_l1(b);
    for (std::size_t i = 1; i < small_net::size; ++i) {
      const layer& l = small_net::layers[i];
      SCOPED_TRACE(std::string(l.name.c_str()) + " budget " + std::to_string(b));
      const tiling_problem full = make_problem(l, p);
      std::int64_t best = -1;
      pick at;
      core_split split{};
      std::vector<int> counts{p.cores};
      for (int n : fewer_cores(p)) counts.push_back(n);
      bool on_all_cores = false;  // a tiling fits on all cores: fewer are not tried
      for (int n : counts) {
        if (n < p.cores && (on_all_cores || !scratch_per_core(l))) break;
        const tiling_problem P = n < p.cores ? on_fewer_cores(full, n) : full;
        const cost::split_list splits = cost::splits_for(P);
        for (int tc = l.out.c; tc >= 1; --tc)
          for (int th = l.out.h; th >= 1; --th)
            for (int tw = l.out.w; tw >= 1; --tw) {
              if (l.kind == op::depthwise && tw != l.out.w) continue;
              if (need(l, p, tc, th, tw, n) > p.l1_budget()) continue;
              for (int s = 0; s < splits.n; ++s) {
                const std::int64_t c = cost::layer_cycles(P, tc, th, tw, splits.item[s]);
                if (best < 0 || c < best) best = c, at = {true, tc, th, tw}, split = splits.item[s];
              }
            }
        if (n == p.cores) on_all_cores = at.found;
      }
      const layer_plan got = plan_layer(l, p, objective::model);
      ASSERT_EQ(got.fits, at.found);
      if (!at.found) continue;
      EXPECT_EQ(got.l1_cycles, best);
      EXPECT_EQ(got.tile_c, at.tc);
      EXPECT_EQ(got.tile_h, at.th);
      EXPECT_EQ(got.tile_w, at.tw);
      EXPECT_EQ(got.split, split);
      ++compared;
    }
  }
  EXPECT_GT(compared, 20);
}

TEST(PlanSearch, CostModelPlanIsNeverWorseThanDorysChoice) {
  int layers = 0, strictly_better = 0;
  for (const auto& n : test::example_networks()) {
    for (std::size_t i = 1; i < n.layers.size(); ++i) {
      const layer& l = n.layers[i];
      const layer_plan m = plan_layer(l, gap8, objective::model);
      const layer_plan d = plan_layer(l, gap8, objective::dory);
      ASSERT_TRUE(m.fits && d.fits) << n.name << " " << l.name.c_str();
      // DORY's choice under the model, with the kernel's default split.
      const tiling_problem P = make_problem(l, gap8);
      const std::int64_t dory_cycles =
          cost::layer_cycles(P, d.tile_c, d.tile_h, d.tile_w, cost::default_split(P));
      EXPECT_EQ(d.l1_cycles, dory_cycles);
      EXPECT_LE(m.l1_cycles, dory_cycles) << n.name << " " << l.name.c_str();
      ++layers;
      if (m.l1_cycles < dory_cycles) ++strictly_better;
    }
  }
  EXPECT_GT(layers, 100);
  EXPECT_GT(strictly_better, 0);
}

TEST(PlanSearch, NoTilingFitsReportsTheLeastL1) {
  // A 3x3 conv over 2048 channels: im2col alone takes 2 x 2048 x 9 = 36,864 B per core, more
  // than GAP-8's L1 budget even on one core.
  using big = network<input(8, 8, 2048), conv2d(16, 3).same().named("big")>;
  const layer_plan q = plan_layer(big::layers[1], gap8);
  EXPECT_FALSE(q.fits);
  // Least need, on one core (the least of any core count): over the tile corners.
  int exact = need(big::layers[1], gap8, 1, 1, 1, 1);
  for (int tc : {1, 16})
    for (int th : {1, 8})
      for (int tw : {1, 8}) exact = std::min(exact, need(big::layers[1], gap8, tc, th, tw, 1));
  EXPECT_EQ(q.l1_needed, exact);
  EXPECT_GT(q.l1_needed, gap8.l1_budget());
}

// When no tiling fits beside every core's im2col buffer, the layer runs on fewer cores: the
// most that fit, each with its scratch, as a grid split that leaves the other cores idle.
TEST(PlanSearch, FewerCoresWhenScratchDoesNotFit) {
  // 3x3 over 512 channels: 9,216 B of im2col per core, 73,728 B for 8.
  using big = network<input(8, 8, 512), conv2d(16, 3).same().named("big")>;
  const layer& l = big::layers[1];
  const layer_plan q = plan_layer(l, gap8);
  ASSERT_TRUE(q.fits);
  EXPECT_LT(q.cores, gap8.cores);
  EXPECT_EQ(q.split.kind, split_kind::grid);
  EXPECT_LE(q.split.v * q.split.k, q.cores);
  EXPECT_EQ(q.l1.total, need(l, gap8, q.tile_c, q.tile_h, q.tile_w, q.cores));
  EXPECT_LE(q.l1.total, gap8.l1_budget());
  // Nothing fits on all cores; no other core count plans it faster.
  const tiling_problem P = make_problem(l, gap8);
  EXPECT_FALSE(search(P).found);
  for (int n : fewer_cores(gap8)) {
    const tiling_choice c = search(on_fewer_cores(P, n));
    if (c.found) {
      EXPECT_GE(c.score, q.l1_cycles) << n << " cores";
    }
  }
}

TEST(PlanSearch, LayersWithoutAValidShapeAreReportedNotPlanned) {
  layer l = conv2d(8, 3);  // never inferred: no shapes
  const layer_plan q = plan_layer(l, gap8);
  EXPECT_FALSE(q.fits);
  // Absurdly large layers do not overflow: they simply do not fit.
  using huge = network<input(4096, 4096, 4096), conv2d(4096, 3).same().named("huge")>;
  const layer_plan h = plan_layer(huge::layers[1], gap8);
  EXPECT_FALSE(h.fits);
  EXPECT_GT(h.l1_needed, gap8.l1_budget());
}

TEST(PlanSearch, NetworkPlanRejectsLayersThatWereNotInferred) {
  std::vector<layer> ls{input(8, 8, 3), conv2d(8, 3).same()};  // sources not resolved
  std::vector<layer_plan> plans(ls.size());
  std::vector<layer_l2> l2(ls.size());
  const network_summary s = finish_network(ls, gap8, plans, l2);
  EXPECT_EQ(s.problem, plan_fault::not_inferred);
  EXPECT_EQ(s.layer, 1);  // the layer whose source is unresolved
  std::vector<layer_plan> fewer(1);
  EXPECT_EQ(finish_network(ls, gap8, fewer, l2).problem, plan_fault::not_inferred);
  // The per-layer bounds and the imported check say the same.
  const network_summary b = lower_bounds(ls, gap8);
  EXPECT_EQ(b.problem, plan_fault::not_inferred);
  EXPECT_EQ(b.layer, 1);
  std::vector<imported_l3> choice(ls.size());
  const network_summary m = finish_network_imported(ls, gap8, plans, l2, choice);
  EXPECT_EQ(m.problem, plan_fault::not_inferred);
  EXPECT_EQ(m.layer, 1);
}

// More layers than a plan holds: every network check names the count and the limit, before
// reading a layer.
TEST(PlanSearch, NetworkPlanRejectsTooManyLayers) {
  std::vector<layer> ls{input(4, 4, 4)};
  for (int i = 0; i < max_layers; ++i) ls.push_back(pointwise(4).requantized(1, 1));
  ASSERT_TRUE(infer(ls).ok());
  const auto n = static_cast<std::int64_t>(ls.size());
  std::vector<layer_plan> plans(ls.size());
  plan_layers(ls, gap8, objective::model, plans);
  std::vector<layer_l2> l2(ls.size());
  std::vector<imported_l3> choice(ls.size());
  for (const network_summary& s : {finish_network(ls, gap8, plans, l2), lower_bounds(ls, gap8),
                                   finish_network_imported(ls, gap8, plans, l2, choice)}) {
    EXPECT_EQ(s.problem, plan_fault::too_many_layers);
    EXPECT_EQ(s.needs, n);
    EXPECT_EQ(s.budget, max_layers);
  }
  ls.pop_back();  // exactly max_layers: plans
  plans.resize(ls.size()), l2.resize(ls.size());
  plan_layers(ls, gap8, objective::model, plans);
  EXPECT_TRUE(finish_network(ls, gap8, plans, l2).ok());
}

// The per-layer lower bounds checked before any search are bounds of what the planner does:
// over the example networks on platforms from roomy to far too small, a network they reject
// is one the planner (run without them) cannot fit either, and where both fault on the same
// layer for the same memory, the bound's bytes are at most the planner's.
TEST(PlanSearch, LowerBoundsNeverRejectWhatThePlannerFits) {
  const auto all = test::example_networks();
  const std::vector<test::named_network> nets = {all[0], all[3], all[4], all[6]};
  int rejected = 0, planned_ok = 0;
  for (const auto& net : nets) {
    for (int l1 : {20000, 40000, 64000}) {
      for (int l2 : {120 * 1024, 160 * 1024, 512 * 1024}) {
        for (int l3 : {0, 40 * 1024, 8 * 1024 * 1024}) {
          const platform p = gap8.with_l1(l1).with_l2(l2).with_l3(l3);
          const network_summary b = lower_bounds(net.layers, p);
          const test::planned r = test::plan_at_run_time(net.layers, p, objective::model);
          SCOPED_TRACE(std::string(net.name) + " l1 " + std::to_string(l1) + " l2 " +
                       std::to_string(l2) + " l3 " + std::to_string(l3));
          if (r.summary.ok()) ++planned_ok;
          if (b.ok()) continue;
          ++rejected;
          EXPECT_FALSE(r.summary.ok());
          if (b.problem == r.summary.problem && b.layer == r.summary.layer) {
            EXPECT_LE(b.needs, r.summary.needs);
          }
        }
      }
    }
  }
  // Both outcomes occur, so the comparison is not vacuous.
  EXPECT_GT(rejected, 0);
  EXPECT_GT(planned_ok, 0);
}

// The search's work is bounded (search_work_limit, what a constant evaluation uses): no
// example network's layer on GAP-8 reaches the bound (their compile-time plans stay exact
// optima), while a 3x3 conv from 224x224x3 to 512 channels does and still gets a tiling that
// fits L1, no worse than the balanced seed and no better than the exact optimum (the search
// without a limit, as at run time).
TEST(PlanSearch, SearchWorkIsBounded) {
  for (const auto& net : test::example_networks()) {
    for (const layer& l : net.layers) {
      if (l.kind == op::input) continue;
      const tiling_choice c =
          search_on_cores(make_problem(l, gap8), objective::model, search_work_limit);
      EXPECT_FALSE(c.cut_short) << net.name << " " << l.name.c_str();
      EXPECT_LT(c.work, search_work_limit) << net.name << " " << l.name.c_str();
    }
  }
  using big = network<input(224, 224, 3), conv2d(512, 3).same().named("conv")>;
  const tiling_problem P = make_problem(big::layers[1], gap8);
  const tiling_choice c = search_on_cores(P, objective::model, search_work_limit);
  EXPECT_TRUE(c.cut_short);
  EXPECT_LE(c.work, search_work_limit);
  ASSERT_TRUE(c.found);
  EXPECT_LE(l1_bytes_for(P, c.tc, c.th, c.tw), P.l1_budget);
  EXPECT_EQ(cost::layer_cycles(P, c.tc, c.th, c.tw, c.split), c.score);
  EXPECT_LE(c.score, seed_tiling(P, cost::splits_for(P)).score);
  const tiling_choice exact = search_on_cores(P);  // at run time: no limit
  EXPECT_FALSE(exact.cut_short);
  EXPECT_GT(exact.work, search_work_limit);
  EXPECT_LE(exact.score, c.score);
}

}  // namespace

namespace {

// Every field a search reports, so that two searches compare as a whole.
void expect_same_choice(const tiling_choice& a, const tiling_choice& b, const std::string& what) {
  EXPECT_EQ(a.found, b.found) << what;
  EXPECT_EQ(a.tc, b.tc) << what;
  EXPECT_EQ(a.th, b.th) << what;
  EXPECT_EQ(a.tw, b.tw) << what;
  EXPECT_EQ(a.tk, b.tk) << what;
  EXPECT_TRUE(a.split == b.split) << what;
  EXPECT_EQ(a.score, b.score) << what;
  EXPECT_EQ(a.cores, b.cores) << what;
  EXPECT_EQ(a.visited, b.visited) << what;
  EXPECT_EQ(a.channel_tiles, b.channel_tiles) << what;
  EXPECT_EQ(a.row_tiles, b.row_tiles) << what;
  EXPECT_EQ(a.work, b.work) << what;
  EXPECT_EQ(a.cut_short, b.cut_short) << what;
}

// search_on_cores run in slices of `slice` candidates, as the compile-time plan runs it
// (sliced_plan), counting the slices.
tiling_choice sliced(const tiling_problem& P, objective o, std::int64_t limit, std::int64_t slice,
                     int& slices) {
  cores_progress s;
  slices = 0;
  do {
    s = search_on_cores_step(P, o, s, limit, slice);
    ++slices;
  } while (!s.done && slices < 1000000);
  return s.best;
}

}  // namespace

// A search run in slices (each a constant of its own at compile time) makes the same steps as
// one run whole: the same choice, the same counts of candidates, pruned subtrees and work,
// the same cut at the work limit. Checked on every layer of every example network, on the
// small layers under budgets that force tiling on each axis (some on fewer cores for their
// scratch), on a classifier and a convolution whose searches are cut at search_work_limit,
// with slices from one candidate up, and without a limit.
TEST(PlanSearch, SlicedSearchMakesTheSameSteps) {
  std::vector<std::pair<std::string, tiling_problem>> problems;
  for (const auto& net : test::example_networks())
    for (const layer& l : net.layers)
      if (l.kind != op::input)
        problems.emplace_back(std::string(net.name) + " " + l.name.c_str(), make_problem(l, gap8));
  for (const int budget : budgets)
    for (const layer& l : small_net::layers)
      if (l.kind != op::input)
        problems.emplace_back(std::string("small ") + l.name.c_str() + " " + std::to_string(budget),
                              make_problem(l, gap8_dory.with_l1(budget)));
  using classifier = network<input(1, 1, 2048), linear(2048).named("fc")>;
  using wide_conv = network<input(224, 224, 3), conv2d(512, 3).same().named("conv")>;
  problems.emplace_back("classifier", make_problem(classifier::layers[1], gap8));
  problems.emplace_back("wide conv", make_problem(wide_conv::layers[1], gap8));
  int cut = 0, resumed = 0, fewer_cores = 0;
  for (const auto& [name, P] : problems) {
    for (const objective o : {objective::model, objective::dory}) {
      for (const std::int64_t limit : {search_work_limit, std::int64_t{INT64_MAX}}) {
        const tiling_choice whole = search_on_cores(P, o, limit);
        cut += whole.cut_short ? 1 : 0;
        fewer_cores += whole.found && whole.cores < P.cores ? 1 : 0;
        for (const std::int64_t slice : {1, 2, 7, 64, static_cast<int>(search_slice_work)}) {
          if (limit == INT64_MAX && whole.work > 20000 && slice < 64) continue;  // time
          int n = 0;
          const tiling_choice c = sliced(P, o, limit, slice, n);
          resumed += n > 1 ? 1 : 0;
          expect_same_choice(
              c, whole,
              name + " slice " + std::to_string(slice) + " limit " + std::to_string(limit));
        }
      }
    }
  }
  // The comparisons cover cut searches, searches resumed many times and plans on fewer cores.
  EXPECT_GE(cut, 2);
  EXPECT_GT(resumed, 100);
  EXPECT_GT(fewer_cores, 0);
}

// The compile-time plan is the sliced search's: equal to the run-time plan of the same
// problem (with the compile-time work limit), here for a search cut at the limit (the
// 2048 -> 2048 classifier: 10,032 candidates, cut after eight slices) and MobileNet-v1
// 1.0-128's classifier (6,340 candidates, not cut).
TEST(PlanSearch, CompileTimePlanIsTheSlicedSearch) {
  using classifier = network<input(1, 1, 2048), linear(2048).named("fc")>;
  constexpr tiling_problem P = make_problem(classifier::layers[1], gap8);
  constexpr layer_plan at_compile_time = sliced_plan<P, objective::model>();
  const layer_plan at_run_time =
      plan_of_choice(P, objective::model, search_on_cores(P, objective::model, search_work_limit));
  EXPECT_TRUE(at_compile_time.fits);
  EXPECT_EQ(at_compile_time.tile_c, at_run_time.tile_c);
  EXPECT_EQ(at_compile_time.tile_k, at_run_time.tile_k);
  EXPECT_EQ(at_compile_time.n_k, at_run_time.n_k);
  EXPECT_EQ(at_compile_time.l1_cycles, at_run_time.l1_cycles);
  EXPECT_EQ(at_compile_time.score, at_run_time.score);
  EXPECT_TRUE(search_on_cores(P, objective::model, search_work_limit).cut_short);

  const layer& fc = examples::mobilenet_v1_100_128::layers[29];
  ASSERT_EQ(fc.kind, op::linear);
  const layer_plan& compiled = plan_of<examples::mobilenet_v1_100_128, gap8>.layers[29];
  const layer_plan run = plan_layer(fc, gap8);
  EXPECT_EQ(compiled.tile_c, run.tile_c);
  EXPECT_EQ(compiled.tile_k, run.tile_k);
  EXPECT_EQ(compiled.l1_cycles, run.l1_cycles);
  EXPECT_EQ(compiled.score, run.score);
}
