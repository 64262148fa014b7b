// Depthwise inputs kept channel-major (CHW) in L2: which tensors the plan keeps so, and whole
// networks through the executor (the specialised loops) and through plans made at run time (the
// generic loop) bit-exact against the reference, with the DMA checker, and with one input
// command per depthwise tile instead of one per channel.
#include <gtest/gtest.h>

#include <ctile/ctile.hpp>
#include <ctile/hal/host.hpp>
#include <ctile/platform/gap8.hpp>
#include <ctile/reference/reference.hpp>
#include <ctile/schedule/executor.hpp>
#include <ctile/schedule/host_run.hpp>
#include <span>
#include <vector>

#include "check_network.hpp"
#include "common/synthetic.hpp"

namespace {

using namespace ctile;
using examples::divisor_for;
using examples::half;
using test::check_network;
using test::data;

// A standard conv and a pointwise layer each read by a depthwise layer alone (kept CHW), and a
// pointwise layer read by a depthwise layer and by an add (stays HWC).
using chw_net =
    network<input(16, 12, 32),                                                                   //
            conv2d(64, 3).same().bn().requantized(1, divisor_for(288)).named("stem"),            //
            depthwise(3).padded(1).bn().requantized(1, divisor_for(9)).named("dw1"),             //
            pointwise(96).bn().requantized(1, divisor_for(64)).named("pw1"),                     //
            depthwise(3).padded(1).bn().requantized(1, divisor_for(9)).named("dw2"),             //
            pointwise(96).bn().requantized(1, divisor_for(96)).named("pw2"),                     //
            add("pw1").scaled(0, half).scaled(1, half).named("join"),                            //
            pointwise(256).bn().requantized(1, divisor_for(96)).named("pw3"),                    //
            depthwise(3).strides(2).padded(1).bn().requantized(1, divisor_for(9)).named("dw3"),  //
            pointwise(32).bn().requantized(1, divisor_for(256)).named("pw4"),                    //
            global_avgpool().named("pool"),                                                      //
            linear(10).with_bias().raw().named("fc")>;

constexpr std::size_t stem = 1, dw1 = 2, pw1 = 3, dw2 = 4, pw3 = 7, dw3 = 8;

// An L1 that cuts the CHW pairs in row and channel tiles, and one that cuts them in columns.
constexpr platform rows_l1 = gap8.with_stacks(0, 0).with_l1(24 * 1024).named("24k-l1");
constexpr platform cols_l1 = gap8.with_stacks(0, 0).with_l1(8 * 1024).named("8k-l1");
// An L2 that sends pw3's output to L3 and back.
constexpr platform small_l2 = gap8.with_l2(64 * 1024).with_code_reserve(0).named("64k-l2");

template <std::size_t N>
void expect_chw_pairs(const std::array<layer_plan, N>& p, bool whole_width) {
  // The pairs whose tiles are whole rows on both sides are kept CHW; the others are not.
  for (const auto& [prod, dw] : {std::pair{stem, dw1}, std::pair{pw3, dw3}}) {
    const bool whole = p[prod].n_w == 1 && p[dw].n_w == 1;
    EXPECT_EQ(p[prod].out_chw, whole) << "layer " << prod;
    EXPECT_EQ(p[dw].in_chw, whole) << "layer " << dw;
    if (whole_width) {
      EXPECT_TRUE(whole) << "layers " << prod << ", " << dw;
    }
  }
  // pw1 has two readers: HWC.
  EXPECT_FALSE(p[pw1].out_chw);
  EXPECT_FALSE(p[dw2].in_chw);
  // Nothing else is.
  for (std::size_t i = 0; i < N; ++i) {
    if (i != stem && i != pw3) {
      EXPECT_FALSE(p[i].out_chw) << "layer " << i;
    }
    if (i != dw1 && i != dw3) {
      EXPECT_FALSE(p[i].in_chw) << "layer " << i;
    }
  }
}

TEST(ChannelMajor, PlanKeepsADepthwiseInputCHWWhenItsProducerCanStoreIt) {
  expect_chw_pairs(executor<chw_net, gap8>::plan.layers, true);
  const auto& p = executor<chw_net, rows_l1>::plan.layers;
  expect_chw_pairs(p, true);
  // The stores and loads of several row and channel tiles are exercised.
  EXPECT_GT(p[pw3].n_h, 1);
  EXPECT_GT(p[pw3].n_c, 1);
  EXPECT_GT(p[stem].n_c, 1);
  EXPECT_GT(p[dw1].n_h, 1);
  EXPECT_GT(p[dw3].n_c, 1);
}

// Column tiles on either side keep the tensor HWC.
TEST(ChannelMajor, ColumnTilesKeepTheTensorHWC) {
  const auto p = plan_network(chw_net::layers, cols_l1);
  ASSERT_TRUE(p.summary.ok());
  bool cut = false;
  for (const auto& [prod, dw] : {std::pair{stem, dw1}, std::pair{pw3, dw3}}) {
    const bool whole = p.layers[prod].n_w == 1 && p.layers[dw].n_w == 1;
    cut = cut || !whole;
    EXPECT_EQ(p.layers[dw].in_chw, whole);
  }
  EXPECT_TRUE(cut) << "the 8 KiB L1 must cut some pair's rows in column tiles";
}

// A tensor that goes to L3 (written out by row stripes or read back so) stays HWC.
TEST(ChannelMajor, TensorsStagedThroughL3StayHWC) {
  const auto p = plan_network(chw_net::layers, small_l2);
  ASSERT_TRUE(p.summary.ok()) << "layer " << p.summary.layer << " needs " << p.summary.needs;
  bool staged = false;
  for (const auto& [prod, dw] : {std::pair{stem, dw1}, std::pair{pw3, dw3}}) {
    const bool l3 = p.l2[prod].l3_y >= 0 || p.layers[prod].l3.y || p.layers[dw].l3.x;
    staged = staged || l3;
    if (l3) {
      EXPECT_FALSE(p.layers[dw].in_chw) << "layer " << dw;
    }
  }
  EXPECT_TRUE(staged) << "the 64 KiB L2 must stage some pair's tensor through L3";
}

// The generic loop over plan `p` (flags as they are, or cleared: every tensor HWC) with the
// host's simulated DMA.
schedule::host_run_result run_plan(network_plan<chw_net::size> p, bool keep_chw) {
  if (!keep_chw)
    for (auto& lp : p.layers) lp.out_chw = lp.in_chw = false;
  const auto& d = data<chw_net>();
  std::vector<kernels::requant_plan> quant;
  for (std::size_t i = 0; i < chw_net::size; ++i)
    quant.push_back(kernels::plan_for(chw_net::layers[i], d.params[i]));
  int l1 = 4;
  for (const auto& lp : p.layers) l1 = lp.l1.total > l1 ? lp.l1.total : l1;
  schedule::host_run_options o;
  o.mode = hal::completion::random;
  o.seed = 3;
  o.cores = gap8.cores;
  return schedule::run_on_host(
      schedule::view_of(chw_net::layers, p), l1, p.summary.l2_peak, p.summary.l3_used, d.params,
      std::span<const std::uint8_t>(d.input.data(), d.input.size()), quant, o);
}

void expect_exact(const schedule::host_run_result& r) {
  const auto& d = data<chw_net>();
  const auto expected = reference::run(
      chw_net::layers, d.params, std::span<const std::uint8_t>(d.input.data(), d.input.size()));
  for (const auto& e : r.problems) ADD_FAILURE() << e;
  for (std::size_t i = 0; i < chw_net::size; ++i) {
    ASSERT_EQ(r.outputs[i].size(), expected[i].size()) << "layer " << i;
    std::size_t bad = 0;
    for (std::size_t k = 0; k < expected[i].size(); ++k) bad += r.outputs[i][k] != expected[i][k];
    EXPECT_EQ(bad, 0u) << "layer " << i << " (" << op_name(chw_net::layers[i].kind) << ")";
  }
}

TEST(ChannelMajor, NetworkOnGap8) {
  check_network<chw_net, gap8>("gap8");
  // The same plan with every tensor HWC marshals each depthwise tile channel by channel (one
  // command per channel, the tiles spanning whole rows); kept CHW, a tile is one command.
  const auto& plan = executor<chw_net, gap8>::plan;
  const auto chw = run_plan(plan, true);
  const auto hwc = run_plan(plan, false);
  expect_exact(chw);
  expect_exact(hwc);
  std::uint64_t saved = 0;
  for (std::size_t i = 0; i < chw_net::size; ++i) {
    const layer_plan& lp = plan.layers[i];
    if (!lp.in_chw) continue;
    // Per tile: its channels' commands against one.
    saved += static_cast<std::uint64_t>(lp.n_h) * lp.n_w *
             static_cast<std::uint64_t>(chw_net::layers[i].out.c - lp.n_c);
  }
  EXPECT_GT(saved, 0u);
  EXPECT_EQ(hwc.traffic.commands_on(hal::traffic_path::l2_to_l1) -
                chw.traffic.commands_on(hal::traffic_path::l2_to_l1),
            saved);
  // The bytes moved are the same.
  EXPECT_EQ(hwc.traffic.bytes_on(hal::traffic_path::l2_to_l1),
            chw.traffic.bytes_on(hal::traffic_path::l2_to_l1));
  EXPECT_EQ(hwc.traffic.bytes_on(hal::traffic_path::l1_to_l2),
            chw.traffic.bytes_on(hal::traffic_path::l1_to_l2));
}

TEST(ChannelMajor, NetworkWithRowTiles) {
  check_network<chw_net, rows_l1>("24 KiB L1");
}

// Plans made at run time: the generic loop stores and reads the CHW tensors.
TEST(ChannelMajor, PlannedAtRunTime) {
  for (const platform& plat : {gap8, rows_l1, cols_l1, small_l2}) {
    SCOPED_TRACE(plat.name.c_str());
    const auto& d = data<chw_net>();
    const std::span<const std::uint8_t> in(d.input.data(), d.input.size());
    const auto expected = reference::run(chw_net::layers, d.params, in);
    const auto plans = plan_network(chw_net::layers, plat);
    if (&plat == &gap8) {
      EXPECT_TRUE(plans.layers[dw3].in_chw);
    }
    schedule::host_run_options o;
    o.mode = hal::completion::random;
    o.seed = 9;
    const auto r = schedule::plan_and_run_on_host(plat, chw_net::layers, d.params, in, o);
    ASSERT_TRUE(r.planned) << "layer " << r.summary.layer << " needs " << r.summary.needs;
    for (const auto& e : r.run.problems) ADD_FAILURE() << e;
    for (std::size_t i = 0; i < chw_net::size; ++i) {
      ASSERT_EQ(r.run.outputs[i].size(), expected[i].size()) << "layer " << i;
      std::size_t bad = 0;
      for (std::size_t k = 0; k < expected[i].size(); ++k)
        bad += r.run.outputs[i][k] != expected[i][k];
      EXPECT_EQ(bad, 0u) << "layer " << i << " (" << op_name(chw_net::layers[i].kind) << ")";
    }
  }
}

// The activations spread over the range, so that bit-exactness means something.
TEST(ChannelMajor, ActivationsSpread) {
  test::check_activations_vary<chw_net>();
}

}  // namespace
