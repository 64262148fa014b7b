// The L2 -> L1 tiling problem of one layer: the layer's geometry reduced to the plain numbers
// the search, the buffer sizes and the cost model read, plus the buffer-size formulas.
#pragma once

#include <cstdint>

#include "ctile/kernels/args.hpp"
#include "ctile/layers/layer.hpp"
#include "ctile/platform/platform.hpp"

namespace ctile::plan_detail {

constexpr int ceil_div(int a, int b) {
  return (a + b - 1) / b;
}
constexpr std::int64_t ceil_div64(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}
constexpr int align4(int b) {
  return (b + 3) & ~3;
}
constexpr int min_int(int a, int b) {
  return a < b ? a : b;
}
constexpr int max_int(int a, int b) {
  return a > b ? a : b;
}

}  // namespace ctile::plan_detail

namespace ctile {

/// Extra L1 a kernel needs besides its input, output, weight and kappa/lambda buffers: the
/// kernels' own figures (ctile::kernels::scratch_bytes), so the plan budgets exactly what the
/// kernels use — conv im2col of 2 output pixels per core (none for a 1x1 unpadded conv, which
/// reads its input directly); depthwise a padded vertical stripe and a filter per core.
/// `tile_out_h` is the tile's output height (the depthwise stripe covers its input rows).
constexpr int kernel_scratch_bytes(op kind, int cores, int in_channels, extent2 kernel,
                                   extent2 stride, int tile_out_h, padding pad) {
  switch (kind) {
    case op::conv: {
      const bool pointwise = kernel.h == 1 && kernel.w == 1 && pad == padding{};
      if (pointwise) return 0;
      return kernels::scratch_bytes(kernels::kernel_kind::conv, 1, in_channels, kernel.h, kernel.w,
                                    stride.h, cores);
    }
    case op::depthwise: {
      return kernels::scratch_bytes(kernels::kernel_kind::depthwise,
                                    tile_out_h < 1 ? 1 : tile_out_h, in_channels, kernel.h,
                                    kernel.w, stride.h, cores);
    }
    default:
      return 0;
  }
}

/// A kernel's per-core cost as linear terms of its channel count c (filled by the cost
/// model, see ctile::cost::coefs_for): pair = p0 + p4 (c / 4) + p1 (c % 4), single and quad
/// (4 pixels; none when u4 is 0) likewise, per output pixel q c + q4 ceil(c / 4), per input
/// pixel t c.
struct kernel_terms {
  std::int64_t p0 = 0, p4 = 0, p1 = 0;
  std::int64_t s0 = 0, s4 = 0, s1 = 0;
  std::int64_t u0 = 0, u4 = 0, u1 = 0;
  std::int64_t q = 0, q4 = 0, t = 0;
  friend constexpr bool operator==(const kernel_terms&, const kernel_terms&) = default;
};

/// One layer's tiling problem, precomputed once so that the search loops stay tight.
struct tiling_problem {
  op kind = op::input;
  int H = 1, W = 1, C = 1;        ///< output extents (the tiled axes)
  int Hin = 1, Win = 1, Cin = 1;  ///< input extents
  extent2 kernel{1, 1};           ///< the taps (weights, scratch, kernel work)
  extent2 stride{1, 1};
  padding pad{};
  extent2 dilation{1, 1};
  extent2 window{1, 1};         ///< the input extent of one output: (kernel - 1) * dilation + 1
  int out_bpe = 1;              ///< output bytes per element (4 for raw int32 logits)
  int in_bpe = 1;               ///< input bytes per element (2: a 16-bit input)
  int weights_per_channel = 0;  ///< int8 weights per output channel
  int params_per_channel = 0;   ///< bytes of bias/kappa/lambda per output channel
  int inputs = 1;               ///< 2 for a residual add
  bool channels_follow_input = false;  ///< depthwise/pool/add: input channel tile = output's
  bool linear = false;
  /// Column tiles span whole rows. Depthwise: the kernel re-lays each channel of its input
  /// tile out as whole-width stripes, so its tiles are row bands (as in DORY's back end).
  bool whole_rows = false;
  /// The largest row tile allowed (the network plan lowers it when L3 row stripes must be
  /// thinner than the best L1 tile).
  int max_tile_h = 1 << 30;
  int cores = 8;          ///< the cores that run the layer
  int cluster_cores = 8;  ///< the cluster's cores (more than `cores` when scratch limits them)
  int l1_budget = 0;
  std::int64_t macs = 0;
  // DMA figures copied from the platform (read by the cost model).
  int dma_bytes_per_kcycle = 1;
  int dma_latency = 0;
  int dma_limit = 1;     ///< largest command planned
  int dma_line_max = 1;  ///< largest 2-D line
  kernel_terms terms{};  ///< the cost model's kernel terms
  int conv_scratch = 0;  ///< kernel_scratch_bytes of a standard conv (tile-independent)
  /// Core 0's cycles per tile outside the kernel: code fetch, table reads, loop and fork (the
  /// cost model's cost::loop_tile_cycles for the platform and kind), for a layer whose every
  /// tile is a channel tile of its own; `tile_overhead_spatial` for one cut in more than one
  /// row or column tile (never less: the search's bounds take tile_overhead).
  std::int64_t tile_overhead = 0;
  std::int64_t tile_overhead_spatial = 0;
  friend constexpr bool operator==(const tiling_problem&, const tiling_problem&) = default;
};

/// The problem's geometry and budgets (the cost model adds its kernel terms: make_problem).
constexpr tiling_problem make_problem_geometry(const layer& l, const platform& p) {
  tiling_problem t;
  t.kind = l.kind;
  t.H = l.out.h, t.W = l.out.w, t.C = l.out.c;
  t.Hin = l.in.h, t.Win = l.in.w, t.Cin = l.in.c;
  t.kernel = l.kernel, t.stride = l.stride, t.pad = l.pad;
  t.dilation = l.dilation, t.window = l.window();
  t.out_bpe = l.output_bytes_per_element();
  t.in_bpe = l.input_bytes_max();
  t.inputs = l.kind == op::add ? 2 : 1;
  t.linear = l.kind == op::linear;
  t.channels_follow_input = l.kind == op::depthwise || l.kind == op::maxpool ||
                            l.kind == op::avgpool || l.kind == op::add;
  if (l.has_weights() && l.out.c > 0) {
    const std::int64_t per = l.weight_count() / l.out.c;
    t.weights_per_channel = per > 0x3fffffff ? 0x3fffffff : static_cast<int>(per);
  }
  t.params_per_channel = l.has_weights() ? 4 * ((l.bias ? 1 : 0) + (l.batchnorm ? 2 : 0)) : 0;
  if (t.linear) t.kernel = t.window = t.dilation = {1, 1}, t.stride = {1, 1}, t.pad = {};
  t.whole_rows = l.kind == op::depthwise;
  t.cores = p.cores;
  t.cluster_cores = p.cores;
  t.l1_budget = p.l1_budget();
  t.macs = l.macs();
  t.dma_bytes_per_kcycle = p.dma_bytes_per_kcycle > 0 ? p.dma_bytes_per_kcycle : 1;
  t.dma_latency = p.dma_latency_cycles;
  t.dma_limit = p.dma_command_limit();
  t.dma_line_max = p.dma_max_2d_line > 0 ? p.dma_max_2d_line : 1;
  t.conv_scratch = l.kind == op::conv ? kernel_scratch_bytes(op::conv, t.cores, t.Cin, t.kernel,
                                                             t.stride, 0, t.pad)
                                      : 0;
  return t;
}

/// Whether the layer's kernel needs scratch per working core (conv im2col, depthwise stripes),
/// so that running it on fewer cores lowers its L1 need.
constexpr bool scratch_per_core(const tiling_problem& P) {
  return (P.kind == op::conv && P.conv_scratch > 0) || P.kind == op::depthwise;
}

/// The problem of the layer run on `n` of the cluster's cores: each working core keeps its
/// own kernel scratch, the others stay idle (the splits become grids of the cluster, see
/// cost::splits_for).
constexpr tiling_problem on_fewer_cores(tiling_problem P, int n) {
  P.cores = n;
  P.conv_scratch = P.kind == op::conv
                       ? kernel_scratch_bytes(op::conv, n, P.Cin, P.kernel, P.stride, 0, P.pad)
                       : 0;
  return P;
}

/// Whether row tiles of `th` outputs each read at least one input row (with padding as large
/// as the window, a tile of the first or last outputs may lie wholly in padding: such a tile has
/// no input to load, so the search skips its size). Always true when the padding is smaller
/// than the window.
constexpr bool rows_read_input(const tiling_problem& P, int th) {
  return P.linear || tiles_reach_input(P.Hin, P.H, P.window.h, P.stride.h, P.pad.t, th);
}
/// The same for column tiles of `tw` outputs.
constexpr bool cols_read_input(const tiling_problem& P, int tw) {
  return P.linear || tiles_reach_input(P.Win, P.W, P.window.w, P.stride.w, P.pad.l, tw);
}

/// Input rows (or columns) a tile of `n` outputs reads, before clipping to the input.
constexpr int input_extent(int n, int k, int s) {
  return (n - 1) * s + k;
}

/// The input range an output range [o0, o0 + n) reads along one axis, clipped to [0, in),
/// and how much zero padding the tile needs before and after it.
struct input_span {
  int begin = 0;
  int size = 0;
  int pad_before = 0;
  int pad_after = 0;
};
constexpr input_span input_span_of(int o0, int n, int in, int pad_lo, int k, int s) {
  const int lo = o0 * s - pad_lo;
  const int hi = (o0 + n - 1) * s - pad_lo + k;  // exclusive
  input_span r;
  r.begin = lo < 0 ? 0 : lo;
  const int end = hi > in ? in : hi;
  r.size = end > r.begin ? end - r.begin : 0;
  r.pad_before = lo < 0 ? -lo : 0;
  r.pad_after = hi > in ? hi - in : 0;
  return r;
}

/// Bytes of a linear layer's reduction: its flattened input (clamped to int).
constexpr int linear_k(const tiling_problem& P) {
  const std::int64_t k = std::int64_t{P.Hin} * P.Win * P.Cin;
  return k > 0x3fffffff ? 0x3fffffff : static_cast<int>(k);
}

/// The K tile of a linear layer whose reduction is cut in `nk` tiles: balanced and rounded up
/// to whole words, so that each weight row of an L1 tile starts word-aligned (only the last
/// tile may be shorter and not a multiple of 4); the whole reduction for nk <= 1.
constexpr int linear_k_tile(int K, int nk) {
  if (nk <= 1) return K;
  const int t = plan_detail::align4(plan_detail::ceil_div(K, nk));
  return t < K ? t : K;
}

/// Bytes of a K-tiled linear layer's partial sum per output channel: int32, or int64 over a
/// 16-bit input (the portable wide kernel keeps its 64-bit accumulators exact across K tiles).
constexpr int linear_partial_bytes(const tiling_problem& P) {
  return P.in_bpe > 1 ? 8 : 4;
}

/// Whether a linear layer whose reduction is cut in K tiles of `tk` bytes keeps its whole
/// input in L1 (one buffer, loaded once per run, each tile reading its slice in place): when
/// that takes no more L1 than two slices, which holds for two K tiles.
constexpr bool linear_x_whole(const tiling_problem& P, int tk) {
  const std::int64_t K = linear_k(P);
  return tk < K && ((K + 3) & ~std::int64_t{3}) <= 2 * ((std::int64_t{tk} + 3) & ~std::int64_t{3});
}

/// The L1 bytes of a linear layer's tiles of `tc` output channels and `tk` bytes of the
/// reduction (tk >= K: the whole input, loaded once) but its output buffers. With the
/// reduction cut (tk < K) the weights are double-buffered and reloaded every tile, the input
/// too unless it is kept whole (linear_x_whole), and the tile's int32 partial sums stay in L1
/// (the scratch buffer) from its first K tile to its last.
constexpr std::int64_t l1_bytes_linear_rest(const tiling_problem& P, int tc, int tk) {
  using i64 = std::int64_t;
  const int K = linear_k(P);
  if (tk <= 0 || tk > K) tk = K;
  const int nc = (P.C + tc - 1) / tc, nk = (K + tk - 1) / tk;
  const bool x_whole = nk == 1 || linear_x_whole(P, tk);
  const i64 x = (i64{x_whole ? K : tk} * P.in_bpe + 3) & ~i64{3};
  const i64 w = ((i64{tc} * tk + 3) & ~i64{3}) + ((i64{tc} * P.params_per_channel + 3) & ~i64{3});
  const i64 partial = nk > 1 ? i64{linear_partial_bytes(P)} * tc : 0;
  return (x_whole ? 1 : 2) * x + (nc > 1 || nk > 1 ? 2 : 1) * w + partial;
}

/// The L1 bytes of a linear layer's output buffers of `g` channel tiles of `tc` outputs: one
/// buffer of the whole output when `g` covers every channel tile, else two.
constexpr std::int64_t l1_bytes_linear_y(const tiling_problem& P, int tc, int g) {
  using i64 = std::int64_t;
  const int nc = (P.C + tc - 1) / tc;
  if (g >= nc) return (i64{P.C} * P.out_bpe + 3) & ~i64{3};
  return 2 * ((i64{g} * tc * P.out_bpe + 3) & ~i64{3});
}

/// Channel tiles per output buffer of a linear layer with tiles of `tc` output channels, next
/// to `rest` bytes of its other buffers. Each channel tile writes its outputs after the
/// previous one's and a buffer goes to L2 in one command once full, so fewer, larger buffers
/// save a command and a wait per channel tile: the whole output in one buffer when it fits the
/// L1 budget, else as many channel tiles as fit double-buffered, at least one.
constexpr int linear_y_group_next_to(const tiling_problem& P, int tc, std::int64_t rest) {
  const int nc = (P.C + tc - 1) / tc;
  if (nc == 1 || rest + l1_bytes_linear_y(P, tc, nc) <= P.l1_budget) return nc;
  // Two buffers of g tiles fit when g * tc outputs, rounded up to a word, take at most half
  // the room (rounded down to a word).
  const std::int64_t half = (P.l1_budget - rest) / 2;
  const std::int64_t g = half > 0 ? (half & ~std::int64_t{3}) / (std::int64_t{tc} * P.out_bpe) : 1;
  return g < 1 ? 1 : g > nc - 1 ? nc - 1 : static_cast<int>(g);
}

/// linear_y_group_next_to for tiles of `tc` channels by `tk` bytes of the reduction.
constexpr int linear_y_group(const tiling_problem& P, int tc, int tk) {
  return linear_y_group_next_to(P, tc, l1_bytes_linear_rest(P, tc, tk));
}

/// The L1 bytes of a linear layer's tiles, with output buffers of `g` channel tiles.
constexpr std::int64_t l1_bytes_linear_as(const tiling_problem& P, int tc, int tk, int g) {
  return l1_bytes_linear_rest(P, tc, tk) + l1_bytes_linear_y(P, tc, g);
}

/// Whether a linear layer's tiles fit the L1 budget (with output buffers of one channel tile,
/// the least; a larger group only takes room that is left).
constexpr bool linear_fits(const tiling_problem& P, int tc, int tk) {
  return l1_bytes_linear_as(P, tc, tk, 1) <= P.l1_budget;
}

/// The L1 bytes of a linear layer's tiles with its output group (linear_y_group).
constexpr int l1_bytes_linear(const tiling_problem& P, int tc, int tk) {
  const std::int64_t rest = l1_bytes_linear_rest(P, tc, tk);
  const std::int64_t total = rest + l1_bytes_linear_y(P, tc, linear_y_group_next_to(P, tc, rest));
  return total > 0x7fffffff ? 0x7fffffff : static_cast<int>(total);
}

/// Bytes of each L1 buffer (one copy) and how many copies (1, or 2 when double-buffered) for a
/// tile of th x tw x tc outputs.
struct tile_buffers {
  int in_h = 0, in_w = 0, in_c = 0;  ///< input tile extents the x buffer holds
  int x = 0, x2 = 0, y = 0, w = 0, kl = 0, scratch = 0;
  int x_copies = 1, y_copies = 1, w_copies = 1;
  int nh = 1, nw = 1, nc = 1;
  int tk = 0, nk = 1;  ///< linear: bytes of the reduction per tile, and the tile count
  [[nodiscard]] constexpr int total() const {
    using plan_detail::align4;
    const std::int64_t t = std::int64_t{x_copies} * (align4(x) + std::int64_t{align4(x2)}) +
                           std::int64_t{y_copies} * align4(y) +
                           std::int64_t{w_copies} * (align4(w) + std::int64_t{align4(kl)}) +
                           align4(scratch);
    return t > 0x7fffffff ? 0x7fffffff : static_cast<int>(t);
  }
};

/// `tk`: a linear layer's K tile (0: the whole reduction); ignored for other kinds.
constexpr tile_buffers buffers_for(const tiling_problem& P, int tc, int th, int tw, int tk = 0) {
  using namespace plan_detail;
  tile_buffers b;
  b.nh = ceil_div(P.H, th), b.nw = ceil_div(P.W, tw), b.nc = ceil_div(P.C, tc);
  if (P.linear) {
    const int K = linear_k(P);
    b.tk = tk <= 0 || tk > K ? K : tk;
    b.nk = ceil_div(K, b.tk);
  }
  if (P.linear) {
    b.in_h = P.Hin, b.in_w = P.Win, b.in_c = P.Cin;
  } else {
    b.in_h = min_int(input_extent(th, P.window.h, P.stride.h), P.Hin);
    b.in_w = min_int(input_extent(tw, P.window.w, P.stride.w), P.Win);
    b.in_c = P.channels_follow_input ? tc : P.Cin;
  }
  auto clamp = [](std::int64_t v) { return v > 0x3fffffff ? 0x3fffffff : static_cast<int>(v); };
  b.x = clamp(std::int64_t{b.in_h} * b.in_w * b.in_c * P.in_bpe);
  b.x2 = P.inputs == 2 ? b.x : 0;
  b.y = clamp(std::int64_t{th} * tw * tc * P.out_bpe);
  b.w = clamp(std::int64_t{tc} * P.weights_per_channel);
  b.kl = clamp(std::int64_t{tc} * P.params_per_channel);
  b.scratch = kernel_scratch_bytes(P.kind, P.cores, P.Cin, P.kernel, P.stride, th, P.pad);
  bool x_whole = true, y_whole = b.nc == 1;
  if (P.linear) {  // output buffers of a group of channel tiles, or of the whole output
    const int g = linear_y_group(P, tc, tk);
    y_whole = g >= b.nc;
    b.y = clamp(std::int64_t{y_whole ? P.C : std::int64_t{g} * tc} * P.out_bpe);
  }
  if (P.linear && b.nk > 1) {
    x_whole = linear_x_whole(P, b.tk);
    if (!x_whole) b.x = clamp(std::int64_t{b.tk} * P.in_bpe);
    b.w = clamp(std::int64_t{tc} * b.tk);
    b.scratch = linear_partial_bytes(P) * tc;  // the partial sums
  }
  // Tile counts can be huge for absurd layers: compare factors, never multiply them.
  const bool many_spatial = b.nh > 1 || b.nw > 1;
  const bool x_changes =
      !P.linear && (P.channels_follow_input ? many_spatial || b.nc > 1 : many_spatial);
  b.x_copies = x_changes || !x_whole ? 2 : 1;
  b.y_copies = P.linear ? (y_whole ? 1 : 2) : many_spatial || b.nc > 1 ? 2 : 1;
  b.w_copies = b.nc > 1 || b.nk > 1 ? 2 : 1;
  return b;
}

/// buffers_for(P, tc, th, tw, tk).total(), written out flat: the search calls it in its inner
/// loops, and a compiler evaluates flat arithmetic much faster than nested calls.
constexpr int l1_bytes_for(const tiling_problem& P, int tc, int th, int tw, int tk = 0) {
  using i64 = std::int64_t;
  if (P.linear) return l1_bytes_linear(P, tc, tk);
  const int nh = (P.H + th - 1) / th, nw = (P.W + tw - 1) / tw, nc = (P.C + tc - 1) / tc;
  int in_h = P.Hin, in_w = P.Win, in_c = P.Cin;
  if (!P.linear) {
    in_h = (th - 1) * P.stride.h + P.window.h;
    if (in_h > P.Hin) in_h = P.Hin;
    in_w = (tw - 1) * P.stride.w + P.window.w;
    if (in_w > P.Win) in_w = P.Win;
    if (P.channels_follow_input) in_c = tc;
  }
  const i64 x = (i64{in_h} * in_w * in_c * P.in_bpe + 3) & ~i64{3};
  const i64 y = (i64{th} * tw * tc * P.out_bpe + 3) & ~i64{3};
  const i64 w = ((i64{tc} * P.weights_per_channel + 3) & ~i64{3}) +
                ((i64{tc} * P.params_per_channel + 3) & ~i64{3});
  const i64 scratch =
      P.kind == op::depthwise
          ? (kernel_scratch_bytes(P.kind, P.cores, P.Cin, P.kernel, P.stride, th, P.pad) + 3) & ~3
          : (P.conv_scratch + 3) & ~3;
  const bool many_spatial = nh > 1 || nw > 1;
  const bool x_changes =
      !P.linear && (P.channels_follow_input ? many_spatial || nc > 1 : many_spatial);
  const i64 total = (x_changes ? 2 : 1) * x * P.inputs + (many_spatial || nc > 1 ? 2 : 1) * y +
                    (nc > 1 ? 2 : 1) * w + scratch;
  return total > 0x7fffffff ? 0x7fffffff : static_cast<int>(total);
}

/// An upper bound on the column tile that can fit next to a tc x th tile when there is more
/// than one tile (so the output is double-buffered): the need without alignment, with a
/// single input copy, grows linearly with the column tile.
constexpr int widest_column_tile_bound(const tiling_problem& P, int tc, int th) {
  using plan_detail::min_int;
  if (P.linear) return P.W;
  const std::int64_t in_h = min_int(input_extent(th, P.window.h, P.stride.h), P.Hin);
  const std::int64_t in_c = (P.channels_follow_input ? tc : P.Cin) * std::int64_t{P.in_bpe};
  const std::int64_t per_col = in_h * in_c * P.inputs * P.stride.w + 2LL * th * tc * P.out_bpe;
  const std::int64_t fixed = in_h * in_c * P.inputs * (P.window.w - P.stride.w) +
                             std::int64_t{tc} * (P.weights_per_channel + P.params_per_channel);
  const std::int64_t room = P.l1_budget - fixed;
  if (room < per_col) return 1;
  const std::int64_t w = room / per_col;
  return w < P.W ? static_cast<int>(w) : P.W;
}

/// The smallest L1 any tiling of the layer needs. Along each axis, with the other two fixed,
/// the need grows with the tile size except where a single tile drops double buffering, so
/// the minimum is at a tile of 1 or of the whole axis on each axis: 8 candidates.
constexpr int min_l1_need(const tiling_problem& P) {
  int best = 0x7fffffff;
  if (P.linear) {  // 1 or all channels, by the whole reduction or by its smallest K tile
    const int K = linear_k(P);
    const int ks[2] = {K, linear_k_tile(K, plan_detail::ceil_div(K, 4))}, cs[2] = {1, P.C};
    for (int c : cs)
      for (int k : ks) {
        // Output buffers of one channel tile: the least (a larger group only fills room).
        const std::int64_t m = l1_bytes_linear_as(P, c, k, 1);
        if (m < best) best = m > 0x7fffffff ? 0x7fffffff : static_cast<int>(m);
      }
    return best;
  }
  const int hs[2] = {1, P.H < P.max_tile_h ? P.H : P.max_tile_h},
            ws[2] = {P.whole_rows ? P.W : 1, P.W}, cs[2] = {1, P.C};
  for (int c : cs)
    for (int h : hs)
      for (int w : ws) {
        const int m = l1_bytes_for(P, c, P.linear ? 1 : h, P.linear ? 1 : w);
        if (m < best) best = m;
      }
  return best;
}

}  // namespace ctile
