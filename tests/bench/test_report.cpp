// bench/network's split of the modeled cycles: for every layer of the example networks the
// parts are non-negative and add up to the planner's own figure, the compute part is the
// kernel cycles of the plan's tiles, and DORY's objective, evaluated under the same model,
// is never faster than the model's own choice.
#include <gtest/gtest.h>

#include <ctile/platform/gap8.hpp>
#include <memory>

#include "network/report.hpp"
#include "networks/cifar10_cnn.hpp"
#include "networks/mobilenet_v1.hpp"
#include "networks/mobilenet_v2.hpp"
#include "networks/residual.hpp"

namespace {

using namespace ctile;

template <class Net>
void check_split(const platform& p) {
  const auto np = std::make_unique<network_plan<Net::size>>(plan_network(Net::layers, p));
  ASSERT_TRUE(np->summary.ok());
  std::int64_t sum = 0;
  for (std::size_t i = 1; i < Net::size; ++i) {
    const layer_plan& lp = np->layers[i];
    const bench::layer_time t = bench::time_of(Net::layers[i], lp, p);
    EXPECT_GT(t.compute, 0) << "layer " << i;
    EXPECT_GE(t.dma_stall, 0) << "layer " << i;
    EXPECT_GE(t.l3_stall, 0) << "layer " << i;
    EXPECT_EQ(t.overhead, lp.tiles() * cost::loop_tile_cycles(p, Net::layers[i].kind))
        << "layer " << i;
    EXPECT_EQ(t.total(), lp.cycles) << "layer " << i;
    // A single-tile plan's compute is the slowest core on the whole layer.
    if (lp.tiles() == 1) {
      const tiling_problem P = make_problem(Net::layers[i], p);
      EXPECT_EQ(t.compute, cost::tile_compute(P, lp.split, lp.tile_h, lp.tile_w, lp.tile_c));
    }
    sum += lp.cycles;
  }
  const auto tot = bench::totals(Net::layers, *np, p);
  EXPECT_EQ(tot.cycles, sum);
  EXPECT_EQ(tot.time.total(), sum);
  EXPECT_EQ(tot.macs, Net::total_macs());
}

TEST(BenchReport, SplitAddsUp) {
  check_split<examples::cifar10_cnn>(gap8);
  check_split<examples::resnet_small>(gap8);
  check_split<examples::mobilenet_v1_100_128>(gap8);
  check_split<examples::mobilenet_v2_035_128>(gap8);
  check_split<examples::mobilenet_v1_025_128>(gap8.with_stacks(0, 0).with_l1(22 * 1024));
}

TEST(BenchReport, DoryObjectiveIsNotFasterUnderTheModel) {
  using Net = examples::mobilenet_v1_100_128;
  const auto ours = std::make_unique<network_plan<Net::size>>(plan_network(Net::layers, gap8));
  const auto dory =
      std::make_unique<network_plan<Net::size>>(plan_network(Net::layers, gap8, objective::dory));
  for (std::size_t i = 1; i < Net::size; ++i)
    EXPECT_LE(ours->layers[i].l1_cycles, dory->layers[i].l1_cycles) << "layer " << i;
}

// The L2 bytes alive at a step never exceed the arena's peak.
TEST(BenchReport, LiveL2WithinThePeak) {
  using Net = examples::mobilenet_v2_100_128;
  const auto np = std::make_unique<network_plan<Net::size>>(plan_network(Net::layers, gap8));
  for (int i = 0; i < static_cast<int>(Net::size); ++i) {
    EXPECT_LE(bench::l2_live(*np, i), np->summary.l2_peak) << "step " << i;
    EXPECT_GT(bench::l2_live(*np, i), 0) << "step " << i;
  }
}

}  // namespace
