// What the planner decides for one layer, as a structural aggregate of plain ints: usable as
// a template argument, so the runtime can generate statically sized tile loops from it.
#pragma once

#include <cstdint>

#include "ctile/core/split.hpp"
#include "ctile/layers/layer.hpp"
#include "ctile/plan/cost_model.hpp"
#include "ctile/plan/problem.hpp"

namespace ctile {

/// What the L2 -> L1 search optimises.
enum class objective : std::uint8_t {
  model,  ///< modeled cycles (ctile::cost), the default
  dory,   ///< DORY's weighted L1 fill + PULP-NN heuristics
};
constexpr const char* objective_name(objective o) {
  return o == objective::model ? "model" : "dory";
}

/// Byte offsets of the L1 buffers from the start of the layer's L1 arena. A buffer that is not
/// double-buffered has both entries equal; a buffer the layer does not use has size 0.
struct l1_layout {
  int x[2] = {};
  int x2[2] = {};  ///< second input of a residual add
  int y[2] = {};
  int w[2] = {};
  int kl[2] = {};  ///< bias, kappa, lambda (int32 each, per output channel of the tile)
  int scratch = 0;
  int total = 0;
  friend constexpr bool operator==(const l1_layout&, const l1_layout&) = default;
};

/// Where a layer's tensors live beyond L2, and how they are striped through L2
/// (DESIGN.md section 2: none -> input rows -> weights by output channels -> output rows ->
/// weights and activations together).
struct l3_decision {
  int stage = 1;       ///< 1: nothing tiled; 2: input rows; 3: weights; 4: output rows; 5: both
  bool x = false;      ///< the input is read from L3 (by row stripes)
  bool w = false;      ///< the weights are read from L3
  bool y = false;      ///< the output is written to L3 (by row stripes)
  int w_stripe_c = 0;  ///< output channels per L2 weight stripe (the layer's C when whole)
  int x_stripe_h = 0;  ///< input rows per L2 stripe, halo included (the layer's H_in when whole)
  int y_stripe_h = 0;  ///< output rows per L2 stripe (the layer's H when whole)
  int l2_x = 0;        ///< L2 bytes of the input buffer(s) (stripes double-buffered)
  int l2_w = 0;        ///< L2 bytes of the weight buffer(s), per-channel parameters included
  int l2_y = 0;        ///< L2 bytes of the output buffer(s)
  bool prefetch_next = false;  ///< the next layer's weights are loaded while this layer runs
  int prefetch_bytes = 0;      ///< L2 bytes set aside for them
  std::int64_t l3_bytes = 0;   ///< bytes moved between L3 and L2 for this layer
  std::int64_t cycles = 0;     ///< modeled L3 transfer cycles not hidden behind compute
  /// Modeled L3 cycles of the layer's own transfers during its loop nest: what a prefetch of
  /// the next layer's weights, started with the layer, finds the L3 channel busy with.
  std::int64_t busy = 0;
  friend constexpr bool operator==(const l3_decision&, const l3_decision&) = default;
};

/// The plan of one layer. Output tiles: `tile_*` per axis, `n_*` of them, the last one `last_*`
/// (equal to `tile_*` when the axis divides evenly). Input tile extents for the x buffer, the
/// border tile's input extents (clipped to the input), the L1 layout, the core split, the L3
/// decisions and the model's cycles.
struct layer_plan {
  op kind = op::input;
  bool fits = true;
  int tile_h = 1, tile_w = 1, tile_c = 1;
  int n_h = 1, n_w = 1, n_c = 1;
  int last_h = 1, last_w = 1, last_c = 1;
  int in_h = 0, in_w = 0, in_c = 0;  ///< input tile extents (the x buffer's shape)
  int in_last_h = 0, in_last_w = 0;  ///< input rows/columns the last tile reads
  /// Linear: bytes of the reduction (flattened input) per tile, their tile count and the last
  /// tile's bytes; tile_k is the whole reduction when it is not cut. 0 for other kinds.
  int tile_k = 0, n_k = 1, last_k = 0;
  int x_bytes = 0, x2_bytes = 0, y_bytes = 0, w_bytes = 0, kl_bytes = 0, scratch_bytes = 0;
  int x_copies = 1, y_copies = 1, w_copies = 1;
  l1_layout l1{};
  int l1_budget = 0;
  int l1_needed = 0;  ///< the smallest L1 any tiling of this layer needs
  core_split split{};
  int cores = 0;  ///< the cores that work (fewer than the cluster's when L1 limits the scratch)
  l3_decision l3{};
  std::int64_t l1_cycles = 0;  ///< modeled cycles of the L2 <-> L1 loop nest
  std::int64_t cycles = 0;     ///< l1_cycles plus unhidden L3 traffic
  std::int64_t macs = 0;
  std::int64_t score = 0;             ///< the objective's value (cycles, or DORY's score)
  objective goal = objective::model;  ///< the objective it was chosen by
  int max_tile_h = 0;                 ///< the row-tile cap it was planned with (0: none)
  /// The output tensor is kept channel-major (CHW) in L2, for a depthwise layer that reads it
  /// (set by the network plan: choose_channel_major).
  bool out_chw = false;
  /// The input tensor is channel-major in L2 (a depthwise layer whose producer stores CHW): an
  /// input tile is one command instead of one per channel.
  bool in_chw = false;
  friend constexpr bool operator==(const layer_plan&, const layer_plan&) = default;

  [[nodiscard]] constexpr std::int64_t tiles() const { return std::int64_t{n_h} * n_w * n_c * n_k; }
  /// More than one row or column tile: the loop nest steps through rows and columns (its
  /// spatial path, cost::loop_cost::spatial_tile_cycles), where otherwise every tile is a
  /// channel tile of its own.
  [[nodiscard]] constexpr bool spatial() const { return n_h * n_w > 1; }
  /// Channel tiles per output buffer (`eb`: the output's bytes per element): each tile writes
  /// its outputs after the previous one's, and the buffer goes to L2 in one command once full
  /// (or at the end of the loop nest's call). 1 for most plans; a linear layer's group
  /// (linear_y_group), and a channel-major convolution's with one spatial tile
  /// (choose_output_groups); every channel tile when one buffer holds the whole output.
  [[nodiscard]] constexpr int y_group(int eb) const {
    if (y_copies == 1) return n_c;
    const int tile = tile_h * tile_w * tile_c * eb;
    return tile > 0 && y_bytes / tile > 1 ? y_bytes / tile : 1;
  }
};

/// Weights per output channel of a channel tile's last K tile, the bytes its parameters follow
/// when merged: the plan's last K tile when it cuts the reduction, else the layer's `wpc`.
constexpr int last_k_weights(const layer_plan& p, int wpc) {
  return p.n_k > 1 ? p.last_k : wpc;
}

namespace cost {
/// params_apart_cycles of a plan's channel tiles (all of them: multiply by `p.n_c`).
constexpr std::int64_t params_apart_cycles(const tiling_problem& P, const layer_plan& p) {
  return params_apart_cycles(P, p.tile_c, p.last_c, last_k_weights(p, P.weights_per_channel));
}
}  // namespace cost

/// DORY's objective (to maximise), times 2 to stay integral: alpha = 0.5 on the L1 bytes of
/// the input, output and weight buffers, beta = 10^2 on HIDE_IM2COL (output channels of a
/// standard conv's tile), beta = 10^6 on PAR_BALANCE ((h - 1) mod 8), MATMUL_W
/// ((w - 1) mod 2), MATMUL_CH ((c - 1) mod 4) and on the same three terms of the border tiles.
constexpr std::int64_t dory_score(const tiling_problem& P, int tc, int th, int tw, int tk = 0) {
  using plan_detail::ceil_div;
  const tile_buffers b = buffers_for(P, tc, th, tw, tk);
  // A linear layer's output counted as DORY buffers it: a channel tile, double-buffered.
  const std::int64_t y =
      P.linear ? std::int64_t{b.nc > 1 ? 2 : 1} * tc * P.out_bpe : std::int64_t{b.y_copies} * b.y;
  const std::int64_t fill =
      std::int64_t{b.x_copies} * (b.x + b.x2) + y + std::int64_t{b.w_copies} * b.w;
  const int lh = P.H - (b.nh - 1) * th, lw = P.W - (b.nw - 1) * tw, lc = P.C - (b.nc - 1) * tc;
  const std::int64_t shape_terms =
      (th - 1) % 8 + (tw - 1) % 2 + (tc - 1) % 4 + (lh - 1) % 8 + (lw - 1) % 2 + (lc - 1) % 4;
  const std::int64_t im2col = P.kind == op::conv ? tc : 0;
  return fill + 2 * 100 * im2col + 2 * 1000000 * shape_terms;
}

/// Builds the full plan of a tiling choice (buffers, layout, border tiles, cycles); `tk` is a
/// linear layer's K tile (0: the whole reduction).
constexpr layer_plan make_layer_plan(const tiling_problem& P, int tc, int th, int tw,
                                     core_split split, int tk = 0) {
  using plan_detail::align4;
  layer_plan r;
  r.kind = P.kind;
  const tile_buffers b = buffers_for(P, tc, th, tw, tk);
  if (P.linear) {
    r.tile_k = b.tk, r.n_k = b.nk;
    r.last_k = linear_k(P) - (b.nk - 1) * b.tk;
  }
  r.tile_h = th, r.tile_w = tw, r.tile_c = tc;
  r.n_h = b.nh, r.n_w = b.nw, r.n_c = b.nc;
  r.last_h = P.H - (b.nh - 1) * th, r.last_w = P.W - (b.nw - 1) * tw;
  r.last_c = P.C - (b.nc - 1) * tc;
  r.in_h = b.in_h, r.in_w = b.in_w, r.in_c = b.in_c;
  if (P.linear) {
    r.in_last_h = P.Hin, r.in_last_w = P.Win;
  } else {
    r.in_last_h =
        input_span_of((b.nh - 1) * th, r.last_h, P.Hin, P.pad.t, P.window.h, P.stride.h).size;
    r.in_last_w =
        input_span_of((b.nw - 1) * tw, r.last_w, P.Win, P.pad.l, P.window.w, P.stride.w).size;
  }
  r.x_bytes = b.x, r.x2_bytes = b.x2, r.y_bytes = b.y, r.w_bytes = b.w, r.kl_bytes = b.kl;
  r.scratch_bytes = b.scratch;
  r.x_copies = b.x_copies, r.y_copies = b.y_copies, r.w_copies = b.w_copies;
  // Offsets in 64 bits: a layer that fits nowhere may describe buffers beyond any int.
  std::int64_t at = 0;
  auto off = [](std::int64_t v) { return v > 0x7fffffff ? 0x7fffffff : static_cast<int>(v); };
  auto place = [&](int(&slot)[2], int bytes, int copies) {
    slot[0] = off(at);
    at += align4(bytes);
    slot[1] = copies > 1 ? off(at) : slot[0];
    if (copies > 1) at += align4(bytes);
  };
  place(r.l1.x, b.x, b.x_copies);
  place(r.l1.x2, b.x2, b.x_copies);
  place(r.l1.y, b.y, b.y_copies);
  // Each weight buffer is followed by its parameter buffer: a channel tile whose weights end
  // on a word brings both in one command (schedule/weight_layout.hpp).
  for (int k = 0; k < b.w_copies && k < 2; ++k) {
    r.l1.w[k] = off(at);
    at += align4(b.w);
    r.l1.kl[k] = off(at);
    at += align4(b.kl);
  }
  if (b.w_copies < 2) r.l1.w[1] = r.l1.w[0], r.l1.kl[1] = r.l1.kl[0];
  r.l1.scratch = off(at);
  at += align4(b.scratch);
  r.l1.total = off(at);
  r.l1_budget = P.l1_budget;
  r.fits = at <= P.l1_budget;
  r.l1_needed = min_l1_need(P);
  r.split = split;
  r.cores = P.cores;
  r.macs = P.macs;
  r.l1_cycles = cost::layer_cycles(P, tc, th, tw, split, r.n_k > 1 ? r.tile_k : 0);
  r.cycles = r.l1_cycles;
  return r;
}

}  // namespace ctile
