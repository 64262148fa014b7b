// The cost model's terms for layers with a 16-bit operand (an unclipped sum whose proven range
// needs 9 to 16 bits): each layer kind is charged the wide kernels' rates (cost::wide_*), an
// 8-bit layer of the same geometry keeps the 8-bit kernel terms, and the L1 transfers count the
// bytes at the element width. Expected values are written out here from the documented
// formulas (cost_model.hpp, "Kernels of tiles with a 16-bit operand") and the platform's DMA
// figures, not computed by the model's functions.
#include <gtest/gtest.h>

#include <cstdint>
#include <ctile/ctile.hpp>
#include <ctile/plan/network_plan.hpp>
#include <ctile/plan/search.hpp>
#include <ctile/platform/gap8.hpp>
#include <string>
#include <vector>

namespace {

using namespace ctile;
namespace cost = ctile::cost;

/// `consumer` reading a 16-bit tensor: the unclipped sum of an h x w x c input with itself
/// (0..510, u16), then `consumer`. With `wide` false, `consumer` reads the 8-bit input.
layer after(bool wide, shape in, layer consumer) {
  std::vector<layer> ls{input(in.h, in.w, in.c)};
  if (wide) ls.push_back(add(0, 0).requantized(1, 1).unclipped().named("sum"));
  ls.push_back(consumer);
  EXPECT_TRUE(infer(ls).ok());
  return ls.back();
}

std::int64_t dma(std::int64_t bytes, std::int64_t cmds) {
  // cmds x latency + bytes at the cluster DMA's bandwidth, rounded up (platform.hpp).
  return cmds * gap8.dma_latency_cycles +
         (bytes * 1000 + gap8.dma_bytes_per_kcycle - 1) / gap8.dma_bytes_per_kcycle;
}

TEST(CostWide, TheLayersReadAndWriteWhatTheyShould) {
  const layer c = after(true, {6, 6, 4}, conv2d(8, 3).bn().requantized(1, 1 << 14));
  EXPECT_EQ(c.input_bytes_per_element(), 2);
  EXPECT_EQ(c.output_bytes_per_element(), 1);
  const layer s = after(false, {6, 6, 4}, add(0, 0).requantized(1, 1).unclipped());
  EXPECT_EQ(s.input_bytes_max(), 1);
  EXPECT_EQ(s.output_bytes_per_element(), 2);
}

TEST(CostWide, ConvAndPointwiseArePerOutput) {
  // 3x3 conv on a 16-bit 6 x 6 x 4 input: per output 36 MACs, 3 kernel rows (each one sum
  // over its 3 taps), one requantization.
  const tiling_problem P =
      make_problem(after(true, {6, 6, 4}, conv2d(8, 3).bn().requantized(1, 1 << 14)), gap8);
  const std::int64_t q =
      36 * cost::wide_conv_per_mac + 3 * cost::wide_conv_per_row + cost::wide_conv_per_output;
  EXPECT_EQ(P.terms.q, q);
  EXPECT_EQ(P.terms.p4, 0);
  EXPECT_EQ(P.terms.u4, 0);
  EXPECT_EQ(P.terms.s4, 0);
  EXPECT_EQ(P.terms.q4, 0);
  // A core's 2 x 3 x 5 block: 30 outputs and one call.
  EXPECT_EQ(cost::core_cycles(P, 2, 3, 5), 30 * q + cost::kernel_call);
  // 1 x 5 x 3 (odd width: no pair or single terms either).
  EXPECT_EQ(cost::core_cycles(P, 1, 5, 3), 15 * q + cost::kernel_call);
  // The whole layer's 4 x 4 x 8 outputs over 8 cores.
  EXPECT_EQ(cost::compute_lower_bound(P), 128 * q / 8);

  // Pointwise with 16 input channels: 16 MACs and one row per output.
  const tiling_problem W =
      make_problem(after(true, {4, 4, 16}, pointwise(8).bn().requantized(1, 1 << 12)), gap8);
  EXPECT_EQ(W.terms.q,
            16 * cost::wide_conv_per_mac + cost::wide_conv_per_row + cost::wide_conv_per_output);
  EXPECT_EQ(W.terms.u4, 0);
  // A horizontally dilated 3x3 conv: its taps are not consecutive, each one a sum of its own.
  const tiling_problem D = make_problem(
      after(true, {9, 9, 4}, conv2d(8, 3).dilated(1, 2).bn().requantized(1, 1 << 14)), gap8);
  EXPECT_EQ(D.terms.q, 36 * cost::wide_conv_per_mac + 9 * cost::wide_conv_per_row +
                           cost::wide_conv_per_output);
}

TEST(CostWide, TheEightBitLayerKeepsTheSimdTerms) {
  const tiling_problem P =
      make_problem(after(false, {6, 6, 4}, conv2d(8, 3).bn().requantized(1, 1 << 14)), gap8);
  EXPECT_EQ(P.terms.q, cost::requant_per_output);
  // 4 x 2 block per 4 bytes of the 36-byte reduction, plus its set-up.
  EXPECT_EQ(P.terms.p4, 9 * cost::matmul_4x2_per_k4 + cost::matmul_block_setup);
  // The same block on the wide layer costs more than ten times as much.
  const tiling_problem W =
      make_problem(after(true, {6, 6, 4}, conv2d(8, 3).bn().requantized(1, 1 << 14)), gap8);
  EXPECT_GT(cost::core_cycles(W, 4, 4, 8), 10 * cost::core_cycles(P, 4, 4, 8));
}

TEST(CostWide, DepthwiseLinearPoolsAndAdd) {
  const tiling_problem D =
      make_problem(after(true, {6, 6, 4}, depthwise(3).with_bias().requantized(3, 1000)), gap8);
  EXPECT_EQ(D.terms.q, 9 * cost::wide_dw_per_tap + cost::wide_dw_per_output);
  EXPECT_EQ(D.terms.t, 0);

  // Linear on a 2 x 2 x 4 16-bit input: 16 MACs per output.
  const tiling_problem L =
      make_problem(after(true, {2, 2, 4}, linear(6).with_bias().requantized(5, 4096)), gap8);
  const std::int64_t ql = 16 * cost::wide_linear_per_mac + cost::wide_linear_per_output;
  EXPECT_EQ(L.terms.q, ql);
  EXPECT_EQ(L.terms.q4, 0);
  // 3 outputs on one core: 3 x ql and one call.
  EXPECT_EQ(cost::core_cycles(L, 1, 1, 3), 3 * ql + cost::kernel_call);
  // A raw (int32) classifier on a 16-bit input is wide too.
  EXPECT_EQ(make_problem(after(true, {2, 2, 4}, linear(6).raw()), gap8).terms.q, ql);

  const tiling_problem M = make_problem(after(true, {6, 6, 4}, maxpool(2)), gap8);
  EXPECT_EQ(M.terms.q, 4 * cost::wide_pool_per_tap + cost::wide_maxpool_per_output);
  EXPECT_EQ(M.terms.q4, 0);
  const tiling_problem A = make_problem(after(true, {6, 6, 4}, avgpool(2).requantized(1, 4)), gap8);
  EXPECT_EQ(A.terms.q, 4 * cost::wide_pool_per_tap + cost::wide_avgpool_per_output);

  // An add of two 8-bit inputs whose sum is written as u16, and one that reads the u16 sum.
  const tiling_problem S =
      make_problem(after(false, {6, 6, 4}, add(0, 0).requantized(1, 1).unclipped()), gap8);
  EXPECT_EQ(S.terms.q, cost::wide_add_per_element);
  const tiling_problem S2 =
      make_problem(after(true, {6, 6, 4}, add(1, 1).requantized(1, 2).range(0, 255)), gap8);
  EXPECT_EQ(S2.out_bpe, 1);
  EXPECT_EQ(S2.terms.q, cost::wide_add_per_element);
  // Their cores' 2 x 6 x 4 blocks: 48 elements.
  EXPECT_EQ(cost::core_cycles(S, 2, 6, 4), 48 * cost::wide_add_per_element + cost::kernel_call);
}

TEST(CostWide, LinearWithItsReductionCut) {
  // 64 u16 inputs, 8 outputs with bias, cut in 2 K tiles of 32: one core's output per tile
  // (8 channels on 8 cores), whose wide compute outlasts every transfer of the tile.
  const tiling_problem P =
      make_problem(after(true, {1, 1, 64}, linear(8).with_bias().requantized(5, 4096)), gap8);
  ASSERT_TRUE(linear_x_whole(P, 32));  // the input is loaded whole, once
  ASSERT_EQ(linear_y_group(P, 8, 32), 1);
  const std::int64_t first =
      32 * cost::wide_linear_per_mac + cost::wide_linear_partial_per_output + cost::kernel_call;
  const std::int64_t last = 32 * cost::wide_linear_per_mac + cost::wide_linear_partial_per_output +
                            cost::wide_linear_per_output + cost::kernel_call;
  // Prologue: the whole input (128 bytes), the first weights (8 x 32 bytes, one command), the
  // output (8 bytes); then the two tiles' compute and their loop overhead.
  EXPECT_EQ(cost::linear_tiled_cycles(P, 8, 32),
            dma(128, 1) + dma(256, 1) + dma(8, 1) + 2 * P.tile_overhead + first + last);
}

TEST(CostWide, TransfersCountElementBytes) {
  const tiling_problem P =
      make_problem(after(true, {6, 6, 4}, conv2d(8, 3).bn().requantized(1, 1 << 14)), gap8);
  const tiling_problem N =
      make_problem(after(false, {6, 6, 4}, conv2d(8, 3).bn().requantized(1, 1 << 14)), gap8);
  // Output tile 2 x 4: input 4 rows x 6 columns (whole rows) x 4 channels, one command.
  EXPECT_EQ(cost::input_dma(P, 2, 4, 8), dma(4 * 6 * 4 * 2, 1));
  EXPECT_EQ(cost::input_dma(N, 2, 4, 8), dma(4 * 6 * 4, 1));
  // Output tile 2 x 1: 4 rows of 3 columns, a 2-D transfer of 4 lines of 3 x 4 x 2 bytes.
  EXPECT_EQ(cost::input_dma(P, 2, 1, 8), dma(4 * 3 * 4 * 2, 1));

  // A linear layer's whole 16-bit input: 2 x 2 x 4 elements of 2 bytes.
  const tiling_problem L =
      make_problem(after(true, {2, 2, 4}, linear(6).with_bias().requantized(5, 4096)), gap8);
  EXPECT_EQ(cost::input_dma(L, 1, 1, 6), dma(2 * 2 * 4 * 2, 1));

  // The add writing u16: a 2 x 6 x 4 output tile is 96 bytes, whole rows, one command; its
  // two 8-bit inputs 48 bytes each, a command each.
  const tiling_problem S =
      make_problem(after(false, {6, 6, 4}, add(0, 0).requantized(1, 1).unclipped()), gap8);
  EXPECT_EQ(cost::output_dma(S, 2, 6, 4), dma(2 * 6 * 4 * 2, 1));
  EXPECT_EQ(cost::input_dma(S, 2, 6, 4), dma(2 * 2 * 6 * 4, 2));
  // The add reading the u16 sum twice: 2 x 96 bytes.
  const tiling_problem S2 =
      make_problem(after(true, {6, 6, 4}, add(1, 1).requantized(1, 2).range(0, 255)), gap8);
  EXPECT_EQ(cost::input_dma(S2, 2, 6, 4), dma(2 * 2 * 6 * 4 * 2, 2));
}

TEST(CostWide, ThePlanChargesTheWideKernel) {
  // The planner's cycles for the wide conv are at least its outputs' wide cost over 8 cores,
  // far above the 8-bit layer's.
  const layer w = after(true, {12, 12, 16}, conv2d(16, 3).bn().requantized(1, 1 << 14));
  const layer n = after(false, {12, 12, 16}, conv2d(16, 3).bn().requantized(1, 1 << 14));
  const std::int64_t q =
      144 * cost::wide_conv_per_mac + 3 * cost::wide_conv_per_row + cost::wide_conv_per_output;
  const layer_plan pw = plan_layer(w, gap8);
  const layer_plan pn = plan_layer(n, gap8);
  ASSERT_TRUE(pw.fits);
  ASSERT_TRUE(pn.fits);
  EXPECT_GE(pw.cycles, 10 * 10 * 16 * q / 8);
  EXPECT_GT(pw.cycles, 10 * pn.cycles);
}

TEST(CostWide, TheResidencyEstimateCountsSixteenBitRows) {
  // A conv reading a 16-bit sum (16 x 16 x 8, 2 bytes each) that its producer streams through
  // L3, on an L2 too small for the whole tensors: the estimate takes two stripes of 3 input rows
  // (16 x 8 x 2 = 256 bytes a row) and two output rows (16 x 8 x 1 = 128 bytes a row).
  std::vector<layer> ls{input(16, 16, 8), conv2d(8, 3).same().with_bias().requantized(1, 64),
                        add(1, 1).requantized(1, 1).unclipped(),
                        conv2d(8, 3).same().requantized(1, 512)};
  ASSERT_TRUE(infer(ls).ok());
  ASSERT_EQ(ls[3].input_bytes_per_element(), 2);
  const platform p = gap8.with_code_reserve(0).with_l2(4096);
  const int last[] = {1, 2, 3, 4};
  const plan_detail::step_bytes b = plan_detail::step_bytes_of(ls, p, 3, last);
  EXPECT_EQ(b.activations, 2 * 3 * 256 + 2 * 128);
}

TEST(CostWide, TheSearchFindsTheModelsMinimumForWideLayers) {
  // The search prunes with lower bounds; for wide layers (all cost per output) it must still
  // return the minimum of the model over every tiling that fits and every split.
  const layer ls[] = {
      after(true, {10, 9, 12}, conv2d(10, 3).bn().requantized(1, 1 << 14)),
      after(true, {9, 8, 16}, pointwise(12).bn().requantized(1, 1 << 12)),
      after(true, {10, 9, 12}, depthwise(3).with_bias().requantized(3, 1000)),
      after(true, {8, 8, 12}, avgpool(2).requantized(1, 4)),
      after(false, {9, 7, 12}, add(0, 0).requantized(1, 1).unclipped()),
  };
  int compared = 0;
  for (const layer& l : ls) {
    for (int budget : {27300 + 900, 27300 + 1800, 27300 + 4000, 64000}) {
      const platform p = gap8_dory.with_l1(budget);  // 27,300 B of stacks
      const tiling_problem P = make_problem(l, p);
      SCOPED_TRACE(std::to_string(static_cast<int>(l.kind)) + " budget " + std::to_string(budget));
      const layer_plan got = plan_layer(l, p);
      if (!got.fits || got.cores != p.cores) continue;  // fewer cores: not enumerated here
      const cost::split_list splits = cost::splits_for(P);
      std::int64_t best = -1;
      for (int tc = 1; tc <= l.out.c; ++tc)
        for (int th = 1; th <= l.out.h; ++th)
          for (int tw = 1; tw <= l.out.w; ++tw) {
            if (l.kind == op::depthwise && tw != l.out.w) continue;
            if (l1_bytes_for(P, tc, th, tw) > P.l1_budget) continue;
            for (int i = 0; i < splits.n; ++i) {
              const std::int64_t c = cost::layer_cycles(P, tc, th, tw, splits.item[i]);
              if (best < 0 || c < best) best = c;
            }
          }
      ASSERT_GE(best, 0);
      EXPECT_EQ(got.l1_cycles, best);
      ++compared;
    }
  }
  EXPECT_GE(compared, 16);
}

}  // namespace
