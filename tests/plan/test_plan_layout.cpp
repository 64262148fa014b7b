// The L2 arena (bidirectional stack) of every example network: no two buffers alive at the same
// step overlap, each lies within the arena, the arena fits the budget, and every layer's input
// and weights are in L2 when it runs. The L3 cascade, exercised with smaller L2 budgets.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "networks.hpp"

namespace {

using namespace ctile;

void check_layout(const std::string& name, const test::planned& r, const platform& p) {
  SCOPED_TRACE(name);
  ASSERT_TRUE(r.summary.ok());
  const int n = static_cast<int>(r.layers.size());
  EXPECT_LE(r.summary.l2_peak, p.l2_budget());
  int max_live = 0;
  for (int t = 0; t < n; ++t) {
    struct live {
      int begin, end;
      std::string what;
    };
    std::vector<live> bufs;
    for (int i = 0; i < n; ++i) {
      const auto& e = r.l2[static_cast<std::size_t>(i)];
      for (const auto& [slot, what] :
           {std::pair{e.x, "x"}, std::pair{e.w, "w"}, std::pair{e.y, "y"}}) {
        if (slot.offset < 0 || slot.bytes == 0) continue;
        EXPECT_GE(slot.offset, 0);
        EXPECT_LE(slot.offset + slot.bytes, r.summary.l2_peak) << what << " of layer " << i;
        EXPECT_EQ(slot.offset % 4, 0);
        if (slot.from <= t && t <= slot.until)
          bufs.push_back(
              {slot.offset, slot.offset + slot.bytes, std::string(what) + std::to_string(i)});
      }
    }
    std::sort(bufs.begin(), bufs.end(), [](auto& a, auto& b) { return a.begin < b.begin; });
    int sum = 0;
    for (std::size_t k = 0; k < bufs.size(); ++k) {
      sum += bufs[k].end - bufs[k].begin;
      if (k > 0) {
        EXPECT_LE(bufs[k - 1].end, bufs[k].begin)
            << "step " << t << ": " << bufs[k - 1].what << " overlaps " << bufs[k].what;
      }
    }
    max_live = std::max(max_live, sum);
    // What step t reads and writes is in L2 then.
    const layer& l = r.layers[static_cast<std::size_t>(t)];
    const layer_plan& q = r.plans[static_cast<std::size_t>(t)];
    const auto& e = r.l2[static_cast<std::size_t>(t)];
    if (t > 0) {
      if (q.l3.x) {
        EXPECT_TRUE(e.x.from <= t && t <= e.x.until);
        EXPECT_GT(e.x.bytes, 0);
      } else {
        for (int s = 0; s < l.inputs(); ++s) {
          const auto& src = r.l2[static_cast<std::size_t>(l.src[s])].y;
          EXPECT_TRUE(src.from <= t && t <= src.until) << "input " << s << " of layer " << t;
        }
      }
    }
    if (l.has_weights()) {
      EXPECT_TRUE(e.w.from <= t && t <= e.w.until) << "weights of layer " << t;
      EXPECT_GE(e.w.bytes, q.l3.l2_w);
    }
    EXPECT_TRUE(e.y.from <= t && t <= e.y.until);
  }
  EXPECT_GE(r.summary.l2_peak, max_live);
}

// Bytes of a layer's weights and per-channel constants as stage() packs them, from the layer's
// declaration (int8 weights, int32 bias / kappa / lambda per output channel), word-aligned.
std::int64_t declared_weight_bytes(const layer& l) {
  std::int64_t per_c = 0;
  if (l.kind == op::conv) per_c = std::int64_t{l.kernel.h} * l.kernel.w * l.in.c;
  if (l.kind == op::depthwise) per_c = std::int64_t{l.kernel.h} * l.kernel.w;
  if (l.kind == op::linear) per_c = l.in.elements();
  if (per_c == 0) return 0;
  const int arrays = (l.bias ? 1 : 0) + (l.batchnorm ? 2 : 0);
  return (std::int64_t{l.out.c} * (per_c + 4 * arrays) + 3) / 4 * 4;
}

// Where each layer's weights live agrees with why, the resident ones sit in L2 for the whole
// run at disjoint offsets, and the totals add up. Returns the bytes of resident weights.
std::int64_t check_residency(const std::string& name, const test::planned& r, const platform& p) {
  SCOPED_TRACE(name);
  const int n = static_cast<int>(r.layers.size());
  std::int64_t resident = 0, streamed = 0, traffic = 0;
  for (int i = 0; i < n; ++i) {
    const layer& l = r.layers[static_cast<std::size_t>(i)];
    const layer_plan& q = r.plans[static_cast<std::size_t>(i)];
    const layer_l2& e = r.l2[static_cast<std::size_t>(i)];
    traffic += q.l3.l3_bytes;
    const std::int64_t wb = declared_weight_bytes(l);
    if (wb == 0) {
      EXPECT_EQ(e.w_why, weight_reason::none) << i;
      continue;
    }
    if (q.l3.w) {
      streamed += wb;
      EXPECT_GE(e.l3_w, 0) << i;
      EXPECT_TRUE(e.w_why == weight_reason::l2_full || e.w_why == weight_reason::forced) << i;
      EXPECT_EQ(e.w_why == weight_reason::forced, p.stream_weights) << i;
      if (e.w_why == weight_reason::l2_full) {
        EXPECT_GT(e.w_needs, p.l2_budget()) << i;
      }
      // Streamed weights cost L3 traffic every frame.
      EXPECT_GE(q.l3.l3_bytes, wb) << i;
    } else {
      resident += wb;
      EXPECT_EQ(e.l3_w, -1) << i;
      EXPECT_EQ(e.w_why, p.has_l3() ? weight_reason::fits : weight_reason::no_l3) << i;
      EXPECT_FALSE(p.stream_weights && p.has_l3()) << i;
      // Resident: the whole block in L2 from the first step to the last, below the arena's top.
      EXPECT_EQ(e.w.bytes, wb) << i;
      EXPECT_EQ(e.w.from, 0) << i;
      EXPECT_EQ(e.w.until, n - 1) << i;
      EXPECT_LE(e.w.offset + e.w.bytes, r.summary.l2_peak) << i;
      // Nothing of it is moved per frame: only activations, if any, go through L3.
      if (!q.l3.x && !q.l3.y) {
        EXPECT_EQ(q.l3.l3_bytes, 0) << i;
      }
    }
  }
  EXPECT_EQ(r.summary.weights_resident, resident);
  EXPECT_EQ(r.summary.weights_streamed, streamed);
  EXPECT_EQ(r.summary.weights_in_l3, streamed > 0);
  EXPECT_EQ(r.summary.l3_bytes_per_frame, traffic);
  return resident;
}

// Every example network, with weights resident where they fit and with streaming forced: a
// valid layout either way. Where the forced plan's arena and every weight fit L2 together,
// every weight is resident (the planner does not stream what fits); MobileNet-v1 1.0's 4.2 MB
// of weights mostly stream, as before.
TEST(PlanLayout, EveryExampleNetworkOnGap8) {
  const platform forced = gap8.with_streamed_weights();
  int all_resident = 0;
  for (const auto& n : test::example_networks()) {
    const auto r = test::plan_at_run_time(n.layers, gap8, objective::model);
    check_layout(n.name, r, gap8);
    const std::int64_t resident = check_residency(n.name, r, gap8);
    // DORY's bound (a step's buffers, the resident weights and the outputs alive then) holds
    // the bidirectional stack of a chain; a residual whose operands die together traps one of
    // them under the sum on either side, which the bound covered only while each step's
    // streamed weights padded it.
    bool residual = false;
    for (const layer& l : n.layers) residual = residual || l.kind == op::add;
    if (!residual || r.summary.weights_resident == 0) {
      EXPECT_LE(r.summary.l2_peak, r.summary.dory_bound) << n.name;
    }
    const auto f = test::plan_at_run_time(n.layers, forced, objective::model);
    check_layout(std::string(n.name) + " streamed", f, forced);
    EXPECT_EQ(check_residency(std::string(n.name) + " streamed", f, forced), 0);
    EXPECT_TRUE(f.summary.weights_in_l3) << n.name;
    std::int64_t all = 0;
    for (const layer& l : n.layers) all += declared_weight_bytes(l);
    EXPECT_EQ(f.summary.weights_streamed, all) << n.name;
    EXPECT_LE(f.summary.l2_peak, f.summary.dory_bound) << n.name;
    if (f.summary.l2_peak + all <= gap8.l2_budget()) {
      ++all_resident;
      EXPECT_EQ(resident, all) << n.name;
      EXPECT_FALSE(r.summary.weights_in_l3) << n.name;
      EXPECT_EQ(r.summary.l3_used, 0) << n.name;
    }
    // Resident weights never cost more L3 traffic per frame than streaming them all.
    EXPECT_LE(r.summary.l3_bytes_per_frame, f.summary.l3_bytes_per_frame) << n.name;
    if (std::string(n.name) == "mobilenet_v1_1.0_128") {
      EXPECT_GT(r.summary.weights_streamed, 4000000);
      EXPECT_LT(resident, gap8.l2_budget());
    }
  }
  EXPECT_GE(all_resident, 2);  // CIFAR-10 and the residual network
}

// A network whose one large layer cannot keep its weights in L2 next to the others: the small
// ones stay resident, the large one streams, and the reason names a step whose L2 would not
// hold them with the bytes. Forced streaming moves every one to L3.
using split_net = network<input(8, 8, 64), pointwise(64).bn().named("a"),
                          conv2d(128, 3).same().bn().named("big"), pointwise(64).bn().named("c")>;
TEST(PlanLayout, WeightsSplitPerLayerWhenOnlySomeFit) {
  const platform p = gap8_dory.with_l2(48 * 1024).with_code_reserve(0);
  const auto r = test::plan_at_run_time(test::layers_of<split_net>(), p, objective::model);
  check_layout("split", r, p);
  check_residency("split", r, p);
  EXPECT_FALSE(r.plans[1].l3.w);
  EXPECT_TRUE(r.plans[2].l3.w);
  EXPECT_FALSE(r.plans[3].l3.w);
  EXPECT_EQ(r.l2[1].w_why, weight_reason::fits);
  EXPECT_EQ(r.l2[2].w_why, weight_reason::l2_full);
  EXPECT_EQ(r.l2[3].w_why, weight_reason::fits);
  EXPECT_GT(r.l2[2].w_needs, p.l2_budget());
  EXPECT_GE(r.l2[2].w_step, 1);
  EXPECT_EQ(r.summary.weights_resident, declared_weight_bytes(split_net::layers[1]) +
                                            declared_weight_bytes(split_net::layers[3]));
  // The big layer's weights alone would overflow the budget beside any activation.
  EXPECT_GT(declared_weight_bytes(split_net::layers[2]), p.l2_budget());
  const platform f = p.with_streamed_weights();
  const auto s = test::plan_at_run_time(test::layers_of<split_net>(), f, objective::model);
  check_layout("split, streamed", s, f);
  check_residency("split, streamed", s, f);
  for (std::size_t i = 1; i < 4; ++i) EXPECT_TRUE(s.plans[i].l3.w) << i;
  // What stays resident is not read per frame.
  EXPECT_EQ(
      s.summary.l3_bytes_per_frame - r.summary.l3_bytes_per_frame,
      declared_weight_bytes(split_net::layers[1]) + declared_weight_bytes(split_net::layers[3]));
}

TEST(PlanLayout, WithoutL3EverythingStaysInL2) {
  const platform p = gap8.with_l3(0).with_code_reserve(64 * 1024);
  const auto r =
      test::plan_at_run_time(test::layers_of<examples::cifar10_cnn>(), p, objective::model);
  check_layout("cifar10 without L3", r, p);
  check_residency("cifar10 without L3", r, p);
  EXPECT_FALSE(r.summary.weights_in_l3);
  for (const auto& q : r.plans) {
    EXPECT_FALSE(q.l3.x || q.l3.w || q.l3.y);
  }
}

// Without L3 every weight is resident, and counted once: the network fits an L2 budget of
// exactly the arena it needs (counting a layer's weights again in its own step would not).
TEST(PlanLayout, WithoutL3WeightsCountOnce) {
  for (const auto& ls : {test::layers_of<examples::cifar10_cnn>(),
                         test::layers_of<examples::resnet_small>(), test::layers_of<split_net>()}) {
    const platform roomy = gap8.with_l3(0).with_code_reserve(0).with_l2(1 << 20);
    const auto r = test::plan_at_run_time(ls, roomy, objective::model);
    ASSERT_TRUE(r.summary.ok());
    const platform exact = roomy.with_l2(r.summary.l2_peak);
    const auto e = test::plan_at_run_time(ls, exact, objective::model);
    ASSERT_TRUE(e.summary.ok()) << e.summary.layer << " needs " << e.summary.needs;
    check_layout("without L3, exact L2", e, exact);
    check_residency("without L3, exact L2", e, exact);
    EXPECT_EQ(e.summary.l2_peak, r.summary.l2_peak);
  }
}

TEST(PlanLayout, SmallerL2StripesThroughL3) {
  int striped_rows = 0, striped_weights = 0, from_l3 = 0, both = 0;
  for (int l2 : {400 * 1024, 352 * 1024, 200000}) {
    // DORY's L1 budget: gap8's larger tiles need more than 200,000 B of L2 for MobileNet.
    const platform p = gap8_dory.with_l2(l2);
    const auto r = test::plan_at_run_time(test::layers_of<examples::mobilenet_v1_100_128>(), p,
                                          objective::model);
    ASSERT_TRUE(r.summary.ok()) << l2;
    check_layout("mobilenet_v1 with L2 " + std::to_string(l2), r, p);
    for (std::size_t i = 1; i < r.layers.size(); ++i) {
      const layer& l = r.layers[i];
      const layer_plan& q = r.plans[i];
      // Stripes hold whole L1 tiles.
      if (q.l3.y) {
        ++striped_rows;
        EXPECT_TRUE(q.l3.y_stripe_h % q.tile_h == 0 || q.l3.y_stripe_h == l.out.h);
        EXPECT_EQ(q.l3.l2_y, 2 * ((q.l3.y_stripe_h * l.out.w * l.out.c + 3) / 4 * 4));
      }
      if (q.l3.stage == 5) {
        ++both;
        EXPECT_TRUE(q.l3.y && q.l3.w);
      }
      if (q.l3.w && q.l3.w_stripe_c < l.out.c) {
        ++striped_weights;
        EXPECT_EQ(q.l3.w_stripe_c % q.tile_c, 0);
      }
      // An output in L3 is read back by the layers that consume it.
      for (int s = 0; s < l.inputs(); ++s) {
        if (r.plans[static_cast<std::size_t>(l.src[s])].l3.y) {
          EXPECT_TRUE(q.l3.x);
          ++from_l3;
        }
      }
      if (q.l3.x) {
        const int rows = std::min((q.l3.y_stripe_h - 1) * l.stride.h + l.kernel.h, l.in.h);
        EXPECT_EQ(q.l3.x_stripe_h, rows);
      }
    }
  }
  EXPECT_GT(striped_rows, 0);
  EXPECT_GT(from_l3, 0);
  EXPECT_GT(striped_weights, 0);
  EXPECT_GT(both, 0);  // weights and activations striped together
}

TEST(PlanLayout, ResidualsStayAliveUntilTheirLastConsumer) {
  const auto r = test::plan_at_run_time(test::layers_of<examples::mobilenet_v2_035_128>(), gap8,
                                        objective::model);
  ASSERT_TRUE(r.summary.ok());
  for (std::size_t i = 1; i < r.layers.size(); ++i) {
    const layer& l = r.layers[i];
    for (int s = 0; s < l.inputs(); ++s) {
      EXPECT_GE(r.l2[static_cast<std::size_t>(l.src[s])].y.until, static_cast<int>(i));
    }
  }
}

TEST(PlanLayout, ResidualThroughL3) {
  // A residual block on a large map with little L2: the block's outputs go to L3, so the add
  // reads one input from L3 by row stripes while the shortcut stays in L2.
  using block = network<input(64, 64, 32), conv2d(32, 3).same().bn().named("c1"),
                        conv2d(32, 3).same().bn().named("c2"), add(2, 0).named("sum"),
                        conv2d(8, 1).named("tail")>;
  int adds_from_l3 = 0;
  for (int l2 : {98304 + 330000, 98304 + 300000, 98304 + 280000}) {
    const platform p = gap8.with_l2(l2);
    const auto r = test::plan_at_run_time(test::layers_of<block>(), p, objective::model);
    if (!r.summary.ok()) continue;
    check_layout("residual block with L2 " + std::to_string(l2), r, p);
    const layer& l = r.layers[3];
    int in_l3 = 0;
    for (int k = 0; k < 2; ++k)
      if (r.plans[static_cast<std::size_t>(l.src[k])].l3.y) ++in_l3;
    EXPECT_EQ(r.plans[3].l3.x, in_l3 > 0);
    if (in_l3 > 0) {
      ++adds_from_l3;
      // Double-buffered stripes of the inputs that are in L3 only.
      const int rows = r.plans[3].l3.x_stripe_h;
      EXPECT_EQ(r.plans[3].l3.l2_x, 2 * ((rows * l.in.w * l.in.c * in_l3 + 3) / 4 * 4));
    }
  }
  EXPECT_GT(adds_from_l3, 0);
}

}  // namespace

// A convolution that a depthwise layer alone reads is cut in whole rows when that costs it at
// most the modeled marshalling it saves its reader (plan_producer); then, the tensor staying in
// L2, both layers keep it channel-major. Other layers, and DORY's objective, plan as alone.
// A pointwise layer of 96-pixel rows of 128 channels read by a depthwise layer alone: in whole
// rows it would cost more (modeled) than its reader's marshalling saves. Planned in DORY's L1
// budget (gap8_dory), for which that case is sized.
using wide_rows = network<input(16, 96, 128), conv2d(128, 1).bn().requantized(1, 512),
                          depthwise(3).same().bn().requantized(1, 256)>;

TEST(PlanLayout, DepthwiseProducersInWholeRows) {
  int switched = 0, kept = 0;
  for (objective o : {objective::model, objective::dory}) {
    for (const auto& ls :
         {test::layers_of<examples::mobilenet_v1_100_128>(),
          test::layers_of<examples::mobilenet_v1_050_192>(),
          test::layers_of<examples::mobilenet_v2_035_128>(), test::layers_of<wide_rows>()}) {
      const auto r = test::plan_at_run_time(ls, gap8_dory, o);
      ASSERT_TRUE(r.summary.ok());
      for (std::size_t i = 1; i < ls.size(); ++i) {
        const layer_plan alone = plan_layer(ls[i], gap8_dory, o);
        const int j = sole_depthwise_reader(ls, i);
        const layer_plan& got = r.plans[i];
        if (j < 0 || o == objective::dory || alone.n_w == 1) {
          EXPECT_EQ(got.tile_h, alone.tile_h) << i;
          EXPECT_EQ(got.tile_w, alone.tile_w) << i;
          EXPECT_EQ(got.tile_c, alone.tile_c) << i;
          continue;
        }
        const layer_plan& reader = r.plans[static_cast<std::size_t>(j)];
        if (got.n_w == 1) {
          ++switched;
          // Whole rows cost the producer no more than its reader's marshalling...
          EXPECT_LE(got.l1_cycles, alone.l1_cycles + marshal_cycles(ls[static_cast<std::size_t>(j)],
                                                                    reader, gap8_dory))
              << i;
          // ... and save it: the tensor is kept channel-major unless it goes through L3 (the
          // cascade decides that later).
          const bool in_l2 = r.l2[i].l3_y < 0 && !got.l3.y && !reader.l3.x;
          EXPECT_EQ(got.out_chw, in_l2) << i;
          EXPECT_EQ(reader.in_chw, in_l2) << i;
        } else {
          ++kept;
          EXPECT_EQ(got.tile_w, alone.tile_w) << i;
          EXPECT_FALSE(reader.in_chw) << i;
        }
      }
    }
  }
  EXPECT_GT(switched, 0);
  EXPECT_GT(kept, 0);  // wide_rows: whole rows would cost more than they save
}

namespace {

using ctile::plan_detail::align4;

// Output groups (choose_output_groups), checked against a search written out here: a
// channel-major convolution whose every tile is a channel tile of its own takes, of the
// groups whose L1 buffers (two of g channel tiles, or one of the whole output) fit next to
// its other buffers and whose command is within the platform's limit, the one that saves the
// most (a command per tile saved, less the last group's longer transfer); every other plan
// sends each tile's output on its own (a linear layer aside).
void check_groups(const std::string& name, const test::planned& r, const platform& p,
                  int& grouped) {
  for (std::size_t i = 1; i < r.layers.size(); ++i) {
    const layer_plan& q = r.plans[i];
    SCOPED_TRACE(name + " layer " + std::to_string(i));
    if (q.kind == op::linear) continue;
    const int g = q.y_group(r.layers[i].output_bytes_per_element());
    const bool eligible =
        q.kind == op::conv && q.out_chw && q.n_h == 1 && q.n_w == 1 && q.n_c > 1 && q.n_k == 1;
    if (!eligible) {
      EXPECT_TRUE(g == 1 || q.n_c == 1) << "group " << g;
      continue;
    }
    const std::int64_t plane = std::int64_t{r.layers[i].out.h} * r.layers[i].out.w;
    const std::int64_t others =
        std::int64_t{q.x_copies} * (align4(q.x_bytes) + align4(q.x2_bytes)) +
        std::int64_t{q.w_copies} * (align4(q.w_bytes) + align4(q.kl_bytes)) +
        align4(q.scratch_bytes);
    EXPECT_EQ(others + std::int64_t{q.y_copies} * align4(q.y_bytes), q.l1.total);
    int best = 1;
    std::int64_t most = 0;
    for (int k = 2; k <= q.n_c; ++k) {
      const bool whole = k >= q.n_c;
      const std::int64_t one = (whole ? r.layers[i].out.c : std::int64_t{k} * q.tile_c) * plane;
      if (one > p.dma_command_limit()) continue;
      const std::int64_t l1 = others + (whole ? 1 : 2) * ((one + 3) / 4 * 4);
      if (l1 > p.l1_budget()) continue;
      const int sent = (q.n_c + k - 1) / k;
      const int in_last = q.n_c - (sent - 1) * k;  // channel tiles of the last group
      const std::int64_t longer = std::int64_t{in_last - 1} * q.tile_c * plane;
      const std::int64_t s = std::int64_t{q.n_c - sent} * cost::output_command_cycles -
                             (longer * 1000 + p.dma_bytes_per_kcycle - 1) / p.dma_bytes_per_kcycle;
      if (s > most) most = s, best = k;
    }
    EXPECT_EQ(g, best);
    EXPECT_EQ(q.y_copies, g >= q.n_c ? 1 : 2);
    grouped += g > 1;
  }
}

TEST(PlanLayout, OutputGroupsOfChannelMajorConvolutions) {
  int grouped = 0;
  for (const platform& p : {gap8, gap8.with_l1(48 * 1024), gap8.with_l1(96 * 1024)})
    for (const auto& n : test::example_networks())
      check_groups(std::string(n.name) + " on " + p.name.c_str(),
                   test::plan_at_run_time(n.layers, p, objective::model), p, grouped);
  EXPECT_GT(grouped, 10);
  // MobileNet-v1 1.0-128 on GAP-8: its pointwise layers 7-12 (channel-major outputs, one
  // spatial tile) send their outputs by groups.
  for (const auto& n : test::example_networks()) {
    if (std::string(n.name) != "mobilenet_v1_1.0_128") continue;
    const auto r = test::plan_at_run_time(n.layers, gap8, objective::model);
    for (std::size_t i = 1; i < r.layers.size(); ++i) {
      const std::string nm = r.layers[i].name.c_str();
      for (const char* pw : {"pw7", "pw8", "pw9", "pw10", "pw11", "pw12"})
        if (nm == pw) {
          EXPECT_GT(r.plans[i].y_group(1), 1) << pw;
        }
    }
  }
}

}  // namespace
