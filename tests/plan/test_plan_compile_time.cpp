// The reference networks plan inside GAP-8 at compile time: 64 KiB L1 (50,196 B for tiles),
// 512 KiB L2, 8 MiB HyperRAM, MobileNet's weights (most of them) in L3 and CIFAR-10's resident in
// L2 (or in L3 when streaming is forced), every layer within budget; and the compile-time plan
// equals the run-time plan of the same code.
#include <gtest/gtest.h>

#include <ctile/platform/pulp_open.hpp>
#include <memory>
#include <utility>
#include <vector>

#include "networks.hpp"

namespace {

using namespace ctile;
using mnv1 = examples::mobilenet_v1_100_128;
using cifar = examples::cifar10_cnn;

constexpr const auto& mnv1_plan = plan_of<mnv1, gap8>;
constexpr const auto& cifar_plan = plan_of<cifar, gap8>;

static_assert(mnv1_plan.summary.ok());
static_assert(cifar_plan.summary.ok());
static_assert(mnv1_plan.summary.weights_in_l3);
static_assert(mnv1_plan.summary.weights_streamed > 4000000);
static_assert(!cifar_plan.summary.weights_in_l3 && cifar_plan.summary.l3_used == 0);
static_assert(plan_of<cifar, gap8.with_streamed_weights()>.summary.weights_in_l3);
static_assert(plan_of<cifar, gap8.with_streamed_weights()>.summary.weights_resident == 0);
static_assert(mnv1_plan.summary.l2_peak <= gap8.l2_budget());

// A layer plan is a structural value: usable as a template argument by the runtime.
template <layer_plan P>
constexpr int tiles_of = P.n_h* P.n_w* P.n_c;
static_assert(tiles_of<cifar_plan.layers[1]> == cifar_plan.layers[1].tiles());

TEST(PlanCompileTime, EveryLayerWithinBudget) {
  for (std::size_t i = 1; i < mnv1::size; ++i) {
    const auto& q = mnv1_plan.layers[i];
    EXPECT_TRUE(q.fits);
    EXPECT_LE(q.l1.total, 50196);
    // Streamed weights say why: with them resident, some step would exceed L2.
    if (mnv1::layers[i].has_weights() && q.l3.w) {
      EXPECT_EQ(mnv1_plan.l2[i].w_why, weight_reason::l2_full) << i;
      EXPECT_GT(mnv1_plan.l2[i].w_needs, gap8.l2_budget()) << i;
    }
  }
  for (std::size_t i = 1; i < cifar::size; ++i) {
    EXPECT_LE(cifar_plan.layers[i].l1.total, 50196);
  }
}

/// MobileNet-v1 1.0-128 planned at run time on `p` equals its compile-time plan `c`: every
/// layer plan, L2 slot and weight placement, the cycles and the arena's peak.
template <class Plan>
void expect_run_time_plan_equal(const platform& p, const Plan& c) {
  const auto a = test::plan_at_run_time(test::layers_of<mnv1>(), p, objective::model);
  ASSERT_EQ(a.plans.size(), mnv1::size);
  for (std::size_t i = 0; i < mnv1::size; ++i) {
    EXPECT_EQ(a.plans[i], c.layers[i]) << i;
    EXPECT_EQ(a.l2[i].x, c.l2[i].x) << i;
    EXPECT_EQ(a.l2[i].y, c.l2[i].y) << i;
    EXPECT_EQ(a.l2[i].w, c.l2[i].w) << i;
    EXPECT_EQ(a.l2[i].w_why, c.l2[i].w_why) << i;
  }
  EXPECT_EQ(a.summary.cycles, c.summary.cycles);
  EXPECT_EQ(a.summary.l2_peak, c.summary.l2_peak);
}

TEST(PlanCompileTime, EqualsTheRunTimePlan) {
  expect_run_time_plan_equal(gap8, mnv1_plan);
}

// MobileNet-v1 1.0-128 on pulp-open with the L2 its cluster image keeps for code: most of its
// activations stream through L3 by row stripes, for which the cascade re-plans many layers
// with thinner row tiles. At compile time each re-plan is a constant of its own
// (plan_detail::finish_stage), at run time a search inside the finishing: the same plan.
inline constexpr platform pulp_small_l2 = pulp_open.with_code_reserve(425984);
constexpr const auto& striped_plan = plan_of<mnv1, pulp_small_l2>;

TEST(PlanCompileTime, ReplansMadeAheadEqualTheRunTimePlan) {
  static_assert(striped_plan.summary.ok());
  int replanned = 0;
  for (std::size_t i = 0; i < mnv1::size; ++i)
    if (striped_plan.layers[i].max_tile_h > 0) ++replanned;
  EXPECT_GE(replanned, 10);
  expect_run_time_plan_equal(pulp_small_l2, striped_plan);
}

// The same protocol at run time: finishing with a table of re-plans made ahead asks for the
// first one it lacks (plan_fault::replan: the layer and its row-tile cap), asks nothing twice,
// and once every asked re-plan is in the table gives the plan finished without a table; a
// full table makes the finishing search where it must (the same plan again).
TEST(PlanCompileTime, ReplanProtocolAtRunTime) {
  const auto whole =
      test::plan_at_run_time(test::layers_of<mnv1>(), pulp_small_l2, objective::model);
  ASSERT_TRUE(whole.summary.ok());
  std::vector<layer_plan> first(mnv1::size);
  plan_layers(whole.layers, pulp_small_l2, objective::model, first);
  auto finish = [&](const replan_table& t, std::vector<layer_l2>& l2) {
    std::vector<layer_plan> plans = first;
    const network_summary s = finish_network(whole.layers, pulp_small_l2, plans, l2, &t);
    return std::pair{s, plans};
  };
  auto table = std::make_unique<replan_table>();
  std::vector<layer_l2> l2(mnv1::size);
  int asked = 0;
  for (;;) {
    const auto [s, plans] = finish(*table, l2);
    if (s.problem != plan_fault::replan) {
      ASSERT_TRUE(s.ok());
      EXPECT_EQ(s.cycles, whole.summary.cycles);
      EXPECT_EQ(s.l2_peak, whole.summary.l2_peak);
      for (std::size_t i = 0; i < mnv1::size; ++i) EXPECT_EQ(plans[i], whole.plans[i]) << i;
      break;
    }
    ASSERT_GE(s.layer, 1);
    ASSERT_GE(s.needs, 1);
    const tiling_problem q = capped_problem(whole.layers[static_cast<std::size_t>(s.layer)],
                                            pulp_small_l2, static_cast<int>(s.needs));
    ASSERT_EQ(table->find(q), nullptr) << "asked twice: layer " << s.layer;
    ASSERT_LT(table->n, replan_table::capacity);
    table->problem[table->n] = q;
    table->plan[table->n] = plan_problem(q, objective::model);
    ++table->n;
    ++asked;
  }
  EXPECT_GE(asked, 10);
  // Full of other problems: every re-plan searched in place.
  auto full = std::make_unique<replan_table>();
  full->n = replan_table::capacity;
  const auto [s, plans] = finish(*full, l2);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.cycles, whole.summary.cycles);
  for (std::size_t i = 0; i < mnv1::size; ++i) EXPECT_EQ(plans[i], whole.plans[i]) << i;
}

}  // namespace
