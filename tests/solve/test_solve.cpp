// ctile-solve's library: the exported problems read back equal to the planner's; on every
// layer of every example network Z3 and the constexpr search agree on the objective (and,
// with the search's tie-break, on the plan); unsatisfiable layers name the smallest budget
// that works; malformed files are rejected; the joint problem respects L2 at every step.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <ctile/ctile.hpp>
#include <ctile/plan/imported.hpp>
#include <ctile/plan/plan.hpp>
#include <ctile/reference/reference.hpp>
#include <ctile/schedule/host_run.hpp>
#include <ctile/solve/export.hpp>
#include <ctile/solve/json.hpp>
#include <ctile/solve/solve.hpp>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "networks/cifar10_cnn.hpp"
#include "networks/mobilenet_v1.hpp"
#include "networks/mobilenet_v2.hpp"
#include "networks/residual.hpp"

namespace {

using namespace ctile;
using namespace ctile::solve;

struct named {
  const char* name;
  std::span<const layer> layers;
};
template <class Net>
std::span<const layer> layers_of() {
  return {Net::layers.data(), Net::layers.size()};
}
// Residual sums of 9 and 10 bits held in 16-bit tensors, read by a conv, an add, a max pool
// (16 bits again) and a classifier: the problems carry the element widths.
using wide_sums = network<input(16, 16, 8),  //
                          conv2d(16, 3).same().requantized(1, 64).named("a"),
                          conv2d(16, 3).same().requantized(1, 64).named("b"),
                          add("a")
                              .scaled(0, {32, 0, 0, false})
                              .scaled(1, {32, 0, 0, false})
                              .requantized(1, 32)
                              .unclipped()
                              .named("sum"),
                          conv2d(16, 3).same().requantized(1, 512).named("c"),
                          add("sum", "sum").requantized(1, 1).unclipped().named("twice"),
                          maxpool(2).named("mp"), linear(10).raw().named("fc")>;
static_assert(wide_sums::layers[3].output_bytes_per_element() == 2);

std::vector<named> networks() {
  return {{"cifar10_cnn", layers_of<examples::cifar10_cnn>()},
          {"mobilenet_v1_1.0_128", layers_of<examples::mobilenet_v1_100_128>()},
          {"mobilenet_v1_0.5_192", layers_of<examples::mobilenet_v1_050_192>()},
          {"mobilenet_v1_0.25_128", layers_of<examples::mobilenet_v1_025_128>()},
          {"mobilenet_v2_0.35_128", layers_of<examples::mobilenet_v2_035_128>()},
          {"mobilenet_v2_1.0_128", layers_of<examples::mobilenet_v2_100_128>()},
          {"resnet_small", layers_of<examples::resnet_small>()},
          {"wide_sums", layers_of<wide_sums>()}};
}

std::string exported(std::span<const layer> ls, const platform& p) {
  char* buf = nullptr;
  std::size_t len = 0;
  std::FILE* f = open_memstream(&buf, &len);
  export_problems(f, ls, p, {"net", "net_type", "ctile::gap8", "net.hpp"});
  std::fclose(f);
  std::string s(buf, len);
  std::free(buf);
  return s;
}

std::string problem_text(const tiling_problem& t) {
  char* buf = nullptr;
  std::size_t len = 0;
  std::FILE* f = open_memstream(&buf, &len);
  export_detail::problem_json(f, t);
  std::fclose(f);
  std::string s(buf, len);
  std::free(buf);
  return s;
}

constexpr platform tiny_l1 = gap8.with_stacks(0, 0).with_l1(16 * 1024).named("tiny-l1");

TEST(SolveExport, ProblemsReadBackEqualToThePlanners) {
  for (const auto& n : networks()) {
    const problem_set s = read_problems(exported(n.layers, gap8));
    ASSERT_EQ(s.layers.size(), n.layers.size()) << n.name;
    EXPECT_EQ(s.target, gap8);
    for (std::size_t i = 0; i < n.layers.size(); ++i) {
      const layer& l = n.layers[i];
      EXPECT_EQ(s.layers[i].kind, l.kind);
      EXPECT_EQ(s.layers[i].out, l.out);
      EXPECT_EQ(s.layers[i].name, std::string(l.name.c_str()));
      if (l.kind == op::input) continue;
      const tiling_problem want = make_problem(l, gap8);
      const tiling_problem& got = s.layers[i].problem;
      // Field by field through the model's own evaluations, and the text.
      EXPECT_EQ(problem_text(got), problem_text(want)) << n.name << " layer " << i;
      EXPECT_EQ(min_l1_need(got), min_l1_need(want));
      EXPECT_EQ(cost::layer_cycles(got, 1, 1, got.whole_rows ? got.W : 1, {}),
                cost::layer_cycles(want, 1, 1, want.whole_rows ? want.W : 1, {}));
    }
  }
}

// Z3 and the constexpr search on every layer of every example network, on GAP-8 and on a
// 16 KiB L1 (many tiles): equal objective values, and the same plan (Z3's tie-break is the
// search's order); the chosen tiling passes the compile-time re-check.
void agree_on(const platform& p) {
  int layers = 0, same = 0;
  for (const auto& n : networks()) {
    const problem_set s = read_problems(exported(n.layers, p));
    const network_solution sol = solve_network(s, {});
    ASSERT_TRUE(sol.ok) << n.name;
    for (std::size_t i = 1; i < n.layers.size(); ++i) {
      const layer& l = n.layers[i];
      const layer_plan lp = plan_layer(l, p, objective::model);
      const layer_solution& x = sol.layers[i];
      ASSERT_EQ(x.status, layer_status::optimal) << n.name << " layer " << i;
      ASSERT_TRUE(lp.fits);
      EXPECT_EQ(x.chosen.cycles, lp.score) << n.name << " layer " << i << " " << l.name.c_str();
      ++layers;
      same += x.chosen.tc == lp.tile_c && x.chosen.th == lp.tile_h && x.chosen.tw == lp.tile_w &&
              x.chosen.split == lp.split && x.chosen.tk == (lp.n_k > 1 ? lp.tile_k : 0) &&
              (x.chosen.cores == 0 ? p.cores : x.chosen.cores) == lp.cores;
      const imported_layer im{l.kind,         l.out.h,         l.out.w,     l.out.c,
                              l.in.c,         x.chosen.tc,     x.chosen.th, x.chosen.tw,
                              x.chosen.split, x.chosen.cycles, x.chosen.tk, x.chosen.cores};
      EXPECT_TRUE(check_imported_layer(l, p, im).ok()) << n.name << " layer " << i;
      EXPECT_LE(x.chosen.l1, p.l1_budget());
    }
  }
  EXPECT_GT(layers, 150);
  EXPECT_EQ(same, layers);
}

TEST(SolveAgreement, EveryExampleLayerOnGap8) {
  agree_on(gap8);
}
TEST(SolveAgreement, EveryExampleLayerOnATinyL1) {
  agree_on(tiny_l1);
}

// A layer whose tiles cannot fit: the message names the layer and the smallest L1 budget that
// works, and that budget does work while one byte less does not.
TEST(SolveErrors, UnsatisfiableLayerNamesTheSmallestBudget) {
  using too_big = network<input(8, 8, 2048), conv2d(16, 3).same().named("big")>;
  const problem_set s = read_problems(exported(layers_of<too_big>(), gap8));
  const network_solution sol = solve_network(s, {});
  ASSERT_FALSE(sol.ok);
  const layer_solution& x = sol.layers[1];
  ASSERT_EQ(x.status, layer_status::unsat);
  EXPECT_NE(x.message.find("layer 1 'big'"), std::string::npos) << x.message;
  const std::string need =
      "smallest L1 budget that would work is " + std::to_string(x.l1_needed) + " bytes";
  EXPECT_NE(x.message.find(need), std::string::npos) << x.message;
  // Independently: even on one core, the im2col buffer alone is 2 pixels x 2048 x 9 bytes.
  EXPECT_GT(x.l1_needed, 2 * 2048 * 9);
  const platform stackless = gap8.with_stacks(0, 0);
  const problem_set fits =
      read_problems(exported(layers_of<too_big>(), stackless.with_l1(x.l1_needed)));
  EXPECT_EQ(solve_layer(fits.layers[1], {}).status, layer_status::optimal);
  const problem_set short_by_one =
      read_problems(exported(layers_of<too_big>(), stackless.with_l1(x.l1_needed - 1)));
  EXPECT_EQ(solve_layer(short_by_one.layers[1], {}).status, layer_status::unsat);
}

TEST(SolveErrors, MalformedInputIsRejected) {
  EXPECT_THROW((void)read_problems(""), json_error);
  EXPECT_THROW((void)read_problems("{\"format\": "), json_error);
  EXPECT_THROW((void)read_problems("{\"format\": \"ctile-problems/2\"} trailing"), json_error);
  EXPECT_THROW((void)read_problems("[1, 2,]"), json_error);
  EXPECT_THROW((void)read_problems("{\"format\": \"other/9\"}"), problem_error);
  const std::string good = exported(layers_of<examples::cifar10_cnn>(), gap8);
  EXPECT_NO_THROW((void)read_problems(good));
  // A missing member, a wrong type, a truncated file, a value out of range.
  std::string missing = good;
  missing.replace(missing.find("\"l1_budget\""), 11, "\"l1_budgex\"");
  EXPECT_THROW((void)read_problems(missing), json_error);
  try {
    (void)read_problems(missing);
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("missing member \"l1_budget\""), std::string::npos)
        << e.what();
  }
  std::string wrong = good;
  wrong.replace(wrong.find("\"H\": 32"), 7, "\"H\": \"32\"");
  EXPECT_THROW((void)read_problems(wrong), json_error);
  EXPECT_THROW((void)read_problems(good.substr(0, good.size() / 2)), json_error);
  std::string zero = good;
  zero.replace(zero.find("\"W\": 32"), 7, "\"W\": 0 ");
  EXPECT_THROW((void)read_problems(zero), problem_error);
  // A spatial tile's term below the channel tile's: the search's bounds would not hold.
  std::string cheap = good;
  const std::size_t at = cheap.find("\"tile_overhead_spatial\": ") + 25;
  cheap.replace(at, cheap.find(',', at) - at, "0");
  EXPECT_THROW((void)read_problems(cheap), problem_error);
}

// The header names the type, the platform and every layer's tiles and objective.
TEST(SolveHeader, HeaderCarriesEveryLayer) {
  const problem_set s = read_problems(exported(layers_of<examples::cifar10_cnn>(), gap8));
  const network_solution sol = solve_network(s, {});
  ASSERT_TRUE(sol.ok);
  const std::string h = plan_header(s, sol, "x.json");
  EXPECT_NE(h.find("struct imported_plan<net_type, ctile::gap8, objective::model>"),
            std::string::npos);
  EXPECT_NE(h.find("static constexpr std::size_t size = 8;"), std::string::npos);
  for (std::size_t i = 1; i < sol.layers.size(); ++i)
    EXPECT_NE(h.find(std::to_string(sol.layers[i].chosen.cycles) + ", " +
                     std::to_string(sol.layers[i].chosen.tk) + ", " +
                     std::to_string(sol.layers[i].chosen.cores) + "}, // " + std::to_string(i)),
              std::string::npos)
        << h;
  network_solution bad = sol;
  bad.ok = false;
  EXPECT_THROW((void)plan_header(s, bad, "x.json"), problem_error);
}

// The re-check catches each kind of tampering (the compile-fail tests show the messages).
TEST(SolveRecheck, TamperedTilingsAreCaught) {
  const layer& l = examples::cifar10_cnn::layers[2];
  const tiling_problem P = make_problem(l, gap8);
  const layer_plan lp = plan_layer(l, gap8);
  const imported_layer good{l.kind,    l.out.h,   l.out.w,   l.out.c,  l.in.c,
                            lp.tile_c, lp.tile_h, lp.tile_w, lp.split, lp.score};
  EXPECT_TRUE(check_imported_layer(l, gap8, good).ok());
  auto with = [&](auto f) {
    imported_layer x = good;
    f(x);
    return check_imported_layer(l, gap8, x).violated;
  };
  using C = imported_constraint;
  EXPECT_EQ(with([](auto& x) { x.out_c += 1; }), C::output_channels_changed);
  EXPECT_EQ(with([](auto& x) { x.tile_c = 0; }), C::channel_tile_out_of_range);
  EXPECT_EQ(with([&](auto& x) { x.tile_h = P.H + 1; }), C::row_tile_out_of_range);
  EXPECT_EQ(with([](auto& x) { x.split = {split_kind::grid, 3, 3}; }), C::split_not_supported);
  EXPECT_EQ(with([&](auto& x) { x.tile_c = P.C, x.tile_h = P.H, x.tile_w = P.W; }),
            l1_bytes_for(P, P.C, P.H, P.W) > P.l1_budget ? C::tile_buffers_exceed_l1 : C::none);
  EXPECT_EQ(with([](auto& x) { x.cycles -= 1; }), C::objective_value_differs);
  EXPECT_EQ(with([](auto& x) { x.tile_k = 8; }), C::k_tile_out_of_range);  // not a linear layer
  EXPECT_EQ(with([](auto& x) { x.cores = 8; }), C::cores_out_of_range);    // not fewer cores
  // The classifier with its reduction cut on an 8 KiB L1.
  const platform small = gap8.with_stacks(0, 0).with_l1(8 * 1024);
  const layer& fc = examples::cifar10_cnn::layers[7];
  const layer_plan fp = plan_layer(fc, small);
  ASSERT_GT(fp.n_k, 1);
  const imported_layer cut{fc.kind, fc.out.h, fc.out.w, fc.out.c, fc.in.c,   fp.tile_c,
                           1,       1,        fp.split, fp.score, fp.tile_k, 0};
  EXPECT_TRUE(check_imported_layer(fc, small, cut).ok());
  auto fc_with = [&](auto f) {
    imported_layer x = cut;
    f(x);
    return check_imported_layer(fc, small, x).violated;
  };
  EXPECT_EQ(fc_with([](auto& x) { x.tile_k -= 2; }), C::k_tile_not_whole_words);
  EXPECT_EQ(fc_with([](auto& x) { x.tile_k = 8 * 8 * 64; }), C::k_tile_out_of_range);
  EXPECT_EQ(fc_with([](auto& x) { x.tile_k = 0; }), C::tile_buffers_exceed_l1);
  EXPECT_EQ(fc_with([](auto& x) { x.cores = 2; }), C::cores_out_of_range);  // no per-core scratch
}

// (a) A classifier whose weight rows do not fit L1 whole: Z3 chooses among every balanced K
// tile (the compiler's search tries the few largest), never worse than the compiler's plan,
// and its choice passes the compile-time re-check.
TEST(SolveLarge, ClassifierWithTheReductionCut) {
  using fc =
      network<input(1, 1, 4096), linear(1000).with_bias().bn().requantized(1, 4096).named("fc")>;
  const layer& l = fc::layers[1];
  for (int bytes : {4096, 8192, 16384}) {
    const platform p = gap8.with_stacks(0, 0).with_l1(bytes);
    const problem_set s = read_problems(exported(layers_of<fc>(), p));
    const network_solution sol = solve_network(s, {});
    ASSERT_TRUE(sol.ok) << bytes;
    const candidate& c = sol.layers[1].chosen;
    const layer_plan lp = plan_layer(l, p);
    ASSERT_TRUE(lp.fits);
    EXPECT_GT(c.tk, 0) << bytes;
    EXPECT_EQ(c.tk % 4, 0);
    EXPECT_LE(c.l1, p.l1_budget());
    EXPECT_LE(c.cycles, lp.l1_cycles) << bytes;
    const imported_layer im{l.kind, l.out.h, l.out.w, l.out.c,  l.in.c, c.tc,
                            c.th,   c.tw,    c.split, c.cycles, c.tk,   c.cores};
    EXPECT_TRUE(check_imported_layer(l, p, im).ok()) << bytes;
  }
}

// A layer whose im2col buffers do not fit on every core: both solvers run it on fewer cores,
// with the same plan, which passes the re-check.
TEST(SolveLarge, FewerCoresWhenScratchDoesNotFit) {
  using big = network<input(8, 8, 512), conv2d(16, 3).same().named("big")>;
  const layer& l = big::layers[1];
  const problem_set s = read_problems(exported(layers_of<big>(), gap8));
  const network_solution sol = solve_network(s, {});
  ASSERT_TRUE(sol.ok);
  const candidate& c = sol.layers[1].chosen;
  const layer_plan lp = plan_layer(l, gap8);
  ASSERT_TRUE(lp.fits);
  EXPECT_GT(c.cores, 0);
  EXPECT_EQ(c.cores, lp.cores);
  EXPECT_EQ(c.cycles, lp.l1_cycles);
  const imported_layer im{l.kind, l.out.h, l.out.w, l.out.c,  l.in.c, c.tc,
                          c.th,   c.tw,    c.split, c.cycles, c.tk,   c.cores};
  EXPECT_TRUE(check_imported_layer(l, gap8, im).ok());
}

// (a) Layers too large for the compiler's budget: a 224x224 first layer and a 1x1 conv with
// 1024 channels on 28x28; Z3 solves them (the run-time search confirms the optimum).
TEST(SolveLarge, BigEarlyLayers) {
  using big = network<input(224, 224, 3), conv2d(32, 3).strides(2).padded(1).bn().named("c1"),
                      pointwise(1024).bn().named("pw")>;
  const problem_set s = read_problems(exported(layers_of<big>(), gap8));
  const network_solution sol = solve_network(s, {});
  ASSERT_TRUE(sol.ok);
  for (std::size_t i = 1; i < big::size; ++i) {
    const tiling_choice c = search_model(make_problem(big::layers[i], gap8));
    EXPECT_EQ(sol.layers[i].chosen.cycles, c.score) << i;
  }
}

// (b) The joint problem. Its solutions pass the compiler's own check (check_joint runs
// check_imported_layer and finish_network_imported, the code plan_of runs on the header), and
// the objective it reports is what that check computes; with a small L2 some outputs must go
// to L3; without L3 the optimum is the sum of the per-layer optima.
TEST(SolveJoint, MobileNetOnGap8PassesTheCompilersCheck) {
  const problem_set s = read_problems(exported(layers_of<examples::mobilenet_v1_100_128>(), gap8));
  solve_options o;
  o.timeout_ms = 120000;  // a few seconds; a loaded machine must not fail the test
  const joint_solution j = solve_joint(s, o);
  ASSERT_TRUE(j.ok) << j.error;
  const network_summary v = check_joint(s, j);
  ASSERT_TRUE(v.ok()) << imported_constraint_text(v.violated) << " at layer " << v.layer;
  EXPECT_EQ(v.cycles, j.cycles);
  EXPECT_EQ(v.l2_peak, j.l2_peak);
  EXPECT_LE(j.l2_peak, gap8.l2_budget());
  // MobileNet's 4.2 MB of weights cannot stay in 416 KiB of L2: most stream from L3.
  int streamed = 0;
  for (const auto& l : j.layers) streamed += l.place.w;
  EXPECT_GT(streamed, 10);
  std::int64_t sum = 0;
  for (const auto& l : j.layers) sum += l.l1_cycles + l.l3_cycles;
  EXPECT_EQ(sum, j.cycles);
}

// The tight-L2 cases below plan in DORY's L1 budget (gap8_dory): the larger tiles of gap8's
// budget need more L2 for the classifier's weights (45,136 B at least) than 40 KiB.
TEST(SolveJoint, SmallL2PutsOutputsInL3) {
  const platform small = gap8_dory.with_l2(72 * 1024).with_code_reserve(0);
  const problem_set s = read_problems(exported(layers_of<examples::cifar10_cnn>(), small));
  const joint_solution j = solve_joint(s, {});
  ASSERT_TRUE(j.ok) << j.error;
  EXPECT_TRUE(check_joint(s, j).ok());
  EXPECT_LE(j.l2_peak, small.l2_budget());
  bool y = false;
  for (const auto& l : j.layers) y = y || l.place.y;
  EXPECT_TRUE(y);
}

// Where the greedy cascade fails (40 KiB of L2 for the CIFAR-10 network), the joint problem
// has a plan; and it is at least as good as the cascade at a budget where both fit.
TEST(SolveJoint, FitsWhereTheGreedyCascadeFails) {
  const platform p40 = gap8_dory.with_l2(40 * 1024).with_code_reserve(0);
  EXPECT_FALSE(plan_network(examples::cifar10_cnn::layers, p40).summary.ok());
  const problem_set s = read_problems(exported(layers_of<examples::cifar10_cnn>(), p40));
  const joint_solution j = solve_joint(s, {});
  ASSERT_TRUE(j.ok) << j.error;
  EXPECT_TRUE(check_joint(s, j).ok());
  const platform p72 = gap8_dory.with_l2(72 * 1024).with_code_reserve(0);
  const auto greedy = plan_network(examples::cifar10_cnn::layers, p72);
  ASSERT_TRUE(greedy.summary.ok());
  const joint_solution j72 =
      solve_joint(read_problems(exported(layers_of<examples::cifar10_cnn>(), p72)), {});
  ASSERT_TRUE(j72.ok) << j72.error;
  EXPECT_LE(j72.cycles, greedy.summary.cycles);
  EXPECT_FALSE(j72.from_greedy);  // here the model's own optimum lays out within L2
}

// An edited decision fails the same check the compiler runs, naming the constraint.
TEST(SolveJoint, EditedDecisionsFailTheCheck) {
  const platform small = gap8_dory.with_l2(72 * 1024).with_code_reserve(0);
  const problem_set s = read_problems(exported(layers_of<examples::cifar10_cnn>(), small));
  joint_solution j = solve_joint(s, {});
  ASSERT_TRUE(j.ok) << j.error;
  joint_solution all_l2 = j;
  for (auto& l : all_l2.layers) {
    l.place = {false, s.layers[static_cast<std::size_t>(l.index)].out.c, false,
               s.layers[static_cast<std::size_t>(l.index)].out.h, false};
  }
  const network_summary v = check_joint(s, all_l2);
  EXPECT_EQ(v.problem, plan_fault::imported);
  EXPECT_EQ(v.violated, imported_constraint::layer_buffers_exceed_l2);
  EXPECT_GT(v.needs, small.l2_budget());
  EXPECT_EQ(v.budget, small.l2_budget());
  // A band that is not a whole number of L1 row tiles.
  for (auto& l : j.layers)
    if (l.place.y && l.chosen.th > 1 && l.chosen.th < s.layers[l.index].out.h) {
      joint_solution odd = j;
      odd.layers[static_cast<std::size_t>(l.index)].place.y_stripe_h = l.chosen.th + 1;
      const network_summary w = check_joint(s, odd);
      EXPECT_EQ(w.violated, imported_constraint::row_band_not_whole_l1_tiles);
      EXPECT_EQ(w.layer, l.index);
      break;
    }
}

// Streaming forced by the platform reaches the joint problem through the export: every layer's
// weights go to L3, and a resident layer edited in fails the compiler's check, named.
TEST(SolveJoint, ForcedStreamingLeavesNoWeightResident) {
  const platform f = gap8.with_streamed_weights();
  const problem_set s = read_problems(exported(layers_of<examples::cifar10_cnn>(), f));
  ASSERT_TRUE(s.target.stream_weights);
  const joint_solution j = solve_joint(s, {});
  ASSERT_TRUE(j.ok) << j.error;
  EXPECT_TRUE(check_joint(s, j).ok());
  int streamed = 0;
  for (const auto& l : j.layers) {
    if (examples::cifar10_cnn::layers[static_cast<std::size_t>(l.index)].has_weights()) {
      EXPECT_TRUE(l.place.w) << l.index;
      ++streamed;
    }
  }
  EXPECT_EQ(streamed, 5);
  joint_solution edited = j;
  auto& conv1 = edited.layers[1].place;
  conv1 = {false, examples::cifar10_cnn::layers[1].out.c, conv1.y, conv1.y_stripe_h, false};
  edited.layers[0].place.prefetch_next = false;
  const network_summary v = check_joint(s, edited);
  EXPECT_EQ(v.violated, imported_constraint::weights_resident_while_streaming_forced);
  EXPECT_EQ(v.layer, 1);
}

TEST(SolveJoint, WithoutL3ItIsTheSumOfLayerOptima) {
  const platform no_l3 = gap8.with_l3(0);
  const problem_set s = read_problems(exported(layers_of<examples::cifar10_cnn>(), no_l3));
  const joint_solution j = solve_joint(s, {});
  ASSERT_TRUE(j.ok) << j.error;
  std::int64_t sum = 0;
  for (std::size_t i = 1; i < examples::cifar10_cnn::size; ++i)
    sum += plan_layer(examples::cifar10_cnn::layers[i], no_l3).score;
  EXPECT_EQ(j.cycles, sum);
}

TEST(SolveJoint, TooSmallL2NamesTheLayerAndTheSmallestBudget) {
  const platform tiny = gap8.with_l2(8 * 1024).with_code_reserve(0);
  const problem_set s = read_problems(exported(layers_of<examples::cifar10_cnn>(), tiny));
  const joint_solution j = solve_joint(s, {});
  ASSERT_FALSE(j.ok);
  EXPECT_TRUE(j.layers.empty());  // no partial plan
  EXPECT_NE(j.error.find("smallest L2 budget that would work is "), std::string::npos) << j.error;
  ASSERT_GE(j.tightest_layer, 1);
  const std::string name = s.layers[static_cast<std::size_t>(j.tightest_layer)].name;
  EXPECT_NE(j.error.find("layer " + std::to_string(j.tightest_layer) + " '" + name + "'"),
            std::string::npos)
      << j.error;
  // That budget works.
  const std::int64_t need = j.l2_needed;
  ASSERT_GT(need, 8 * 1024);
  const problem_set s2 = read_problems(
      exported(layers_of<examples::cifar10_cnn>(), tiny.with_l2(static_cast<int>(need))));
  EXPECT_TRUE(solve_joint(s2, {}).ok);
}

// A timeout is reported as such (the fallback is the greedy cascade), never as a plan.
TEST(SolveJoint, TimeoutIsReported) {
  const problem_set s = read_problems(exported(layers_of<examples::mobilenet_v1_100_128>(), gap8));
  solve_options o;
  o.timeout_ms = 1;
  const joint_solution j = solve_joint(s, o);
  if (j.ok) GTEST_SKIP() << "solved within 1 ms";
  EXPECT_TRUE(j.timed_out);
  EXPECT_NE(j.error.find("gave no answer within 1 ms"), std::string::npos) << j.error;
}

// Dilated convolutions and padding as large as the window or larger (1-D and 2-D, conv and
// depthwise) solved by Z3: the same plan as the constexpr search, accepted by the compile-time
// re-check, never a tile wholly in padding, and bit-exact with the reference when the network
// runs on Z3's tilings (on GAP-8 and on an L1 small enough to cut rows and columns).
TEST(SolveDilation, DilatedAndOverPaddedLayersRunBitExactOnZ3Plans) {
  std::mt19937 rng(77);
  const auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int tiled = 0;
  for (int n = 0; n < 10; ++n) {
    const bool one_d = n % 2 == 0;
    const int kh = one_d ? 1 : uni(1, 3), kw = uni(2, one_d ? 5 : 3);
    const int dh = one_d ? 1 : uni(1, 3), dw = one_d ? 1 << uni(1, 3) : uni(1, 3);
    const int ew = (kw - 1) * dw + 1, eh = (kh - 1) * dh + 1;
    const int c = uni(2, 16);
    std::vector<layer> ls{input(one_d ? 1 : uni(eh, eh + 10), uni(ew, ew + 40), c),
                          conv2d(uni(4, 24), kh, kw)
                              .dilated(dh, dw)
                              .padded(one_d ? 0 : uni(0, eh + 1), one_d ? 0 : uni(0, eh + 1),
                                      uni(0, ew + 1), uni(0, 2))
                              .strides(1, uni(1, 2))
                              .with_bias()
                              .requantized(1, 1 << 9)
                              .named("c"),
                          depthwise(kh, kw)
                              .dilated(dh, dw)
                              .padded(one_d ? 0 : eh, 0, ew, ew)
                              .bn()
                              .requantized(1, 64)};
    if (!infer(ls).ok()) continue;
    // Weights, parameters and an input.
    std::vector<std::vector<std::int8_t>> w(ls.size());
    std::vector<std::vector<std::int32_t>> b(ls.size()), k(ls.size()), lam(ls.size());
    std::vector<layer_params> prm(ls.size());
    for (std::size_t i = 1; i < ls.size(); ++i) {
      w[i].resize(static_cast<std::size_t>(ls[i].weight_count()));
      for (auto& v : w[i]) v = static_cast<std::int8_t>(uni(-30, 30));
      const auto ch = static_cast<std::size_t>(ls[i].channel_params());
      if (ls[i].bias) b[i].assign(ch, 0);
      for (auto& v : b[i]) v = uni(-2000, 2000);
      if (ls[i].batchnorm) k[i].assign(ch, 0), lam[i].assign(ch, 0);
      for (auto& v : k[i]) v = uni(1, 3);
      for (auto& v : lam[i]) v = uni(-1000, 3000);
      prm[i] = {w[i], b[i], k[i], lam[i]};
    }
    std::vector<std::uint8_t> x(static_cast<std::size_t>(ls[0].out.elements()));
    for (auto& v : x) v = static_cast<std::uint8_t>(uni(0, 255));
    const auto expected = reference::run(ls, prm, std::span<const std::uint8_t>(x));
    for (const platform& p : {gap8, gap8.with_stacks(0, 0).with_l1(2048)}) {
      SCOPED_TRACE(testing::Message() << "case " << n << " on " << p.l1_budget() << " B of L1");
      const problem_set s = read_problems(exported(ls, p));
      const network_solution sol = solve_network(s, {});
      ASSERT_TRUE(sol.ok);
      std::vector<layer_plan> plans(ls.size());
      plans[0] = plan_layer(ls[0], p);
      for (std::size_t i = 1; i < ls.size(); ++i) {
        const layer& l = ls[i];
        const layer_solution& z = sol.layers[i];
        ASSERT_EQ(z.status, layer_status::optimal) << "layer " << i;
        const layer_plan lp = plan_layer(l, p, objective::model);
        EXPECT_EQ(z.chosen.cycles, lp.score) << "layer " << i;
        EXPECT_EQ(z.chosen.th, lp.tile_h) << "layer " << i;
        EXPECT_EQ(z.chosen.tw, lp.tile_w) << "layer " << i;
        const imported_layer im{l.kind,         l.out.h,         l.out.w,     l.out.c,
                                l.in.c,         z.chosen.tc,     z.chosen.th, z.chosen.tw,
                                z.chosen.split, z.chosen.cycles, z.chosen.tk, z.chosen.cores};
        EXPECT_TRUE(check_imported_layer(l, p, im).ok()) << "layer " << i;
        const tiling_problem P = make_problem(l, p);
        EXPECT_TRUE(rows_read_input(P, z.chosen.th) && cols_read_input(P, z.chosen.tw));
        const tiling_problem Q = z.chosen.cores != 0 ? on_fewer_cores(P, z.chosen.cores) : P;
        plans[i] =
            make_layer_plan(Q, z.chosen.tc, z.chosen.th, z.chosen.tw, z.chosen.split, z.chosen.tk);
        tiled += plans[i].n_h > 1 || plans[i].n_w > 1;
      }
      std::vector<layer_l2> l2s(ls.size());
      const network_summary sum = finish_network(ls, p, plans, l2s);
      ASSERT_TRUE(sum.ok());
      int l1_bytes = 4;
      for (const auto& lp : plans) l1_bytes = std::max(l1_bytes, lp.l1.total);
      std::vector<kernels::requant_plan> quant(ls.size());
      for (std::size_t i = 0; i < ls.size(); ++i) quant[i] = kernels::plan_for(ls[i], prm[i]);
      schedule::host_run_options o;
      o.cores = p.cores;
      o.mode = hal::completion::random;
      const auto r =
          schedule::run_on_host(schedule::plan_view{ls, plans, l2s}, l1_bytes, sum.l2_peak,
                                sum.l3_used, prm, std::span<const std::uint8_t>(x), quant, o);
      for (const auto& e : r.problems) ADD_FAILURE() << e;
      for (std::size_t i = 1; i < ls.size(); ++i) EXPECT_EQ(r.outputs[i], expected[i]) << i;
    }
  }
  EXPECT_GT(tiled, 5);
}

}  // namespace
