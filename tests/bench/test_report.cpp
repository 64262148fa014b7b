// bench/network's split of the modeled cycles: for every layer of the example networks the
// parts are non-negative and add up to the planner's own figure, the compute part is the
// kernel cycles of the plan's tiles, and DORY's objective, evaluated under the same model,
// is never faster than the model's own choice.
#include <gtest/gtest.h>

#include <ctile/platform/gap8.hpp>
#include <ctile/platform/host.hpp>
#include <ctile/platform/pulp_open.hpp>
#include <ctile/schedule/weight_layout.hpp>
#include <memory>
#include <span>

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
    // Output groups (a channel-major convolution's buffers of several channel tiles): one
    // command a group instead of one a channel tile.
    const int eb = Net::layers[i].output_bytes_per_element();
    const int tile = lp.tile_h * lp.tile_w * lp.tile_c * eb;
    const int group = lp.y_copies == 1 ? lp.n_c : lp.y_bytes / tile;
    const std::int64_t saved =
        Net::layers[i].kind == op::conv && group > 1 ? lp.n_c - (lp.n_c + group - 1) / group : 0;
    EXPECT_EQ(t.overhead,
              lp.tiles() * cost::loop_tile_cycles(p, Net::layers[i].kind, cost::kernel_code_bytes,
                                                  lp.spatial()) -
                  saved * cost::output_command_cycles)
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
  for (std::size_t i = 1; i < Net::size; ++i) {
    if (ours->layers[i].out_chw) {
      // The producer of a channel-major depthwise input is planned in whole-width tiles for
      // its reader (choose_channel_major), which may cost it a few cycles and save its reader
      // many: compared with the reader's cycles added.
      const int r = sole_depthwise_reader(std::span<const layer>(Net::layers), i);
      ASSERT_GT(r, 0) << "layer " << i;
      const auto j = static_cast<std::size_t>(r);
      EXPECT_LE(ours->layers[i].l1_cycles + ours->layers[j].l1_cycles,
                dory->layers[i].l1_cycles + dory->layers[j].l1_cycles)
          << "layers " << i << " and " << j;
      continue;
    }
    EXPECT_LE(ours->layers[i].l1_cycles, dory->layers[i].l1_cycles) << "layer " << i;
  }
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

// The cost model's loop terms on small cases computed by hand from the cluster figures
// (16-byte lines, +18 cycles a line from L2, +2 an L0 miss that hits the 4 KiB shared cache,
// +14 a data access to L2): a loop nest of 1,024 B whose per-tile path is 768 B (more than the
// 512 B L0), with and without a 3,584 B kernel between tiles. `code_cost.py --self-test`
// checks the simulator's caches on the same cases against the same figures (exact for
// line-aligned code).
TEST(CostModel, LoopTermsOnHandComputedCases) {
  const cost::loop_cost nest{.code_bytes = 1024, .tile_path_bytes = 768};
  for (const platform& p : {gap8, pulp_open}) {
    SCOPED_TRACE(p.name.c_str());
    // Cold: 64 lines from L2; warm: nothing.
    EXPECT_EQ(cost::loop_layer_cycles(p, nest), 64 * 18);
    EXPECT_EQ(cost::loop_layer_cycles(p, nest, true), 0);
    // Every tile refills the path's 48 lines into L0 from the shared cache.
    EXPECT_EQ(cost::loop_tile_cycles(p, nest, 0), cost::fork_barrier + 48 * 2);
    // A 3,584 B kernel pushes 1024 + 3584 - 4096 = 512 B (32 lines) of the path out of the
    // shared cache: those from L2, the other 16 from the shared cache.
    EXPECT_EQ(cost::loop_tile_cycles(p, nest, 3584), cost::fork_barrier + 32 * 18 + 16 * 2);
    // A kernel too large for anything of the path to stay: all 48 lines from L2.
    EXPECT_EQ(cost::loop_tile_cycles(p, nest, 8192), cost::fork_barrier + 48 * 18);
    // The nest stays cached for a next layer that runs it when it and the kernel fit 4 KiB.
    EXPECT_TRUE(cost::loop_stays_cached(p, nest, 3072));
    EXPECT_FALSE(cost::loop_stays_cached(p, nest, 3584));
  }
  EXPECT_FALSE(cost::loop_stays_cached(host, nest, 0));  // no cache: nothing stays
  // Ten table reads a tile and five a layer: +14 each where the tables are in L2 (GAP-8, and
  // pulp-open's cluster firmware), nothing where a firmware places them in L1.
  const cost::loop_cost reads{.layer_l2_reads = 5, .tile_l2_reads = 10};
  EXPECT_EQ(cost::loop_tile_cycles(gap8, reads, 0), cost::fork_barrier + 10 * 14);
  EXPECT_EQ(cost::loop_layer_cycles(gap8, reads), 5 * 14);
  EXPECT_EQ(cost::loop_layer_cycles(pulp_open, reads), 5 * 14);
  const platform in_l1 = pulp_open.with_tables_in_l1(true);
  EXPECT_EQ(cost::loop_tile_cycles(in_l1, reads, 0), cost::fork_barrier);
  EXPECT_EQ(cost::loop_layer_cycles(in_l1, reads), 0);
  // The host fetches and reads at no extra cost: the measured cycles and the fork only.
  const cost::loop_cost all{1024, 768, 5, 10, 300, 100, 40};
  EXPECT_EQ(cost::loop_tile_cycles(host, all, 3584), cost::fork_barrier + 100);
  EXPECT_EQ(cost::loop_layer_cycles(host, all), 300);
  // A spatial tile (a layer of more than one row or column tile) adds its own cycles.
  EXPECT_EQ(cost::loop_tile_cycles(host, all, 3584, true), cost::fork_barrier + 140);
  EXPECT_EQ(cost::loop_tile_cycles(gap8, nest, 0, true), cost::fork_barrier + 48 * 2);
  // The planner charges each tile the kind's term, the spatial one no less.
  for (op k : {op::conv, op::depthwise, op::linear, op::maxpool, op::avgpool, op::add}) {
    layer l = examples::cifar10_cnn::layers[1];
    l.kind = k;
    const tiling_problem P = make_problem(l, gap8);
    EXPECT_EQ(P.tile_overhead, cost::loop_tile_cycles(gap8, k));
    EXPECT_EQ(P.tile_overhead_spatial,
              cost::loop_tile_cycles(gap8, k, cost::kernel_code_bytes, true));
    EXPECT_GE(P.tile_overhead_spatial, P.tile_overhead);
  }
}

// A tiling's modeled cycles take the spatial per-tile term for each tile of a layer cut in more
// than one row or column tile, the channel term for one whose tiles are channel tiles only:
// raising either moves only the tilings it belongs to, by its tile count.
TEST(CostModel, SpatialTilesChargedTheirOwnTerm) {
  const layer l = examples::cifar10_cnn::layers[1];  // 32 x 32 x 32 outputs
  const tiling_problem P = make_problem(l, gap8);
  tiling_problem S = P, C = P;
  S.tile_overhead_spatial += 1000;
  C.tile_overhead += 1000;
  const core_split s = cost::default_split(P);
  const int c = P.C / 2;
  // 4 row tiles x 2 channel tiles, 2 column tiles x 2 channel tiles, 2 channel tiles only.
  EXPECT_EQ(cost::layer_cycles(S, c, P.H / 4, P.W, s),
            cost::layer_cycles(P, c, P.H / 4, P.W, s) + 8000);
  EXPECT_EQ(cost::layer_cycles(C, c, P.H / 4, P.W, s), cost::layer_cycles(P, c, P.H / 4, P.W, s));
  EXPECT_EQ(cost::layer_cycles(S, c, P.H, P.W / 2, s),
            cost::layer_cycles(P, c, P.H, P.W / 2, s) + 4000);
  EXPECT_EQ(cost::layer_cycles(S, c, P.H, P.W, s), cost::layer_cycles(P, c, P.H, P.W, s));
  EXPECT_EQ(cost::layer_cycles(C, c, P.H, P.W, s), cost::layer_cycles(P, c, P.H, P.W, s) + 2000);
}

// A channel tile's parameter commands: the model charges each per-channel parameter array
// (bias; kappa and lambda) as a command of its own exactly where the loop nests bring them
// apart from the weights (schedule::tile_data_merged: some channel tile's weights do not end
// on a word), for every channel tile count of a depthwise layer (9 bytes a channel), a
// standard convolution over 3 input channels (27), a 1x1 one (64) and a linear layer whose
// reduction (1,001 bytes) is cut in K tiles or not.
TEST(CostModel, ParameterCommandsFollowTheLoopsRule) {
  using L = layer;
  const L cases[] = {
      examples::mobilenet_v1_100_128::layers[2],  // depthwise 3x3, bn
      examples::cifar10_cnn::layers[1],           // conv 3x3 over 3 channels
      examples::mobilenet_v1_100_128::layers[3],  // pointwise over 32 channels
      network<input(1, 1, 1001), linear(37).with_bias().named("fc")>::layers[1],
  };
  int apart = 0, merged = 0;
  for (const L& l : cases) {
    const tiling_problem P = make_problem(l, gap8);
    const int arrays = (l.bias ? 1 : 0) + (l.batchnorm ? 2 : 0);
    ASSERT_GT(arrays, 0);
    const int K = P.weights_per_channel;
    for (int tc = 1; tc <= P.C && tc <= 48; ++tc) {
      for (int tk : {0, 500, 333}) {
        if (tk > 0 && !P.linear) continue;
        const layer_plan p = make_layer_plan(P, tc, 1, P.whole_rows ? P.W : 1,
                                             cost::default_split(P), tk > 0 ? tk : K);
        const std::int64_t charged = cost::params_apart_cycles(P, p);
        const bool together = schedule::tile_data_merged(l, p);
        EXPECT_EQ(charged, together ? 0 : arrays * cost::param_command_cycles)
            << l.name.text << " tc " << tc << " tk " << tk;
        (together ? merged : apart) += 1;
      }
    }
  }
  EXPECT_GT(apart, 20);
  EXPECT_GT(merged, 20);
}

}  // namespace
