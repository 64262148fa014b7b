// Tensors wider than 8 bits through the tiled runtime: an unclipped residual sum whose proven
// range needs 9 to 16 bits is held in a 16-bit tensor, and every layer kind that can read it
// (conv, pointwise, depthwise, linear requantized and raw, max and average pool, add with an
// 8-bit or a 16-bit second input) reads the exact values; layers that write a wide value again
// (pools, adds left unclipped) write 16 bits, read by a pointwise conv after them. Random
// small networks of this family, planned at run time at GAP-8's budgets and on an L1 of at
// most 1 KiB (the 16-bit tensors cut in several tiles); every layer's output, value by value,
// against the naive reference. A network type with wide sums runs through the executor's
// compile-time loop nests too.
#include <gtest/gtest.h>

#include <deque>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "check_network.hpp"

namespace {

using namespace ctile;
using namespace ctile::test;

// ---- A network type: residual sums of 9 and 10 bits, read by a conv, an add and a linear.
using wide_net = network<input(10, 12, 6),                                               //
                         conv2d(8, 3).same().with_bias().requantized(1, 64).named("a"),  //
                         conv2d(8, 3).same().with_bias().requantized(1, 64).named("b"),
                         add("a")
                             .scaled(0, {32, 0, 0, false})
                             .scaled(1, {32, 0, 0, false})
                             .requantized(1, 32)
                             .unclipped()
                             .named("sum"),  // 0..510
                         conv2d(8, 3).same().requantized(1, 512).named("c"),
                         add("sum", "sum").requantized(1, 1).unclipped().named("twice"),  // 0..1020
                         maxpool(2).named("mp"), linear(10).raw().named("fc")>;
static_assert(wide_net::layers[3].out_range == value_range{0, 510});
static_assert(wide_net::layers[3].output_bytes_per_element() == 2);
static_assert(wide_net::layers[4].input_bytes_per_element() == 2);
static_assert(wide_net::layers[4].output_bytes_per_element() == 1);
static_assert(wide_net::layers[7].input_bytes_per_element() == 2);

TEST(ExecutorWide, NetworkTypeOnGap8) {
  check_network<wide_net, gap8>("gap8");
}
TEST(ExecutorWide, NetworkTypeTinyL1) {
  check_network<wide_net, tiny_l1>("tiny L1");
}

// ---- The family, planned at run time.

/// A random network of the family and its data (owned here; the layer_params view it).
struct wide_case {
  std::vector<layer> layers;
  std::vector<layer_params> params;
  std::deque<std::vector<std::int8_t>> weights;
  std::deque<std::vector<std::int32_t>> biases;
  std::vector<std::uint8_t> input;
  std::string what;
};

/// The consumer kinds of a 16-bit tensor.
enum class consumer {
  conv,
  pointwise,
  depthwise,
  linear,
  linear_raw,
  maxpool,
  avgpool,
  add8,
  add16
};
constexpr consumer consumers[] = {consumer::conv,    consumer::pointwise,  consumer::depthwise,
                                  consumer::linear,  consumer::linear_raw, consumer::maxpool,
                                  consumer::avgpool, consumer::add8,       consumer::add16};
const char* name_of(consumer c) {
  const char* n[] = {"conv",    "pointwise", "depthwise", "linear", "linear_raw",
                     "maxpool", "avgpool",   "add8",      "add16"};
  return n[static_cast<int>(c)];
}

int pick(std::mt19937& g, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(g);
}

/// Weights of layer `i` (once inferred) in -2..5, biases in -20..20.
void bind_params(wide_case& w, std::mt19937& g) {
  w.params.assign(w.layers.size(), {});
  for (std::size_t i = 0; i < w.layers.size(); ++i) {
    const layer& l = w.layers[i];
    if (!l.has_weights()) continue;
    auto& ws = w.weights.emplace_back(static_cast<std::size_t>(l.weight_count()));
    for (auto& v : ws) v = static_cast<std::int8_t>(pick(g, -2, 5));
    w.params[i].weights = ws;
    if (l.bias) {
      auto& bs = w.biases.emplace_back(static_cast<std::size_t>(l.out.c));
      for (auto& v : bs) v = pick(g, -20, 20);
      w.params[i].bias = bs;
    }
  }
}

/// Sets the divisor of layer `i`'s requantization to the power of two that leaves the most
/// of its outputs strictly inside its clip (on the case's data), so that values spread.
void tune(wide_case& w, std::size_t i, std::mt19937& g) {
  std::int64_t best_d = 1;
  std::size_t best = 0;
  for (std::int64_t d = 1; d <= (std::int64_t{1} << 24); d *= 2) {
    w.layers[i].quant.d = d;
    if (!infer(w.layers).ok()) continue;
    w.weights.clear(), w.biases.clear();
    std::mt19937 same = g;
    bind_params(w, same);
    const auto outs = reference::run(w.layers, w.params, w.input);
    const layer& l = w.layers[i];
    std::size_t inside = 0;
    for (const auto v : outs[i]) inside += v > l.quant.lo && v < l.quant.hi;
    if (inside > best) best = inside, best_d = d;
  }
  w.layers[i].quant.d = best_d;
}

/// Builds a case: input -> conv "a" -> conv "b" -> unclipped sum (9..16 bits; signed when
/// the convs clip to a signed range) -> the consumer -> a pointwise conv when the consumer's
/// output is wide again.
// `form`: a conv consumer's form (0 same, 1 strided, 2 and 3 dilated), drawn when negative.
wide_case make_case(std::mt19937& g, consumer k, int form = -1) {
  for (;;) {
    wide_case w;
    // Pools get larger planes: their whole layer must outgrow the least L1 the convolutions
    // before them need, for a small L1 to cut the wide tensor in tiles.
    const bool pool = k == consumer::maxpool || k == consumer::avgpool;
    const int h = pick(g, pool ? 10 : 6, pool ? 14 : 10),
              wd = pick(g, pool ? 10 : 6, pool ? 14 : 10);
    const int c = pick(g, 2, 6);
    const bool sgn = pick(g, 0, 1) == 1;
    const int lo = sgn ? -128 : 0, hi = sgn ? 127 : 255;
    auto& ls = w.layers;
    ls.push_back(input(h, wd, c));
    ls.push_back(conv2d(c, 3).same().with_bias().requantized(1, 1, lo, hi).named("a"));
    ls.push_back(conv2d(c, 1).with_bias().requantized(1, 1, lo, hi).named("b"));
    const rescale s0{pick(g, 1, 120), pick(g, 0, 9), pick(g, 0, 2), false};
    const rescale s1{pick(g, 1, 120), pick(g, 0, 9), pick(g, 0, 2), false};
    ls.push_back(add("a")
                     .scaled(0, s0)
                     .scaled(1, s1)
                     .requantized(1, pick(g, 1, 3))
                     .unclipped()
                     .named("sum"));
    if (!infer(ls).ok()) continue;
    const int bits = ls[3].out_range.bits();
    if (bits < 9 || bits > 16) continue;
    w.input.resize(static_cast<std::size_t>(h * wd * c));
    for (auto& v : w.input) v = static_cast<std::uint8_t>(pick(g, 0, 255));
    const std::mt19937 data = g;  // the parameters' generator (tune draws the same)
    switch (k) {
      case consumer::conv: {  // padded, strided or dilated (the kernel sums a row's taps at once
                              // unless the dilation separates them)
        const layer base = conv2d(pick(g, 2, 7), 3).with_bias().requantized(1, 1);
        const int f = pick(g, 0, 3);
        switch (form >= 0 ? form : f) {
          case 0:
            ls.push_back(base.same().named("consumer"));
            break;
          case 1:
            ls.push_back(base.strides(2).padded(1).named("consumer"));
            break;
          case 2:
            ls.push_back(base.dilated(1, 2).padded(1, 1, 2, 2).named("consumer"));
            break;
          default:
            ls.push_back(base.dilated(2, 1).padded(0, 1, 1, 0).named("consumer"));
            break;
        }
        break;
      }
      case consumer::pointwise:
        ls.push_back(pointwise(pick(g, 2, 7)).requantized(1, 1).named("consumer"));
        break;
      case consumer::depthwise:
        ls.push_back(depthwise(3).same().with_bias().requantized(1, 1).named("consumer"));
        break;
      case consumer::linear:
        ls.push_back(linear(pick(g, 3, 9)).with_bias().requantized(1, 1).named("consumer"));
        break;
      case consumer::linear_raw:
        ls.push_back(linear(pick(g, 3, 9)).with_bias().raw().named("consumer"));
        break;
      case consumer::maxpool:
        ls.push_back(maxpool(2).named("consumer"));
        break;
      case consumer::avgpool:
        ls.push_back(avgpool(2).requantized(pick(g, 1, 3), 4).unclipped().named("consumer"));
        break;
      case consumer::add8:  // the wide sum and an 8-bit tensor, either order
        if (pick(g, 0, 1) == 1)
          ls.push_back(add("sum", "a").requantized(1, 2).unclipped().named("consumer"));
        else
          ls.push_back(add("a", "sum").requantized(1, 2).unclipped().named("consumer"));
        break;
      case consumer::add16:  // two wide tensors, clipped back to 8 bits
        ls.push_back(add("sum", "sum")
                         .scaled(1, {1, 0, 1, false})
                         .requantized(1, 1)
                         .range(lo, hi)
                         .named("consumer"));
        break;
    }
    if (!infer(ls).ok()) continue;
    const layer& cl = ls.back();
    if (cl.output() == output_kind::u8 && element_bytes(cl.out_range) == 0) continue;
    if (cl.output() == output_kind::u8 && cl.output_bytes_per_element() == 2) {
      ls.push_back(pointwise(3).requantized(1, 1).named("after"));
      if (!infer(ls).ok()) continue;
    }
    std::mt19937 pg = data;
    const bool clipped = cl.kind != op::maxpool && cl.requantize && cl.quant.clips();
    for (std::size_t i = 1; i < ls.size(); ++i)
      if (i != 3 && (i != 4 || clipped)) {
        pg = data;
        tune(w, i, pg);
      }
    if (!infer(ls).ok()) continue;
    w.weights.clear(), w.biases.clear();
    pg = data;
    bind_params(w, pg);
    w.what = std::string(name_of(k)) + " of a " + std::to_string(bits) + "-bit " +
             (sgn ? "signed" : "unsigned") + " sum, " + std::to_string(h) + "x" +
             std::to_string(wd) + "x" + std::to_string(c);
    return w;
  }
}

/// Runs a case on `p` and compares every layer with the reference; returns whether it planned.
/// `tiles`: receives the tile count of the consumer's plan.
bool check_case(const wide_case& w, const platform& p, const char* budget, int* tiles = nullptr) {
  SCOPED_TRACE(w.what + " at " + budget);
  const auto want = reference::run(w.layers, w.params, w.input);
  const auto r = schedule::plan_and_run_on_host(p, w.layers, w.params, w.input);
  if (!r.planned) return false;
  for (const auto& s : r.run.problems) ADD_FAILURE() << s;
  EXPECT_EQ(r.run.outputs.size(), want.size());
  for (std::size_t i = 0; i < want.size() && i < r.run.outputs.size(); ++i) {
    EXPECT_EQ(r.run.outputs[i].size(), want[i].size()) << "layer " << i;
    if (r.run.outputs[i].size() != want[i].size()) continue;
    std::size_t bad = 0;
    for (std::size_t k = 0; k < want[i].size(); ++k) bad += r.run.outputs[i][k] != want[i][k];
    EXPECT_EQ(bad, 0u) << "layer " << i << " (" << op_name(w.layers[i].kind) << ")";
  }
  if (tiles != nullptr) {
    std::vector<layer_plan> plans(w.layers.size());
    plan_layers(w.layers, p, objective::model, plans);
    const layer_plan& lp = plans[4];
    *tiles = lp.n_h * lp.n_w * lp.n_c * (lp.n_k > 1 ? lp.n_k : 1);
  }
  return true;
}

TEST(ExecutorWide, FamilyMatchesTheReference) {
  std::mt19937 g(2024);
  int tiled = 0, cases = 0;
  for (int round = 0; round < 4; ++round)
    for (const consumer k : consumers) {
      const wide_case w = make_case(g, k, round);  // every conv form once
      ++cases;
      // The consumer's output must spread, or bit-exactness says little.
      const auto want = reference::run(w.layers, w.params, w.input);
      const layer& cl = w.layers[4];
      std::set<std::int32_t> distinct(want[4].begin(), want[4].end());
      EXPECT_GT(distinct.size(), want[4].size() / 8 + 1)
          << w.what << ": " << distinct.size() << " distinct values";
      if (cl.kind != op::maxpool && cl.requantize && cl.quant.clips()) {
        std::size_t inside = 0;
        for (const auto v : want[4]) inside += v > cl.quant.lo && v < cl.quant.hi;
        EXPECT_GT(inside, want[4].size() / 4) << w.what << ": the consumer is mostly clipped ("
                                              << inside << " of " << want[4].size() << " inside)";
      }
      EXPECT_TRUE(check_case(w, gap8, "gap8")) << w.what;
      // Smaller L1 budgets until the consumer runs on several tiles.
      int n = 0;
      for (const int l1 : {1024, 512, 384, 256, 192, 128, 96}) {
        const platform small_l1 = gap8.with_stacks(0, 0).with_l1(l1).named("small L1");
        if (check_case(w, small_l1, "small L1", &n) && n > 1) break;
      }
      tiled += n > 1;
      if (n <= 1) ADD_FAILURE() << w.what << ": one tile at every L1 budget";
    }
  EXPECT_EQ(tiled, cases);
}

// A classifier over a 16-bit tensor whose sums leave 32 bits (2048 inputs up to 65280 times
// weights up to 110), its reduction cut in K tiles by a small L1: the partial sums carried from
// one K tile to the next stay exact (64 bits).
TEST(ExecutorWide, KTiledClassifierSumsBeyond32Bits) {
  std::vector<layer> ls{input(16, 16, 8), conv2d(8, 1).requantized(1, 1).named("a"),
                        conv2d(8, 1).requantized(1, 1).named("b"),
                        add("a")
                            .scaled(0, {128, 0, 0, false})
                            .scaled(1, {128, 0, 0, false})
                            .requantized(1, 1)
                            .unclipped()
                            .named("sum"),  // 0..65280
                        linear(6).requantized(1, std::int64_t{1} << 26).named("fc")};
  ASSERT_TRUE(infer(ls).ok());
  ASSERT_EQ(ls[3].output_bytes_per_element(), 2);
  std::vector<std::int8_t> w1(64, 0);
  for (int c = 0; c < 8; ++c) w1[static_cast<std::size_t>(c * 8 + c)] = 1;  // identity
  std::vector<std::int8_t> wf(6 * 2048);
  std::mt19937 g(5);
  for (std::size_t o = 0; o < 6; ++o)  // each output its own scale, so the outputs differ
    for (std::size_t k = 0; k < 2048; ++k)
      wf[o * 2048 + k] = static_cast<std::int8_t>(
          pick(g, 10 + 8 * static_cast<int>(o), 60 + 10 * static_cast<int>(o)));
  const std::vector<layer_params> ps{{}, {w1}, {w1}, {}, {wf}};
  std::vector<std::uint8_t> x(2048);
  for (auto& v : x) v = static_cast<std::uint8_t>(pick(g, 128, 255));
  const auto want = reference::run(ls, ps, x);
  std::int64_t top = 0;  // the largest accumulator: beyond int32
  for (std::size_t o = 0; o < 6; ++o) {
    std::int64_t acc = 0;
    for (std::size_t k = 0; k < 2048; ++k) acc += std::int64_t{want[3][k]} * wf[o * 2048 + k];
    top = acc > top ? acc : top;
  }
  EXPECT_GT(top, std::int64_t{1} << 31);
  const platform small = gap8.with_stacks(0, 0).with_l1(2048).named("2 KiB L1");
  std::vector<layer_plan> plans(ls.size());
  plan_layers(ls, small, objective::model, plans);
  EXPECT_GT(plans[4].n_k, 1);
  const auto r = schedule::plan_and_run_on_host(small, ls, ps, x);
  ASSERT_TRUE(r.planned);
  for (const auto& p : r.run.problems) ADD_FAILURE() << p;
  ASSERT_EQ(r.run.outputs.size(), want.size());
  EXPECT_EQ(r.run.outputs[3], want[3]);
  EXPECT_EQ(r.run.outputs[4], want[4]);
  std::set<std::int32_t> distinct(want[4].begin(), want[4].end());
  EXPECT_GT(distinct.size(), 3u);
}

// The same family on an L2 smaller than the plan's arena with every tensor in L2 (30% to 95% of
// it, no code reserve, no stacks), L3 on: activations and weights staged through L3 by the
// cascade, every layer value by value against the reference, at L1 budgets that keep the
// layers whole and that cut them in tiles.
TEST(ExecutorWide, FamilyOnASmallL2ThroughL3) {
  std::mt19937 g(77);
  int runs = 0, through_l3 = 0;
  for (int round = 0; round < 3; ++round)
    for (const consumer k : consumers) {
      const wide_case w = make_case(g, k);
      std::vector<layer_plan> plans(w.layers.size());
      plan_layers(w.layers, gap8, objective::model, plans);
      std::vector<layer_l2> l2s(w.layers.size());
      const auto whole = finish_network(w.layers, gap8.with_code_reserve(0), plans, l2s);
      ASSERT_TRUE(whole.ok()) << w.what;
      for (int pct = 30; pct <= 95; pct += 5)
        for (const int l1 : {65536, 512}) {
          const int l2 = whole.l2_peak * pct / 100;
          const platform p =
              gap8.with_l1(l1).with_stacks(0, 0).with_code_reserve(0).with_l2(l2).named("small L2");
          SCOPED_TRACE("L2 " + std::to_string(l2) + " of " + std::to_string(whole.l2_peak) +
                       ", L1 " + std::to_string(l1));
          if (!check_case(w, p, "small L2")) continue;
          ++runs;
          std::vector<layer_plan> ps(w.layers.size());
          plan_layers(w.layers, p, objective::model, ps);
          std::vector<layer_l2> ls(w.layers.size());
          through_l3 += finish_network(w.layers, p, ps, ls).l3_used > 0;
        }
    }
  // Most budgets plan (the smallest may not), and those below the arena go through L3.
  EXPECT_GT(runs, 3 * static_cast<int>(std::size(consumers)) * 14);
  EXPECT_GT(through_l3, runs / 2);
}

}  // namespace
