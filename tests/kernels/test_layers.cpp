// Every kernel against ctile::reference, bit-exact, on randomized layers: kernel sizes 1x1,
// 3x3, 5x5, 10x4 and more, strides 1/2, asymmetric padding, Cout not a multiple of 4, odd
// widths; on tiles cut from the layer (border tiles with their own padding, channel tiles),
// under every split policy and core count 1..8, cores run one after the other or as threads
// meeting at a barrier.
#include <gtest/gtest.h>

#include <algorithm>
#include <barrier>
#include <cstdint>
#include <ctile/kernels/kernels.hpp>
#include <ctile/kernels/layer_args.hpp>
#include <ctile/network/infer.hpp>
#include <ctile/reference/reference.hpp>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

using namespace ctile;
using namespace ctile::kernels;
using rng_t = std::mt19937;

int uniform(rng_t& g, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(g);
}

/// A layer with data, its inputs and the reference output of the whole layer.
struct layer_case {
  layer l;
  std::vector<std::int8_t> w;
  std::vector<std::int32_t> bias, kappa, lambda;
  std::vector<std::int32_t> x, x2;
  reference::values ref;
  [[nodiscard]] layer_params params() const { return {w, bias, kappa, lambda}; }
};

/// Requantization constants that keep outputs mostly inside 0..255 for a typical |t|.
requant pick_quant(rng_t& g, double typical) {
  const std::int64_t ds[] = {1, 2, 3, 7, 256, 1000, 4096, 65535, (1 << 24) - 1};
  const std::int64_t d = ds[uniform(g, 0, 8)];
  const double m = 160.0 * static_cast<double>(d) / (typical > 1 ? typical : 1);
  const auto mi = static_cast<std::int64_t>(m < 1 ? 1 : (m > 2e9 ? 2e9 : m));
  const int hi = uniform(g, 0, 4) == 0 ? 15 : 255;
  return {mi, d, 0, hi};
}

layer_case make_case(std::vector<layer> ls, rng_t& g) {
  EXPECT_TRUE(infer(ls).ok());
  layer_case c;
  c.l = ls.back();
  const layer& l = c.l;
  c.w.resize(static_cast<std::size_t>(l.weight_count()));
  for (auto& v : c.w) v = static_cast<std::int8_t>(uniform(g, -128, 127));
  const auto ch = static_cast<std::size_t>(l.channel_params());
  if (l.bias) {
    c.bias.resize(ch);
    for (auto& v : c.bias) v = uniform(g, -20000, 20000);
  }
  if (l.batchnorm) {
    c.kappa.resize(ch);
    c.lambda.resize(ch);
    for (auto& v : c.kappa) v = uniform(g, -4, 40);
    for (auto& v : c.lambda) v = uniform(g, -100000, 100000);
  }
  c.x.resize(static_cast<std::size_t>(l.in.elements()));
  // Inputs over the layer's proven input ranges (signed ones held as two's complement).
  for (auto& v : c.x) v = uniform(g, l.in_range.lo, l.in_range.hi);
  if (l.kind == op::add) {
    c.x2.resize(c.x.size());
    for (auto& v : c.x2) v = uniform(g, l.in2_range.lo, l.in2_range.hi);
  }
  c.ref = reference::run_layer(l, c.params(), c.x, c.x2);
  return c;
}

double typical_t(const layer& l, bool bn) {
  double taps = l.kind == op::conv        ? l.kernel.h * l.kernel.w * l.in.c
                : l.kind == op::depthwise ? l.kernel.h * l.kernel.w
                                          : static_cast<double>(l.in.elements());
  return 127.0 * 74.0 * std::sqrt(taps) * (bn ? 20 : 1) + 1;
}

/// An output tile of the layer (rows, cols, channels) with the input it needs.
struct tile {
  int oy0, oy1, ox0, ox1, c0, c1;
};

tile random_tile(const layer& l, rng_t& g, bool whole) {
  if (whole) return {0, l.out.h, 0, l.out.w, 0, l.out.c};
  const auto span = [&](int n, int& a, int& b) {
    a = uniform(g, 0, n - 1);
    b = uniform(g, a + 1, n);
  };
  tile t{};
  span(l.out.h, t.oy0, t.oy1);
  span(l.out.w, t.ox0, t.ox1);
  span(l.out.c, t.c0, t.c1);
  if (l.kind == op::linear) t.oy0 = 0, t.oy1 = 1, t.ox0 = 0, t.ox1 = 1;
  return t;
}

/// kernels::run_as with the variant the arguments state (kind; bias, batch-norm, channel-major
/// output, signed inputs as constants) for convolutions, kernels::run otherwise: what the
/// executor's loop nests call. The sequential runs below go through it, the threaded ones
/// through kernels::run, each against the reference.
void run_as_args(kernel_kind k, const tile_args& b, int core) {
  if (k != kernel_kind::conv && k != kernel_kind::pointwise) return kernels::run(k, b, core);
  const int key = (k == kernel_kind::pointwise ? 16 : 0) + (b.bias != nullptr ? 8 : 0) +
                  (b.kappa != nullptr ? 4 : 0) + (b.out_chw ? 2 : 0) + (b.in_signed ? 1 : 0);
  [&]<int... K>(std::integer_sequence<int, K...>) {
    (void)((key == K ? (kernels::run_as<kernel_variant{
                            static_cast<int>(K >= 16 ? kernel_kind::pointwise : kernel_kind::conv),
                            (K >> 3) & 1, (K >> 2) & 1, (K >> 1) & 1, K & 1}>(k, b, core),
                        true)
                     : false) ||
           ...);
  }
  (std::make_integer_sequence<int, 32>{});
}

/// Runs the kernel for the tile on `cores` cores under `split` and compares with the
/// reference cut to the tile.
struct tile_run {
  const layer_case& c;
  tile t;
  bool worst_plan;
  kernel_kind kind;
  tile_args a{};
  std::vector<std::uint8_t> in, in2;
  std::vector<std::int32_t> want;  // reference values of the tile, HWC

  tile_run(const layer_case& lc, tile tt, bool worst) : c(lc), t(tt), worst_plan(worst) {
    const layer& l = c.l;
    kind = kind_of(l);
    a = layer_args(l, c.params());
    if (worst && l.requantize && l.kind != op::maxpool)
      a.quant = plan_requant(l.quant, worst_t_range(l));
    const int nc = t.c1 - t.c0;
    a.h_out = t.oy1 - t.oy0, a.w_out = t.ox1 - t.ox0, a.c_out = nc;
    // Input rows/cols the tile reads, and the tile's own padding.
    const bool windowed = l.kind != op::linear && l.kind != op::add;
    int iy0 = t.oy0, iy1 = t.oy1, ix0 = t.ox0, ix1 = t.ox1;
    if (windowed) {
      const input_window win = window_of(l, t.oy0, t.oy1, t.ox0, t.ox1);
      iy0 = win.iy0, iy1 = win.iy1, ix0 = win.ix0, ix1 = win.ix1;
      a.pad_t = win.pad_t, a.pad_b = win.pad_b, a.pad_l = win.pad_l, a.pad_r = win.pad_r;
    }
    if (l.kind == op::linear) iy0 = 0, iy1 = l.in.h, ix0 = 0, ix1 = l.in.w;
    a.h_in = iy1 - iy0, a.w_in = ix1 - ix0;
    const bool all_channels_in = l.kind == op::conv || l.kind == op::linear;
    const int cin0 = all_channels_in ? 0 : t.c0;
    a.c_in = all_channels_in ? l.in.c : nc;
    const auto at = [&](const std::vector<std::int32_t>& v, int y, int x, int ch) {
      return static_cast<std::uint8_t>(
          v[(static_cast<std::size_t>(y) * static_cast<std::size_t>(l.in.w) +
             static_cast<std::size_t>(x)) *
                static_cast<std::size_t>(l.in.c) +
            static_cast<std::size_t>(ch)]);
    };
    for (int y = iy0; y < iy1; ++y)
      for (int x = ix0; x < ix1; ++x)
        for (int ch = cin0; ch < cin0 + a.c_in; ++ch) {
          in.push_back(at(c.x, y, x, ch));
          if (!c.x2.empty()) in2.push_back(at(c.x2, y, x, ch));
        }
    if (l.kind == op::depthwise) {  // HWC -> CHW
      std::vector<std::uint8_t> chw(in.size());
      for (int y = 0; y < a.h_in; ++y)
        for (int x = 0; x < a.w_in; ++x)
          for (int ch = 0; ch < a.c_in; ++ch)
            chw[(static_cast<std::size_t>(ch) * a.h_in + y) * a.w_in + x] =
                in[(static_cast<std::size_t>(y) * a.w_in + x) * a.c_in + ch];
      in = chw;
    }
    // Parameters offset to the tile's first output channel.
    const long per = l.kind == op::conv        ? long{l.kernel.h} * l.kernel.w * l.in.c
                     : l.kind == op::depthwise ? long{l.kernel.h} * l.kernel.w
                     : l.kind == op::linear    ? static_cast<long>(l.in.elements())
                                               : 0;
    if (a.weights) a.weights += per * t.c0;
    if (a.bias) a.bias += t.c0;
    if (a.kappa) a.kappa += t.c0, a.lambda += t.c0;
    for (int y = t.oy0; y < t.oy1; ++y)
      for (int x = t.ox0; x < t.ox1; ++x)
        for (int ch = t.c0; ch < t.c1; ++ch)
          want.push_back(c.ref[(static_cast<std::size_t>(y) * static_cast<std::size_t>(l.out.w) +
                                static_cast<std::size_t>(x)) *
                                   static_cast<std::size_t>(l.out.c) +
                               static_cast<std::size_t>(ch)]);
  }

  /// Runs every core (sequentially, or as threads meeting at a barrier) and compares; `chw`:
  /// the output stored channel-major.
  ::testing::AssertionResult run(int cores, core_split split, bool threads,
                                 bool chw = false) const {
    const bool raw = a.quant.mode == requant_mode::raw && kind == kernel_kind::linear;
    // Output pre-filled with the complement of the expected value: an output a core forgets
    // to write cannot match.
    std::vector<std::int32_t> out32(want.size());
    std::vector<std::uint8_t> out8(want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      out32[i] = ~want[i];
      out8[i] = static_cast<std::uint8_t>(~want[i]);
    }
    tile_args b = a;
    b.in = in.data();
    b.in2 = in2.empty() ? nullptr : in2.data();
    b.out = raw ? static_cast<void*>(out32.data()) : static_cast<void*>(out8.data());
    b.cores = cores;
    b.split = split;
    b.out_chw = chw;
    std::vector<std::uint32_t> scratch(static_cast<std::size_t>(scratch_bytes(kind, b) / 4 + 1));
    b.scratch = reinterpret_cast<std::uint8_t*>(scratch.data());
    b.core = 0;
    if (auto p = check(kind, b); p != args_problem::none)
      return ::testing::AssertionFailure() << "arguments rejected: " << problem_text(p);
    if (threads) {
      std::barrier sync(cores);
      std::vector<std::thread> ts;
      for (int i = 0; i < cores; ++i)
        ts.emplace_back([&, i] {
          kernels::run(kind, b, i);  // the cores share one argument block
          sync.arrive_and_wait();
        });
      for (auto& th : ts) th.join();
    } else {
      for (int i = 0; i < cores; ++i) {
        tile_args mine = b;
        mine.core = i;
        run_as_args(kind, mine, i);
      }
    }
    // want[i] is HWC: pixel i / c_out, channel i % c_out.
    const auto where = [&](std::size_t i) {
      if (!chw) return i;
      const auto c_out = static_cast<std::size_t>(b.c_out);
      const auto plane = static_cast<std::size_t>(b.h_out) * static_cast<std::size_t>(b.w_out);
      return (i % c_out) * plane + i / c_out;
    };
    const bool s8 = c.l.out_range.is_signed();  // signed outputs: two's-complement bytes
    for (std::size_t i = 0; i < want.size(); ++i) {
      const std::uint8_t byte = out8[where(i)];
      const std::int32_t got =
          raw ? out32[where(i)] : (s8 ? std::int32_t{static_cast<std::int8_t>(byte)} : byte);
      if (got != want[i])
        return ::testing::AssertionFailure()
               << op_name(c.l.kind) << " output " << i << ": got " << got << " want " << want[i]
               << " | cores " << cores << " split " << split_name(split.kind) << " " << split.v
               << "x" << split.k << " tile y[" << t.oy0 << "," << t.oy1 << ") x[" << t.ox0 << ","
               << t.ox1 << ") c[" << t.c0 << "," << t.c1 << ") pad " << b.pad_t << b.pad_b
               << b.pad_l << b.pad_r << " mode " << int(a.quant.mode);
    }
    return ::testing::AssertionSuccess();
  }
};

std::vector<core_split> splits_for(int cores) {
  std::vector<core_split> s{{split_kind::rows}, {split_kind::cols}, {split_kind::channels}};
  for (int v = 1; v <= cores; ++v)
    if (cores % v == 0) s.push_back({split_kind::grid, v, cores / v});
  if (cores >= 3) s.push_back({split_kind::grid, 2, 1});  // fewer groups than cores: idle cores
  return s;
}

/// Every core count and split on a few tiles of the case (one of them the whole layer).
void check_case(const layer_case& c, rng_t& g, int tiles, bool chw = false) {
  for (int n = 0; n < tiles; ++n) {
    const tile_run r(c, random_tile(c.l, g, n == 0), n % 2 == 1);
    for (int cores = 1; cores <= 8; ++cores)
      for (const core_split& s : splits_for(cores)) ASSERT_TRUE(r.run(cores, s, false, chw));
  }
}

struct kernel_shape {
  int kh, kw;
};
const kernel_shape conv_kernels[] = {{1, 1}, {3, 3}, {5, 5}, {10, 4}, {1, 3}, {3, 1}, {2, 2}};

layer random_window(layer base, rng_t& g, kernel_shape k) {
  base = base.kernel_size(k.kh, k.kw).strides(uniform(g, 1, 2), uniform(g, 1, 2));
  if (uniform(g, 0, 3) != 0)
    base = base.padded(uniform(g, 0, k.kh - 1), uniform(g, 0, k.kh - 1), uniform(g, 0, k.kw - 1),
                       uniform(g, 0, k.kw - 1));
  return base;
}

layer input_for(const layer& l, rng_t& g, int c) {
  const int h = std::max(1, l.kernel.h - l.pad.t - l.pad.b) + uniform(g, 0, 7);
  const int w = std::max(1, l.kernel.w - l.pad.l - l.pad.r) + uniform(g, 0, 8);
  return input(h, w, c);
}

TEST(Kernels, ConvAndPointwiseRandomized) {
  rng_t g(1);
  for (int n = 0; n < 70; ++n) {
    const kernel_shape k = conv_kernels[n % 7];
    const bool bn = uniform(g, 0, 1) == 1, bias = uniform(g, 0, 1) == 1;
    layer l = random_window(conv2d(uniform(g, 1, 13), k.kh, k.kw), g, k);
    if (bias) l = l.with_bias();
    if (bn) l = l.bn();
    const layer in = input_for(l, g, uniform(g, 1, 12));
    std::vector<layer> ls{in, l};
    ASSERT_TRUE(infer(ls).ok());
    const requant q = pick_quant(g, typical_t(ls[1], bn));
    const layer_case c = make_case({in, l.requantized(q.m, q.d, q.lo, q.hi)}, g);
    SCOPED_TRACE("conv " + std::to_string(k.kh) + "x" + std::to_string(k.kw) + " case " +
                 std::to_string(n));
    check_case(c, g, 3);
  }
}

// The same kernels storing their output channel-major (a depthwise layer's input, kept CHW):
// every path (4 x 4 blocks across whole rows, pairs, single pixels, leftover channels, im2col
// and the generic K mod 4 path) with the channel stride of the tile's plane.
TEST(Kernels, ConvAndPointwiseChannelMajorOutput) {
  rng_t g(11);
  for (int n = 0; n < 56; ++n) {
    const kernel_shape k = conv_kernels[n % 7];
    const bool bn = uniform(g, 0, 1) == 1, bias = uniform(g, 0, 1) == 1;
    layer l = conv2d(uniform(g, 1, 21), k.kh, k.kw);
    // Every other case a pointwise layer at stride 1 (the whole-row 4 x 4 blocks).
    if (n % 2 == 1 || k.kh != 1 || k.kw != 1) l = random_window(l, g, k);
    if (bias) l = l.with_bias();
    if (bn) l = l.bn();
    // Input channels mostly whole words (in-place reads), every fourth case any count.
    const layer in = input_for(l, g, n % 4 == 3 ? uniform(g, 1, 11) : 4 * uniform(g, 1, 3));
    std::vector<layer> ls{in, l};
    ASSERT_TRUE(infer(ls).ok());
    const requant q = pick_quant(g, typical_t(ls[1], bn));
    const layer_case c = make_case({in, l.requantized(q.m, q.d, q.lo, q.hi)}, g);
    SCOPED_TRACE("channel-major conv " + std::to_string(k.kh) + "x" + std::to_string(k.kw) +
                 " case " + std::to_string(n));
    check_case(c, g, 3, true);
  }
}

TEST(Kernels, ChannelMajorOutputOnlyForConvolutions) {
  tile_args a;
  std::uint8_t buf[16] = {};
  const std::int8_t w[16] = {};
  a.in = buf, a.out = buf, a.weights = w, a.scratch = buf;
  a.h_in = a.w_in = a.h_out = a.w_out = 2, a.c_in = a.c_out = 2;
  a.out_chw = true;
  EXPECT_EQ(check(kernel_kind::pointwise, a), args_problem::none);
  EXPECT_EQ(check(kernel_kind::depthwise, a), args_problem::bad_layout);
  EXPECT_EQ(check(kernel_kind::maxpool, a), args_problem::bad_layout);
}

TEST(Kernels, DepthwiseRandomized) {
  rng_t g(2);
  for (int n = 0; n < 60; ++n) {
    const kernel_shape k = conv_kernels[n % 7];
    const bool bn = uniform(g, 0, 1) == 1, bias = uniform(g, 0, 1) == 1;
    layer l = random_window(depthwise(k.kh, k.kw), g, k);
    if (bias) l = l.with_bias();
    if (bn) l = l.bn();
    const layer in = input_for(l, g, uniform(g, 1, 11));
    std::vector<layer> ls{in, l};
    ASSERT_TRUE(infer(ls).ok());
    const requant q = pick_quant(g, typical_t(ls[1], bn));
    const layer_case c = make_case({in, l.requantized(q.m, q.d, q.lo, q.hi)}, g);
    SCOPED_TRACE("depthwise case " + std::to_string(n));
    check_case(c, g, 3);
  }
}

/// A dilated, padded window (pads up to twice the dilated window, so often as large as the
/// kernel or larger): 2-D, or 1-D along the width (a TCN layer, H = 1) or the height.
layer dilated_window(layer base, rng_t& g, int shape_kind) {
  int kh = uniform(g, 1, 4), kw = uniform(g, 1, 4);
  int dh = uniform(g, 1, 4), dw = uniform(g, 1, 4);
  if (shape_kind == 1) kh = 1, dh = 1, kw = uniform(g, 2, 5), dw = 1 << uniform(g, 0, 3);
  if (shape_kind == 2) kw = 1, dw = 1, kh = uniform(g, 2, 5), dh = 1 << uniform(g, 0, 3);
  const int eh = (kh - 1) * dh + 1, ew = (kw - 1) * dw + 1;
  base = base.kernel_size(kh, kw).dilated(dh, dw).strides(uniform(g, 1, 3), uniform(g, 1, 3));
  const auto p = [&](int e) { return uniform(g, 0, 3) == 0 ? 0 : uniform(g, 0, 2 * e); };
  return base.padded(shape_kind == 1 ? 0 : p(eh), shape_kind == 1 ? 0 : p(eh),
                     shape_kind == 2 ? 0 : p(ew), shape_kind == 2 ? 0 : p(ew));
}

/// A random tile of the case whose window reads at least one input row and column (tiles
/// wholly in padding never reach a kernel: the planner's tiles always touch the input).
tile touching_tile(const layer& l, rng_t& g, bool whole) {
  for (int tries = 0; tries < 1000; ++tries) {
    const tile t = random_tile(l, g, whole);
    const input_window w = window_of(l, t.oy0, t.oy1, t.ox0, t.ox1);
    if (w.iy1 > w.iy0 && w.ix1 > w.ix0) return t;
  }
  ADD_FAILURE() << "no tile of the layer reads its input";
  return random_tile(l, g, true);
}

// Dilation and padding of any size, conv and depthwise, 1-D and 2-D, bit-exact against the
// reference on the whole layer and on tiles with their own (possibly over-sized) padding.
TEST(Kernels, DilatedAndOverPaddedConvAndDepthwise) {
  rng_t g(18);
  for (int n = 0; n < 90; ++n) {
    const bool dw = n % 3 == 2;
    const bool bn = uniform(g, 0, 1) == 1, bias = uniform(g, 0, 2) != 0;
    layer l = dilated_window(dw ? depthwise(1) : conv2d(uniform(g, 1, 9), 1), g, n % 4 % 3);
    // Every fifth depthwise case dense with 3 rows (the register-rolling 3-row path).
    if (dw && n % 5 == 0 && n % 4 % 3 == 0) l = l.kernel_size(3, uniform(g, 1, 4)).dilated(1);
    if (bias) l = l.with_bias();
    if (bn) l = l.bn();
    const extent2 e = l.window();
    const int ch = n % 5 == 0 ? 4 * uniform(g, 1, 2) : uniform(g, 1, 7);
    int h = 0, w = 0;
    std::vector<layer> ls;
    do {  // an input that some window reads (else inference refuses the layer)
      h = n % 4 % 3 == 1 ? 1 : std::max(1, e.h - l.pad.t - l.pad.b) + uniform(g, 0, 6);
      w = n % 4 % 3 == 2 ? 1 : std::max(1, e.w - l.pad.l - l.pad.r) + uniform(g, 0, 6);
      ls = {input(h, w, ch), l};
    } while (infer(ls).what == problem::windows_miss_input);
    ASSERT_TRUE(infer(ls).ok());
    const requant q = pick_quant(g, typical_t(ls[1], bn));
    const layer_case c = make_case({ls[0], l.requantized(q.m, q.d, q.lo, q.hi)}, g);
    SCOPED_TRACE(std::string(dw ? "depthwise " : "conv ") + std::to_string(l.kernel.h) + "x" +
                 std::to_string(l.kernel.w) + " dilation " + std::to_string(l.dilation.h) + "x" +
                 std::to_string(l.dilation.w) + " stride " + std::to_string(l.stride.h) + "x" +
                 std::to_string(l.stride.w) + " pads " + std::to_string(l.pad.t) + "," +
                 std::to_string(l.pad.b) + "," + std::to_string(l.pad.l) + "," +
                 std::to_string(l.pad.r) + " input " + std::to_string(h) + "x" + std::to_string(w) +
                 "x" + std::to_string(ch) + " case " + std::to_string(n));
    for (int t = 0; t < 3; ++t) {
      const tile_run r(c, touching_tile(c.l, g, t == 0), t == 2);
      for (int cores : {1, 3, 8})
        for (const core_split& s : splits_for(cores)) ASSERT_TRUE(r.run(cores, s, false));
    }
  }
}

TEST(Kernels, LinearEightAndThirtyTwoBitOutputs) {
  rng_t g(3);
  for (int n = 0; n < 40; ++n) {
    const bool bn = uniform(g, 0, 1) == 1, bias = uniform(g, 0, 1) == 1, raw = n % 3 == 0;
    layer l = linear(uniform(g, 1, 13));
    if (bias) l = l.with_bias();
    if (bn && !raw) l = l.bn();
    const layer in = input(uniform(g, 1, 3), uniform(g, 1, 4), uniform(g, 1, 9));
    std::vector<layer> ls{in, l};
    ASSERT_TRUE(infer(ls).ok());
    const requant q = pick_quant(g, typical_t(ls[1], bn));
    const layer_case c = make_case({in, raw ? l.raw() : l.requantized(q.m, q.d, q.lo, q.hi)}, g);
    SCOPED_TRACE("linear case " + std::to_string(n));
    check_case(c, g, 3);
  }
}

// A linear layer's reduction cut in K tiles: each call sees only its slice of the input and
// the matching columns of the tile's weight rows (packed, as the runtime's DMA lays them out in
// L1); the int32 partial sums carry over from the first call to the last, which alone
// requantizes. Compared with the reference over the whole layer.
TEST(Kernels, LinearWithTheReductionInKTiles) {
  rng_t g(31);
  for (int n = 0; n < 60; ++n) {
    const bool bn = uniform(g, 0, 1) == 1, bias = uniform(g, 0, 1) == 1, raw = n % 4 == 0;
    layer l = linear(uniform(g, 1, 19));
    if (bias) l = l.with_bias();
    if (bn && !raw) l = l.bn();
    const layer in = input(uniform(g, 1, 4), uniform(g, 1, 5), uniform(g, 1, 40));
    std::vector<layer> ls{in, l};
    ASSERT_TRUE(infer(ls).ok());
    const requant q = pick_quant(g, typical_t(ls[1], bn));
    const layer_case c = make_case({in, raw ? l.raw() : l.requantized(q.m, q.d, q.lo, q.hi)}, g);
    const int K = static_cast<int>(c.l.in.elements());
    const int tk = 4 * uniform(g, 1, (K + 3) / 4);  // a multiple of 4; the last tile is shorter
    const int nk = (K + tk - 1) / tk;
    const int c0 = uniform(g, 0, c.l.out.c - 1), c1 = uniform(g, c0 + 1, c.l.out.c);
    const int cn = c1 - c0;
    const int cores = uniform(g, 1, 8);
    SCOPED_TRACE("linear K-tiled case " + std::to_string(n) + ": K " + std::to_string(K) +
                 " in tiles of " + std::to_string(tk) + ", channels [" + std::to_string(c0) + "," +
                 std::to_string(c1) + "), " + std::to_string(cores) + " cores");
    tile_args a = layer_args(c.l, c.params());
    if (a.bias) a.bias += c0;
    if (a.kappa) a.kappa += c0, a.lambda += c0;
    a.h_out = a.w_out = 1, a.c_out = cn;
    a.h_in = a.w_in = 1;
    a.cores = cores;
    std::vector<std::int32_t> partial(static_cast<std::size_t>(cn), 0x5a5a5a5a);
    std::vector<std::int32_t> out32(static_cast<std::size_t>(cn), -1);
    std::vector<std::uint8_t> out8(static_cast<std::size_t>(cn), 0);
    a.out = raw ? static_cast<void*>(out32.data()) : static_cast<void*>(out8.data());
    a.partial = partial.data();
    for (int ik = 0; ik < nk; ++ik) {
      const int k0 = ik * tk, kn = std::min(tk, K - k0);
      std::vector<std::uint8_t> x(static_cast<std::size_t>(kn));
      std::vector<std::int8_t> w(static_cast<std::size_t>(cn) * kn);
      for (int k = 0; k < kn; ++k)
        x[static_cast<std::size_t>(k)] =
            static_cast<std::uint8_t>(c.x[static_cast<std::size_t>(k0 + k)]);
      for (int ch = 0; ch < cn; ++ch)
        for (int k = 0; k < kn; ++k)
          w[static_cast<std::size_t>(ch) * kn + k] =
              c.w[static_cast<std::size_t>(c0 + ch) * K + static_cast<std::size_t>(k0 + k)];
      a.in = x.data();
      a.c_in = kn;
      a.weights = w.data();
      a.k_first = ik == 0;
      a.k_last = ik == nk - 1;
      ASSERT_EQ(check(kernel_kind::linear, a), args_problem::none);
      for (int core = 0; core < cores; ++core) {
        tile_args mine = a;
        mine.core = core;
        kernels::run(kernel_kind::linear, mine);
      }
      if (!a.k_last) {  // nothing may be written to the output before the last K tile
        for (int ch = 0; ch < cn; ++ch) {
          ASSERT_EQ(out32[static_cast<std::size_t>(ch)], -1);
          ASSERT_EQ(out8[static_cast<std::size_t>(ch)], 0);
        }
      }
    }
    for (int ch = 0; ch < cn; ++ch) {
      const std::int32_t got =
          raw ? out32[static_cast<std::size_t>(ch)] : out8[static_cast<std::size_t>(ch)];
      ASSERT_EQ(got, c.ref[static_cast<std::size_t>(c0 + ch)]) << "output channel " << c0 + ch;
    }
  }
}

// A K-tiled call without its partial-sum buffer is rejected.
TEST(Kernels, LinearKTilesNeedAPartialSumBuffer) {
  tile_args a;
  std::uint8_t x[4] = {};
  std::int8_t w[4] = {};
  std::uint8_t y[1] = {};
  a.in = x, a.out = y, a.weights = w;
  a.h_in = a.w_in = 1, a.c_in = 4, a.h_out = a.w_out = a.c_out = 1;
  a.k_first = true, a.k_last = false;
  EXPECT_EQ(check(kernel_kind::linear, a), args_problem::null_pointer);
  std::int32_t p[1] = {};
  a.partial = p;
  EXPECT_EQ(check(kernel_kind::linear, a), args_problem::none);
}

TEST(Kernels, PoolsRandomized) {
  rng_t g(4);
  for (int n = 0; n < 60; ++n) {
    const kernel_shape k = conv_kernels[n % 7];
    const int kind = n % 3;  // max, average, global average
    layer l = kind == 0 ? maxpool(k.kh, k.kw) : avgpool(k.kh, k.kw);
    l = random_window(l, g, k);
    if (kind == 2) l = global_avgpool();
    const layer in = input_for(l, g, uniform(g, 1, 11));
    if (kind != 0 && uniform(g, 0, 1) == 1) {
      std::vector<layer> ls{in, l};
      ASSERT_TRUE(infer(ls).ok());
      const requant q = pick_quant(g, 128.0 * ls[1].kernel.h * ls[1].kernel.w);
      l = l.requantized(q.m, q.d, q.lo, q.hi);
    }
    const layer_case c = make_case({in, l}, g);
    SCOPED_TRACE(std::string(op_name(c.l.kind)) + " case " + std::to_string(n));
    check_case(c, g, 3);
  }
}

TEST(Kernels, ResidualAddWithRescale) {
  rng_t g(5);
  for (int n = 0; n < 40; ++n) {
    const auto rs = [&] {
      if (uniform(g, 0, 3) == 0)  // large multipliers: the 64-bit path
        return rescale{(1 << 23) + uniform(g, 0, 1 << 20), uniform(g, -2000, 2000),
                       uniform(g, 20, 24), uniform(g, 0, 1) == 1};
      return rescale{uniform(g, -3, 40), uniform(g, -2000, 2000), uniform(g, 0, 6),
                     uniform(g, 0, 1) == 1};
    };
    const requant q{uniform(g, 1, 5), std::int64_t{1} << uniform(g, 0, 4), 0,
                    uniform(g, 0, 3) == 0 ? 15 : 255};
    const layer in = input(uniform(g, 1, 6), uniform(g, 1, 7), uniform(g, 1, 9));
    const layer_case c =
        make_case({in, maxpool(1),
                   add(0, 1).scaled(0, rs()).scaled(1, rs()).requantized(q.m, q.d, q.lo, q.hi)},
                  g);
    SCOPED_TRACE("add case " + std::to_string(n));
    check_case(c, g, 3);
  }
}

// Signed and sub-byte ranges through every kernel: inputs signed 8/4/2-bit and unsigned
// 4/2-bit, outputs clipped to signed or unsigned 8/4/2-bit ranges; every tile, split and core
// count as above.
TEST(Kernels, SignedAndSubByteRanges) {
  rng_t g(21);
  const value_range ins[] = {signed_range(8), signed_range(4), signed_range(2), unsigned_range(4),
                             unsigned_range(2)};
  const value_range outs[] = {signed_range(8),   signed_range(4),   signed_range(2),
                              unsigned_range(8), unsigned_range(4), unsigned_range(2)};
  int n = 0;
  for (const value_range ir : ins)
    for (const value_range orr : outs) {
      for (int kind = 0; kind < 7; ++kind, ++n) {
        const kernel_shape k = conv_kernels[n % 7];
        layer l;
        switch (kind) {
          case 0:
            l = random_window(conv2d(uniform(g, 1, 9), k.kh, k.kw), g, k).with_bias();
            break;
          case 1:
            l = pointwise(uniform(g, 1, 9)).strides(uniform(g, 1, 2));
            break;
          case 2:
            l = random_window(depthwise(k.kh, k.kw), g, k).bn();
            break;
          case 3:
            l = linear(uniform(g, 1, 9)).with_bias();
            break;
          case 4:
            l = random_window(maxpool(k.kh, k.kw), g, k);
            break;
          case 5:
            l = random_window(avgpool(k.kh, k.kw), g, k);
            break;
          default:
            l = add(0, 1)
                    .scaled(0, {uniform(g, 1, 9), uniform(g, -20, 20), uniform(g, 0, 3), false})
                    .scaled(1, {uniform(g, -3, 9), 0, uniform(g, 0, 2), true});
        }
        const layer in = input_for(l, g, uniform(g, 1, 10)).range(ir.lo, ir.hi);
        std::vector<layer> ls{in, l};
        if (kind == 6) ls.insert(ls.begin() + 1, maxpool(1));
        ASSERT_TRUE(infer(ls).ok());
        if (kind != 4) {  // a max pool keeps its input's range
          const double t = kind == 5   ? 64.0 * ls.back().kernel.h * ls.back().kernel.w
                           : kind == 6 ? 64.0
                                       : typical_t(ls.back(), kind == 2) / 2;
          const requant q = pick_quant(g, t * 160.0 / std::max(2, orr.hi - orr.lo));
          ls.back() = ls.back().requantized(q.m, q.d, orr.lo, orr.hi);
        }
        const layer_case c = make_case(ls, g);
        ASSERT_EQ(c.l.in_range, ir);
        SCOPED_TRACE(std::string(op_name(c.l.kind)) + " in " + std::to_string(ir.lo) + ".." +
                     std::to_string(ir.hi) + " out " + std::to_string(orr.lo) + ".." +
                     std::to_string(orr.hi) + " case " + std::to_string(n));
        check_case(c, g, 2);
      }
    }
}

// The 3x3 conv of the speed target (out 24x4x32, in 32 channels), threads and barrier.
TEST(Kernels, ThreadedEightCoresWithBarrier) {
  rng_t g(6);
  const layer l = conv2d(32, 3).same().bn().requantized(1, 1 << 14);
  const layer_case c = make_case({input(24, 4, 32), l}, g);
  const tile_run r(c, {0, 24, 0, 4, 0, 32}, false);
  for (const core_split& s : splits_for(8)) ASSERT_TRUE(r.run(8, s, true));
  const layer_case dw = make_case({input(13, 9, 16), depthwise(3).same().requantized(3, 1000)}, g);
  const tile_run rd(dw, {0, 13, 0, 9, 0, 16}, false);
  for (const core_split& s : splits_for(8)) ASSERT_TRUE(rd.run(8, s, true));
}

// Every requantization path of the kernels (inline shift32/mulhi, mul64, divide, 64-bit t):
// a proven plan run as it is and re-labelled into equivalent slower forms.
TEST(Kernels, EveryRequantPath) {
  rng_t g(7);
  const std::vector<std::vector<layer>> nets = {
      {input(6, 7, 5), conv2d(6, 3).same().with_bias().bn().requantized(3, 1000)},
      {input(5, 4, 8), pointwise(5).bn().requantized(1, (1 << 24) - 1)},
      {input(6, 5, 6), depthwise(3).same().with_bias().requantized(7, 4096)},
      {input(1, 2, 9), linear(6).with_bias().requantized(2, 999)},
      {input(6, 6, 3), avgpool(2).requantized(5, 12)},
      {input(4, 3, 5), maxpool(1), add(0, 1).scaled(0, {3, 5, 1, true}).requantized(1, 3)}};
  int seen[5] = {};
  for (const auto& net : nets) {
    const layer_case c = make_case(net, g);
    const tile_run base(c, {0, c.l.out.h, 0, c.l.out.w, 0, c.l.out.c}, false);
    const requant_plan p = base.a.quant;
    std::vector<requant_plan> variants{p};
    requant_plan d = p;
    d.mode = requant_mode::divide;
    variants.push_back(d);
    if (p.mode == requant_mode::shift32) {
      requant_plan w = p;
      w.mode = requant_mode::mul64;  // same multiplier and shift, 64-bit product
      variants.push_back(w);
    }
    requant_plan wide = p;
    wide.t64 = true;  // t computed in 64 bits, then clamped
    variants.push_back(wide);
    for (const requant_plan& v : variants) {
      tile_run r = base;
      r.a.quant = v;
      ++seen[static_cast<int>(v.mode)];
      for (int cores : {1, 3, 8})
        ASSERT_TRUE(r.run(cores, {split_kind::rows}, false)) << op_name(c.l.kind);
    }
  }
  for (int m = 1; m < 5; ++m) EXPECT_GT(seen[m], 0) << "requant mode " << m << " not exercised";
}

// The fast requantization kinds (shift only, shift32, mulhi) with and without the final clip,
// bias and batch-norm: each one its own instantiation of the conv / pointwise pair loop and
// the depthwise column loop. The plans are classified first, so that none is skipped.
TEST(Kernels, EveryFastRequantKindAndOption) {
  rng_t g(11);
  struct q_case {
    std::int64_t m, d;
    int kind;
    bool clip;
  };
  const q_case qs[] = {{1, 1 << 12, 0, false},
                       {11, 1 << 14, 1, false},
                       {3, 100000, 2, false},
                       {100, 1, 1, true},
                       {1, 1, 0, false}};
  bool seen[3][2][2][2] = {};
  for (const q_case& q : qs)
    for (int opt = 0; opt < 4; ++opt) {
      const bool bias = (opt & 2) != 0, bn = (opt & 1) != 0;
      for (int which = 0; which < 3; ++which) {
        layer l = which == 0   ? conv2d(7, 3).same()
                  : which == 1 ? pointwise(9)
                               : depthwise(3).same();
        if (bias) l = l.with_bias();
        if (bn) l = l.bn();
        l = l.requantized(q.m, q.d);
        const layer_case c =
            make_case({input(which == 2 ? 7 : 5, which == 1 ? 6 : 5, which == 2 ? 6 : 8), l}, g);
        const tile_run r(c, {0, c.l.out.h, 0, c.l.out.w, 0, c.l.out.c}, false);
        const atoms::fast_requant f = atoms::fast_of(r.a);
        ASSERT_EQ(atoms::fast_kind(r.a.quant), q.kind)
            << q.m << "/" << q.d << " op " << which << " options " << opt;
        ASSERT_EQ(f.clip, q.clip) << q.m << "/" << q.d;
        seen[q.kind][q.clip][bias][bn] = true;
        for (int cores : {1, 2, 5})
          ASSERT_TRUE(r.run(cores, {split_kind::rows}, false)) << op_name(c.l.kind);
        // Border tiles (padding on every side) and an inner tile.
        for (const tile t : {tile{0, 2, 0, 2, 0, c.l.out.c},
                             tile{c.l.out.h - 2, c.l.out.h, c.l.out.w - 3, c.l.out.w, 1, c.l.out.c},
                             tile{1, c.l.out.h - 1, 1, c.l.out.w - 1, 0, c.l.out.c}}) {
          const tile_run rt(c, t, false);
          ASSERT_TRUE(rt.run(1, {split_kind::rows}, false)) << op_name(c.l.kind);
        }
      }
    }
  for (int k = 0; k < 3; ++k)
    for (int o = 0; o < 8; ++o)
      if (k == 1 || (o & 4) == 0) {  // only a multiplier > divisor needs the final clip
        EXPECT_TRUE(seen[k][(o >> 2) & 1][(o >> 1) & 1][o & 1]) << k << " " << o;
      }
}

TEST(Kernels, InputWindowOfATile) {
  std::vector<layer> ls{input(10, 9, 2), conv2d(4, 3).strides(2, 1).padded(1, 2, 2, 0)};
  ASSERT_TRUE(infer(ls).ok());
  const layer& l = ls[1];  // out: (10 + 3 - 3) / 2 + 1 = 6 rows, 9 + 2 - 3 + 1 = 9 columns
  ASSERT_EQ(l.out, (shape{6, 9, 4}));
  // Top-left tile: rows 0..1 read -1..3, columns 0..2 read -2..2.
  EXPECT_EQ(window_of(l, 0, 2, 0, 3), (input_window{0, 4, 0, 3, 1, 0, 2, 0}));
  // Inner tile: rows 2..3 read 3..7, columns 3..5 read 1..5, no padding.
  EXPECT_EQ(window_of(l, 2, 4, 3, 6), (input_window{3, 8, 1, 6, 0, 0, 0, 0}));
  // Bottom-right tile: row 5 reads 9..11 (the last two are bottom padding), columns 6..8
  // read 4..8.
  EXPECT_EQ(window_of(l, 5, 6, 6, 9), (input_window{9, 10, 4, 9, 0, 2, 0, 0}));
  static_assert(window_of(layer{}, 0, 1, 0, 1).iy1 == 0, "usable at compile time");
}

TEST(Kernels, ArgumentsAreChecked) {
  tile_args a;
  EXPECT_EQ(check(kernel_kind::conv, a), args_problem::null_pointer);
  std::uint8_t buf[64] = {};
  std::int8_t w[64] = {};
  a.in = buf, a.out = buf, a.weights = w, a.scratch = buf;
  a.h_in = a.w_in = 4, a.c_in = 1, a.h_out = a.w_out = 2, a.c_out = 1, a.kh = a.kw = 3;
  EXPECT_EQ(check(kernel_kind::conv, a), args_problem::none);
  a.h_out = 3;
  EXPECT_EQ(check(kernel_kind::conv, a), args_problem::window_mismatch);
  a.pad_t = 1;
  EXPECT_EQ(check(kernel_kind::conv, a), args_problem::none);
  a.core = 2;
  EXPECT_EQ(check(kernel_kind::conv, a), args_problem::bad_cores);
  a.core = 0, a.cores = 4, a.split = {split_kind::grid, 3, 2};
  EXPECT_EQ(check(kernel_kind::conv, a), args_problem::bad_cores);
  a.split = {};
  a.c_out = 2;
  EXPECT_EQ(check(kernel_kind::depthwise, a), args_problem::channels_mismatch);
  a.kh = 0;
  EXPECT_EQ(check(kernel_kind::conv, a), args_problem::bad_dims);
}

TEST(Kernels, ScratchBytesAndWorkSplit) {
  // im2col: 2 columns of kh * kw * c_in per core, rounded to words.
  EXPECT_EQ(scratch_bytes(kernel_kind::conv, 4, 32, 3, 3, 1, 8), 8 * 2 * 288);
  EXPECT_EQ(scratch_bytes(kernel_kind::conv, 4, 3, 3, 3, 1, 1), 2 * 28);
  EXPECT_EQ(scratch_bytes(kernel_kind::pointwise, 4, 32, 1, 1, 1, 8), 0);
  // Depthwise: stripe of kw * ((h_out - 1) * s + kh) + 4, filter rows as words, filter.
  EXPECT_EQ(scratch_bytes(kernel_kind::depthwise, 8, 16, 3, 3, 1, 2), 2 * (36 + 12 + 12));
  static_assert(scratch_bytes(kernel_kind::conv, 4, 32, 3, 3, 1, 8) == 4608,
                "scratch sizes are usable at compile time");
  // Every output element belongs to exactly one core, for every split.
  for (int cores = 1; cores <= 8; ++cores)
    for (const core_split& s : splits_for(cores)) {
      std::vector<int> owner(7 * 5 * 6, 0);
      for (int i = 0; i < cores; ++i) {
        const box b = work_of(s, i, cores, 7, 5, 6);
        for (int y = b.y0; y < b.y1; ++y)
          for (int x = b.x0; x < b.x1; ++x)
            for (int ch = b.c0; ch < b.c1; ++ch)
              ++owner[static_cast<std::size_t>((y * 5 + x) * 6 + ch)];
      }
      for (int v : owner) ASSERT_EQ(v, 1) << cores << " " << split_name(s.kind);
    }
}

}  // namespace
