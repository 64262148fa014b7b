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

TEST(PlanLayout, EveryExampleNetworkOnGap8) {
  for (const auto& n : test::example_networks()) {
    const auto r = test::plan_at_run_time(n.layers, gap8, objective::model);
    check_layout(n.name, r, gap8);
    // Weights live in L3 and are streamed; the arena holds no more than DORY's bound here.
    EXPECT_TRUE(r.summary.weights_in_l3);
    EXPECT_LE(r.summary.l2_peak, r.summary.dory_bound) << n.name;
  }
}

TEST(PlanLayout, WithoutL3EverythingStaysInL2) {
  const platform p = gap8.with_l3(0).with_code_reserve(64 * 1024);
  const auto r =
      test::plan_at_run_time(test::layers_of<examples::cifar10_cnn>(), p, objective::model);
  check_layout("cifar10 without L3", r, p);
  EXPECT_FALSE(r.summary.weights_in_l3);
  for (const auto& q : r.plans) {
    EXPECT_FALSE(q.l3.x || q.l3.w || q.l3.y);
  }
}

TEST(PlanLayout, SmallerL2StripesThroughL3) {
  int striped_rows = 0, striped_weights = 0, from_l3 = 0, both = 0;
  for (int l2 : {400 * 1024, 352 * 1024, 200000}) {
    const platform p = gap8.with_l2(l2);
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
TEST(PlanLayout, DepthwiseProducersInWholeRows) {
  int switched = 0, kept = 0;
  for (objective o : {objective::model, objective::dory}) {
    for (const auto& ls : {test::layers_of<examples::mobilenet_v1_100_128>(),
                           test::layers_of<examples::mobilenet_v1_050_192>(),
                           test::layers_of<examples::mobilenet_v2_035_128>()}) {
      const auto r = test::plan_at_run_time(ls, gap8, o);
      ASSERT_TRUE(r.summary.ok());
      for (std::size_t i = 1; i < ls.size(); ++i) {
        const layer_plan alone = plan_layer(ls[i], gap8, o);
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
          EXPECT_LE(got.l1_cycles,
                    alone.l1_cycles + marshal_cycles(ls[static_cast<std::size_t>(j)], reader, gap8))
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
  EXPECT_GT(kept, 0);  // MobileNet-v1 0.5-192's pw6: whole rows would cost more than they save
}
