// The L2 <-> L1 loop nest of single layers on the host's simulated DMA, with L1 budgets small
// enough to force many tiles and border tiles, checked value by value against the reference,
// with every DMA completion order the simulator can produce and no checker violation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <ctile/ctile.hpp>
#include <ctile/hal/host.hpp>
#include <ctile/plan/network_plan.hpp>
#include <ctile/plan/search.hpp>
#include <ctile/platform/gap8.hpp>
#include <ctile/reference/reference.hpp>
#include <ctile/schedule/sim_checks.hpp>
#include <ctile/schedule/tile_loop.hpp>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace ctile;

struct layer_data {
  std::vector<std::int8_t> w;
  std::vector<std::int32_t> bias, kappa, lambda;
  layer_params params() const { return {w, bias, kappa, lambda}; }
};

layer_data make_data(const layer& l, std::mt19937& rng) {
  layer_data d;
  std::uniform_int_distribution<int> w(-40, 40), b(-3000, 3000), k(1, 4), lam(-5000, 9000);
  d.w.resize(static_cast<std::size_t>(l.weight_count()));
  for (auto& v : d.w) v = static_cast<std::int8_t>(w(rng));
  const auto n = static_cast<std::size_t>(l.channel_params());
  if (l.bias) {
    d.bias.resize(n);
    for (auto& v : d.bias) v = b(rng);
  }
  if (l.batchnorm) {
    d.kappa.resize(n);
    d.lambda.resize(n);
    for (auto& v : d.kappa) v = k(rng);
    for (auto& v : d.lambda) v = lam(rng);
  }
  return d;
}

struct outcome {
  std::vector<std::int32_t> values;
  std::vector<std::string> problems;
  std::uint32_t max_in_flight = 0;
  std::uint64_t commands = 0;
};

// Runs the layer's loop nest with the whole input, output and weights in a simulated L2, on
// a DMA with limits `Lim` and a cluster of `cores` cores run one at a time or as threads.
template <hal::dma_limits Lim = hal::gap8_dma_limits>
outcome run_tiled(const layer& l, const layer_plan& p, const layer_data& d,
                  const std::vector<std::int32_t>& x, const std::vector<std::int32_t>& x2,
                  hal::completion mode, std::uint64_t seed, int cores,
                  hal::cluster_mode cm = hal::cluster_mode::deterministic) {
  hal::sim_memory mem({mode, seed, 0.5, false});
  const auto in_bytes = static_cast<std::size_t>(l.in.elements());
  const auto out_bytes = static_cast<std::size_t>(l.output_bytes());
  auto l2 = mem.arena(
      hal::mem_level::l2,
      2 * in_bytes + out_bytes + d.w.size() + 4 * (d.bias.size() + 2 * d.kappa.size()) + 64, "L2");
  auto l1 = mem.arena(hal::mem_level::l1, static_cast<std::size_t>(p.l1.total) + 4, "L1");
  auto* base = reinterpret_cast<std::uint8_t*>(l2.data());
  std::uint8_t* in = base;
  std::uint8_t* in2 = in + in_bytes;
  std::uint8_t* out = in2 + in_bytes;
  std::uint8_t* w = out + ((out_bytes + 3) & ~std::size_t{3});
  for (std::size_t i = 0; i < in_bytes; ++i) in[i] = static_cast<std::uint8_t>(x[i]);
  for (std::size_t i = 0; i < x2.size(); ++i) in2[i] = static_cast<std::uint8_t>(x2[i]);
  schedule::pack_weights(l, schedule::weight_block_channels(l, p), d.params(), w,
                         schedule::weight_block_k(l, p));

  hal::basic_host_dma<Lim> dma(mem);
  hal::host_cluster cluster(cores, cm);
  outcome o;
  schedule::exec_env<hal::basic_host_dma<Lim>, hal::host_cluster, schedule::sim_checks> env{
      dma, cluster, {&mem, &o.problems}, cores};
  schedule::l2_operands v;
  v.x = in;
  v.x2 = in2;
  v.y = out;
  v.w = w;
  v.w_n = l.out.c;
  v.row_end = l.out.h;
  v.c_end = l.out.c;
  schedule::run_tiles(env, l, p, kernels::plan_for(l, d.params()), v,
                      reinterpret_cast<std::uint8_t*>(l1.data()));
  mem.finish();
  for (const auto& viol : mem.violations()) o.problems.push_back(viol.text);
  o.max_in_flight = mem.counters().max_in_flight;
  o.commands = mem.counters().commands_on(hal::traffic_path::l2_to_l1) +
               mem.counters().commands_on(hal::traffic_path::l1_to_l2);
  const std::size_t n = static_cast<std::size_t>(l.out.elements());
  o.values.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (l.output() == output_kind::i32) {
      std::int32_t v32;
      std::memcpy(&v32, out + 4 * i, 4);
      o.values[i] = v32;
    } else {
      o.values[i] = out[i];
    }
  }
  return o;
}

void check_layer(std::vector<layer> ls, int l1_bytes, int cores, std::uint32_t seed,
                 bool k_tiles = false) {
  ASSERT_TRUE(infer(ls).ok());
  const layer& l = ls.back();
  // l1_bytes == 0: a third of what the layer needs as a single tile (or the least any tiling
  // needs, if more), to force many tiles and border tiles.
  if (l1_bytes == 0) {
    const layer_plan whole =
        plan_layer(l, gap8.with_stacks(0, 0).with_l1(1 << 24).with_cores(cores));
    l1_bytes = std::max(whole.l1_needed, whole.l1.total / 3);
  }
  const platform plat = gap8.with_stacks(0, 0).with_l1(l1_bytes).with_cores(cores);
  const layer_plan p = plan_layer(l, plat);
  ASSERT_TRUE(p.fits) << "no plan within " << l1_bytes << " bytes";
  // Small budgets must force several tiles, so the double buffering and borders run.
  if (l1_bytes < 36700) {
    EXPECT_GT(p.tiles(), 1) << "the budget did not force tiling";
  }
  // A linear layer whose weight rows cannot fit whole must have its reduction cut.
  if (k_tiles) {
    EXPECT_GT(p.n_k, 1) << "the budget did not force K tiles";
    EXPECT_EQ(p.tile_k % 4, 0);
    EXPECT_LE(p.l1.total, plat.l1_budget());
  }
  std::mt19937 rng(seed);
  const layer_data d = make_data(l, rng);
  std::uniform_int_distribution<int> px(0, 255);
  std::vector<std::int32_t> x(static_cast<std::size_t>(l.in.elements())), x2;
  for (auto& v : x) v = px(rng);
  if (l.kind == op::add) {
    x2.resize(x.size());
    for (auto& v : x2) v = px(rng);
  }
  const auto expected = reference::run_layer(l, d.params(), x, x2);
  for (auto mode : {hal::completion::at_wait, hal::completion::random}) {
    const outcome o = run_tiled(l, p, d, x, x2, mode, seed, cores);
    SCOPED_TRACE(testing::Message()
                 << op_name(l.kind) << " tiles " << p.tile_h << "x" << p.tile_w << "x" << p.tile_c
                 << " (" << p.n_h << "x" << p.n_w << "x" << p.n_c << ") k " << p.tile_k << " ("
                 << p.n_k << ") split " << split_name(p.split.kind));
    for (const auto& s : o.problems) ADD_FAILURE() << s;
    ASSERT_EQ(o.values.size(), expected.size());
    std::size_t bad = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) bad += o.values[i] != expected[i];
    EXPECT_EQ(bad, 0u);
  }
}

TEST(TileLoop, ConvManyTilesAndBorders) {
  check_layer({input(19, 23, 8), conv2d(12, 3).same().bn().requantized(1, 512)}, 0, 8, 1);
  check_layer({input(20, 9, 3), conv2d(6, 3).strides(2).padded(1, 0, 1, 0).with_bias()}, 0, 3, 2);
  check_layer({input(49, 10, 1),
               conv2d(16, 10, 4).strides(2).padded(4, 5, 1, 1).bn().requantized(3, 16777215)},
              0, 8, 3);
}

TEST(TileLoop, PointwiseAndDepthwise) {
  check_layer({input(16, 16, 32), pointwise(24).bn().requantized(1, 1024)}, 0, 8, 4);
  check_layer({input(15, 17, 20), depthwise(3).same().bn().requantized(1, 256)}, 0, 8, 5);
  check_layer(
      {input(16, 16, 16), depthwise(3).strides(2).padded(1, 0, 1, 0).bn().requantized(1, 128)}, 0,
      5, 6);
}

TEST(TileLoop, LinearPoolsAndAdd) {
  check_layer({input(4, 4, 16), linear(40).with_bias().raw()}, 0, 8, 7);
  check_layer({input(2, 2, 64), linear(30).bn().requantized(1, 2048)}, 0, 4, 8);
  check_layer({input(16, 16, 8), maxpool(2)}, 0, 8, 9);
  check_layer({input(9, 9, 6), avgpool(3).strides(2).padded(1)}, 0, 8, 10);
  check_layer({input(8, 8, 12), global_avgpool().requantized(3, 128)}, 0, 8, 11);
  check_layer({input(10, 10, 8), conv2d(8, 1).named("a"),
               add("a").scaled(0, {3, 1, 1, true}).scaled(1, {1, 0, 1, false})},
              0, 8, 12);
}

// Fully connected layers whose weight rows do not fit L1 whole: the reduction is cut in K
// tiles with int32 partial sums in L1; odd reductions leave a short last K tile.
TEST(TileLoop, LinearWithTheReductionInKTiles) {
  check_layer({input(8, 8, 64), linear(10).with_bias().bn().requantized(1, 1 << 16)}, 3000, 8, 14,
              true);
  check_layer({input(5, 5, 33), linear(37).with_bias().raw()}, 1500, 3, 15, true);
  check_layer({input(1, 1, 1001), linear(100).bn().requantized(1, 4096)}, 2048, 8, 16, true);
  check_layer({input(3, 7, 5), linear(6).requantized(1, 300)}, 160, 1, 17, true);
}

// The depthwise input's HWC -> CHW marshalling is programmed by the cores, each its share of
// the channels with one command in flight: on 8 and on 3 cores, run one at a time or as
// threads, with every completion order, tiles spanning whole rows (one command per channel)
// or not (one per channel and row), and on a DMA whose small commands force the split path.
// Every output value matches the reference, the checker sees no violation (no command past
// the limits, no more commands in flight than counters), and the commands are as many as
// the marshalling needs.
// With `tile` non-zero, the plan uses output tiles of tile.h x tile.w x tile.c instead of the
// planner's choice.
void check_marshalling(std::vector<layer> ls, int l1_bytes, int cores, std::uint32_t seed,
                       shape tile = {}) {
  ASSERT_TRUE(infer(ls).ok());
  const layer& l = ls.back();
  const platform plat = gap8.with_stacks(0, 0).with_l1(l1_bytes).with_cores(cores);
  const tiling_problem prob = make_problem(l, plat);
  const layer_plan p =
      tile.c > 0 ? make_layer_plan(prob, tile.c, tile.h, tile.w, cost::default_split(prob))
                 : plan_layer(l, plat);
  ASSERT_TRUE(p.fits) << "no plan within " << l1_bytes << " bytes";
  ASSERT_GT(p.tiles(), 2) << "the budget did not force tiling";
  std::mt19937 rng(seed);
  const layer_data d = make_data(l, rng);
  std::uniform_int_distribution<int> px(0, 255);
  std::vector<std::int32_t> x(static_cast<std::size_t>(l.in.elements()));
  for (auto& v : x) v = px(rng);
  const auto expected = reference::run_layer(l, d.params(), x, {});
  // Small commands: a channel's plane (or row) of more than 6 bytes splits.
  constexpr hal::dma_limits small{6, 65535, 32767, 32767, 16, true};
  for (auto cm : {hal::cluster_mode::deterministic, hal::cluster_mode::threads}) {
    for (auto mode : {hal::completion::at_wait, hal::completion::random}) {
      for (int variant = 0; variant < 2; ++variant) {
        const outcome o = variant == 0
                              ? run_tiled(l, p, d, x, {}, mode, seed + 17, cores, cm)
                              : run_tiled<small>(l, p, d, x, {}, mode, seed + 17, cores, cm);
        SCOPED_TRACE(testing::Message()
                     << "tiles " << p.tile_h << "x" << p.tile_w << "x" << p.tile_c << " (" << p.n_h
                     << "x" << p.n_w << "x" << p.n_c << ") on " << cores << " cores, "
                     << (cm == hal::cluster_mode::threads ? "threads" : "deterministic")
                     << (variant == 1 ? ", 6-byte commands" : ""));
        for (const auto& s : o.problems) ADD_FAILURE() << s;
        EXPECT_LE(o.max_in_flight, 16u);
        ASSERT_EQ(o.values.size(), expected.size());
        std::size_t bad = 0;
        for (std::size_t i = 0; i < expected.size(); ++i) bad += o.values[i] != expected[i];
        EXPECT_EQ(bad, 0u);
        // At least one command per channel of every input tile (more when tiles do not span
        // whole rows or commands split), plus the weights' and outputs'.
        EXPECT_GE(o.commands, static_cast<std::uint64_t>(p.n_h) * p.n_w * l.in.c);
      }
    }
  }
}

TEST(TileLoop, DepthwiseMarshalledByCores) {
  // Tiles narrower than the input (one command per channel and row), and of whole rows.
  check_marshalling({input(15, 17, 20), depthwise(3).same().bn().requantized(1, 256)}, 36700, 8, 21,
                    shape{5, 6, 12});
  check_marshalling({input(15, 17, 20), depthwise(3).same().bn().requantized(1, 256)}, 2600, 8, 24);
  // Tiles of whole rows; stride 2 and one-sided padding; fewer cores than channels per tile.
  check_marshalling(
      {input(16, 16, 16), depthwise(3).strides(2).padded(1, 0, 1, 0).bn().requantized(1, 128)},
      2400, 3, 22);
  check_marshalling({input(8, 8, 40), depthwise(3).same().with_bias().requantized(1, 64)}, 3000, 8,
                    23);
}

TEST(TileLoop, GapBudgetsSingleTile) {
  check_layer({input(32, 32, 3), conv2d(32, 3).same().bn().requantized(1, 1024)}, 36700, 8, 13);
}

}  // namespace

namespace {

// The image of a layer's constant data, built block by block from the documented layout:
// per block of `g` output channels, their weights, then their bias, kappa and lambda.
std::vector<std::uint8_t> blocks_by_hand(const layer& l, const layer_data& d, int g, int tk) {
  std::vector<std::uint8_t> img;
  const auto wpc = static_cast<std::size_t>(l.weight_count() / l.out.c);
  const auto append = [&](const void* p, std::size_t n) {
    const auto* b = static_cast<const std::uint8_t*>(p);
    img.insert(img.end(), b, b + n);
  };
  for (int c0 = 0; c0 < l.out.c; c0 += g) {
    const auto first = static_cast<std::size_t>(c0);
    const auto n = static_cast<std::size_t>(std::min(g, l.out.c - c0));
    if (tk > 0) {  // by K tile: the block's channels' first tk weights, then the next
      for (std::size_t k0 = 0; k0 < wpc; k0 += static_cast<std::size_t>(tk))
        for (std::size_t c = first; c < first + n; ++c)
          append(d.w.data() + c * wpc + k0, std::min(static_cast<std::size_t>(tk), wpc - k0));
    } else {
      append(d.w.data() + first * wpc, n * wpc);
    }
    for (const auto* a : {&d.bias, &d.kappa, &d.lambda})
      if (!a->empty()) append(a->data() + first, 4 * n);
  }
  return img;
}

}  // namespace

// A channel tile whose weights end on a word keeps its weights and parameters together in L2
// (a block per tile) and in L1 (the parameter buffer right after the weight buffer): one
// command brings both. Other tiles keep the layer as one block. The image has the data's
// bytes in both cases, the values match the reference, and the merged tiles take one weight
// command per channel tile.
TEST(TileLoop, WeightsAndParametersInOneCommand) {
  struct layer_case {
    std::vector<layer> ls;
    shape tile;
    bool merged;
    int tk = 0;  // a linear layer's K tile (0: the whole reduction)
  };
  const std::vector<layer_case> cases = {
      // 8 weights per channel, tiles of 4 channels and a last one of 2: blocks of 4.
      {{input(6, 5, 8), pointwise(10).bn().with_bias().requantized(1, 512)}, {6, 5, 4}, true},
      // Conv 3x3 over 3 channels (27 weights), tiles of 4 channels, last of 1: one block.
      {{input(7, 6, 3), conv2d(5, 3).same().bn().requantized(1, 256)}, {7, 6, 4}, false},
      // Depthwise 3x3 (9 weights), tiles of 8 channels, last of 4: blocks of 8.
      {{input(6, 6, 20), depthwise(3).same().bn().requantized(1, 128)}, {6, 6, 8}, true},
      // Linear with bias only, tiles of 3 channels (3 x 20 weights), last of 1: blocks of 3.
      {{input(2, 2, 5), linear(7).with_bias().requantized(1, 300)}, {1, 1, 3}, true},
      // The same cut in K tiles of 12 and 8 bytes: blocks of 3 channels by K tile, the last K
      // tile's weights (3 x 8 bytes, and 1 x 8) followed by the parameters.
      {{input(2, 2, 5), linear(7).with_bias().bn().requantized(1, 300)}, {1, 1, 3}, true, 12},
      // K tiles of 12 and 9 bytes: 3 x 9 bytes do not end on a word, one block.
      {{input(3, 7, 1), linear(7).with_bias().requantized(1, 300)}, {1, 1, 3}, false, 12},
  };
  for (const auto& k : cases) {
    std::vector<layer> ls = k.ls;
    ASSERT_TRUE(infer(ls).ok());
    const layer& l = ls.back();
    const platform plat = gap8.with_stacks(0, 0).with_cores(8);
    const tiling_problem prob = make_problem(l, plat);
    const layer_plan p =
        make_layer_plan(prob, k.tile.c, k.tile.h, k.tile.w, cost::default_split(prob), k.tk);
    ASSERT_EQ(p.n_k > 1, k.tk > 0);
    SCOPED_TRACE(testing::Message() << op_name(l.kind) << ", tiles of " << p.tile_c << " channels");
    ASSERT_TRUE(p.fits);
    ASSERT_GT(p.n_c, 1);
    EXPECT_EQ(schedule::tile_data_merged(l, p), k.merged);
    // In L1 each weight buffer is followed by its parameter buffer.
    for (int b = 0; b < 2; ++b) EXPECT_EQ(p.l1.kl[b], p.l1.w[b] + ((p.w_bytes + 3) & ~3));

    std::mt19937 rng(77);
    const layer_data d = make_data(l, rng);
    const int g = schedule::weight_block_channels(l, p);
    EXPECT_EQ(g, k.merged ? p.tile_c : l.out.c);
    std::vector<std::uint8_t> img(static_cast<std::size_t>(plan_detail::weight_bytes(l)), 0xA5);
    const int tk = schedule::weight_block_k(l, p);
    EXPECT_EQ(tk, k.merged ? k.tk : 0);
    schedule::pack_weights(l, g, d.params(), img.data(), tk);
    EXPECT_EQ(img, blocks_by_hand(l, d, g, tk));

    std::uniform_int_distribution<int> px(0, 255);
    std::vector<std::int32_t> x(static_cast<std::size_t>(l.in.elements()));
    for (auto& v : x) v = px(rng);
    const auto expected = reference::run_layer(l, d.params(), x, {});
    const outcome o = run_tiled(l, p, d, x, {}, hal::completion::random, 5, 8);
    for (const auto& s : o.problems) ADD_FAILURE() << s;
    ASSERT_EQ(o.values.size(), expected.size());
    std::size_t bad = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) bad += o.values[i] != expected[i];
    EXPECT_EQ(bad, 0u);
    // One spatial tile: the input once, then per channel tile its output and its weights:
    // one command when merged, else one more per parameter array. A linear layer's weights
    // come by K tile, and its outputs leave by buffers of channel tiles (here the whole).
    if (l.kind != op::depthwise) {
      const int arrays = (l.bias ? 1 : 0) + (l.batchnorm ? 2 : 0);
      const auto nc = static_cast<std::uint64_t>(p.n_c), nk = static_cast<std::uint64_t>(p.n_k);
      if (l.kind == op::linear) {
        ASSERT_EQ(p.x_copies, 1);
        ASSERT_EQ(p.y_copies, 1);
        EXPECT_EQ(o.commands, 1 + nc * (nk + (k.merged ? 0 : arrays)) + 1);
      } else {
        EXPECT_EQ(o.commands, 1 + (2 + (k.merged ? 0 : arrays)) * nc);
      }
    }
    if (!k.merged) continue;
    // A plan whose parameter buffers do not follow its weight buffers (moved past the rest of
    // L1) is not merged: the layer stays one block, and the values still match.
    layer_plan moved = p;
    const int kl = (p.kl_bytes + 3) & ~3;
    moved.l1.kl[0] = p.l1.total;
    moved.l1.kl[1] = p.l1.total + kl;
    moved.l1.total += 2 * kl;
    EXPECT_FALSE(schedule::tile_data_merged(l, moved));
    EXPECT_EQ(schedule::weight_block_channels(l, moved), l.out.c);
    const outcome m = run_tiled(l, moved, d, x, {}, hal::completion::random, 6, 8);
    for (const auto& s : m.problems) ADD_FAILURE() << s;
    ASSERT_EQ(m.values.size(), expected.size());
    bad = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) bad += m.values[i] != expected[i];
    EXPECT_EQ(bad, 0u);
  }
}

// Dilated convolutions and padding of any size (as large as the window or larger), conv and
// depthwise, 1-D (H = 1, a TCN layer) and 2-D, through the generic loop nest: each layer
// planned under three L1 budgets — the least its tiles need (the smallest tiles: rows and
// columns of a few outputs, whose first and last tiles meet the padding), a third of the
// whole layer, and the whole layer — and checked value by value against the reference.
TEST(TileLoop, DilatedAndOverPaddedSweep) {
  std::mt19937 rng(2024);
  const auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int row_tiled = 0, col_tiled = 0;
  for (int n = 0; n < 24; ++n) {
    const bool dw = n % 3 == 2;
    const bool one_d = n % 4 == 1;
    const int kh = one_d ? 1 : uni(1, 3), kw = uni(1, one_d ? 5 : 3);
    const int dh = one_d ? 1 : uni(1, 3), dwl = one_d ? 1 << uni(0, 3) : uni(1, 3);
    const int eh = (kh - 1) * dh + 1, ew = (kw - 1) * dwl + 1;
    const auto p = [&](int e) { return uni(0, 2) == 0 ? 0 : uni(0, e + 2); };
    layer l = (dw ? depthwise(kh, kw) : conv2d(uni(1, 12), kh, kw))
                  .dilated(dh, dwl)
                  .strides(one_d ? 1 : uni(1, 2), uni(1, 2))
                  .padded(one_d ? 0 : p(eh), one_d ? 0 : p(eh), p(ew), p(ew))
                  .with_bias()
                  .bn()
                  .requantized(1, 1 << uni(6, 10));
    std::vector<layer> ls;
    do {
      ls = {input(one_d ? 1 : uni(eh, eh + 12), uni(ew, ew + 30), uni(1, 12)), l};
    } while (!infer(ls).ok());
    const layer& L = ls.back();
    SCOPED_TRACE(testing::Message()
                 << (dw ? "depthwise " : "conv ") << kh << "x" << kw << " dilation " << dh << "x"
                 << dwl << " stride " << L.stride.h << "x" << L.stride.w << " pads " << L.pad.t
                 << "," << L.pad.b << "," << L.pad.l << "," << L.pad.r << " input " << L.in.h << "x"
                 << L.in.w << "x" << L.in.c);
    const int cores = uni(1, 8);
    const layer_plan whole =
        plan_layer(L, gap8.with_stacks(0, 0).with_l1(1 << 24).with_cores(cores));
    for (int budget : {whole.l1_needed, std::max(whole.l1_needed, whole.l1.total / 3), 1 << 24}) {
      const layer_plan pl = plan_layer(L, gap8.with_stacks(0, 0).with_l1(budget).with_cores(cores));
      if (!pl.fits) continue;  // the least need can be below every tiling that reads its input
      row_tiled += pl.n_h > 1;
      col_tiled += pl.n_w > 1;
      check_layer(ls, budget, cores, static_cast<std::uint32_t>(100 + n));
    }
  }
  EXPECT_GT(row_tiled, 5);
  EXPECT_GT(col_tiled, 5);
}
