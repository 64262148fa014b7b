// The network-level plan: every layer's L2 -> L1 tiling, the L3 -> L2 cascade per layer, and
// the L2 arena laid out as DORY's bidirectional stack, all constexpr. `plan_of<Net, Platform>`
// plans a network type at compile time and stops the build, naming the layer and the bytes,
// when it does not fit; `plan_network` runs the same code at run time (ctile-plan). When a
// generated header carries a joint solve's L3 decisions (imported_l3), `plan_of` re-checks
// and uses them (finish_network_imported) instead of the greedy cascade.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <utility>

#include "ctile/layers/layer.hpp"
#include "ctile/network/diagnostic.hpp"
#include "ctile/plan/channel_major.hpp"
#include "ctile/plan/cost_model.hpp"
#include "ctile/plan/imported.hpp"
#include "ctile/plan/layer_plan.hpp"
#include "ctile/plan/output_group.hpp"
#include "ctile/plan/search.hpp"
#include "ctile/platform/platform.hpp"

namespace ctile {

/// One buffer in the L2 arena: byte offset from the arena's start, size, which end of the
/// bidirectional stack it sits on, and the layers (steps) during which it is alive.
struct l2_slot {
  int offset = -1;  ///< -1: no buffer
  int bytes = 0;
  bool high = false;  ///< allocated from the top of the arena downwards
  int from = 0;       ///< first step it is alive (the step that allocates it)
  int until = 0;      ///< last step it is alive
  friend constexpr bool operator==(const l2_slot&, const l2_slot&) = default;
};

/// Why a layer's weights live where they do (layer_l2::w_why).
enum class weight_reason : std::uint8_t {
  none,      ///< the layer has no weights
  fits,      ///< resident in L2: they fit beside the activations at every step
  no_l3,     ///< resident in L2: the platform has no L3
  l2_full,   ///< streamed from L3: with them resident (and the weights moved to L3 after
             ///< them), step w_step (-1: the arena) would need w_needs bytes of L2
  forced,    ///< streamed from L3: the platform forces it (platform::stream_weights)
  imported,  ///< placed by an imported joint solve (imported_l3), re-checked
};
constexpr const char* weight_reason_name(weight_reason r) {
  switch (r) {
    case weight_reason::none:
      return "none";
    case weight_reason::fits:
      return "fits";
    case weight_reason::no_l3:
      return "no_l3";
    case weight_reason::l2_full:
      return "l2_full";
    case weight_reason::forced:
      return "forced";
    case weight_reason::imported:
      return "imported";
  }
  return "?";
}

/// A layer's L2 buffers: its output (whole, or double-buffered row stripes when the output
/// goes to L3), its weights (resident for the whole run, or whole or double-buffered channel
/// stripes from L3, prefetched during the previous layer) and, when its input is read from
/// L3, the input stripes. An input held in L2 is the producing layer's `y`.
struct layer_l2 {
  l2_slot x{};
  l2_slot w{};
  l2_slot y{};
  int l3_w = -1;  ///< L3 offset of the weights (-1: not in L3: resident in L2, or none)
  int l3_y = -1;  ///< L3 offset of the output (-1: not in L3)
  /// Why the weights are resident in L2 or streamed from L3; for weight_reason::l2_full, the
  /// step whose L2 would not hold them (w_step) and the bytes it would need with them
  /// resident (w_needs), against the L2 budget.
  weight_reason w_why = weight_reason::none;
  int w_step = -1;
  std::int64_t w_needs = 0;
};

/// What went wrong, if anything.
enum class plan_fault : std::uint8_t {
  none,
  l1,               ///< a layer fits no L1 tiling
  l2_layer,         ///< a layer's L2 buffers do not fit
  l2_arena,         ///< the network's L2 arena does not fit
  l3,               ///< L3 is too small
  too_many_layers,  ///< more than max_layers layers
  not_inferred,     ///< layers without resolved sources, or spans of different sizes
  imported,         ///< imported L3 decisions break a constraint (network_summary::violated)
  /// A layer needs a re-plan with thinner row tiles that was not made ahead (`layer`; `needs`:
  /// the row-tile cap): the compile-time planner makes it and finishes the network again
  /// (replan_table). Never the outcome of a finished plan.
  replan,
};

/// The most layers a network plan handles.
inline constexpr int max_layers = 256;

struct network_summary {
  plan_fault problem = plan_fault::none;
  int layer = -1;          ///< the layer at fault
  std::int64_t needs = 0;  ///< bytes it would need (L1 or L2) or the arena peak / L3 use
  std::int64_t budget = 0;
  int l2_peak = 0;  ///< bytes of the L2 arena (the bidirectional stack's peak)
  int l2_budget = 0;
  int dory_bound = 0;  ///< max_i(x_i + w_i + w_i+1 + y_i) + live residuals
  std::int64_t l3_used = 0;
  std::int64_t l3_budget = 0;
  bool weights_in_l3 = false;           ///< some layer's weights stream from L3
  std::int64_t weights_resident = 0;    ///< bytes of weights resident in L2 (staged once)
  std::int64_t weights_streamed = 0;    ///< bytes of weights in L3 (read every frame)
  std::int64_t l3_bytes_per_frame = 0;  ///< L3 <-> L2 traffic of one inference (every layer)
  std::int64_t cycles = 0;
  std::int64_t macs = 0;
  imported_constraint violated = imported_constraint::none;  ///< for plan_fault::imported
  [[nodiscard]] constexpr bool ok() const { return problem == plan_fault::none; }
};

namespace plan_detail {

[[gnu::always_inline]] constexpr int align4l(std::int64_t b) {
  return static_cast<int>((b + 3) & ~std::int64_t{3});
}

/// Bytes of a layer's weights and per-channel parameters.
[[gnu::always_inline]] constexpr std::int64_t weight_bytes(const layer& l) {
  return l.weight_count() +
         std::int64_t{4} * l.channel_params() * ((l.bias ? 1 : 0) + (l.batchnorm ? 2 : 0));
}
/// Bytes of a layer's input(s), each in its element width (2 bytes for a 16-bit tensor).
[[gnu::always_inline]] constexpr std::int64_t input_bytes(const layer& l) {
  return l.in.elements() *
         (l.input_bytes_per_element(0) + (l.kind == op::add ? l.input_bytes_per_element(1) : 0));
}
/// Bytes of one row of a layer's input as staged in L2 from L3 (an add's two inputs each get
/// rows of the wider one's width).
[[gnu::always_inline]] constexpr std::int64_t input_row_bytes(const layer& l) {
  return std::int64_t{l.in.w} * l.in.c * l.input_bytes_max();
}
constexpr int last_consumer(std::span<const layer> ls, int i) {
  int last = -1;
  for (std::size_t j = static_cast<std::size_t>(i) + 1; j < ls.size(); ++j)
    if (ls[j].src[0] == i || ls[j].src[1] == i) last = static_cast<int>(j);
  return last;
}

/// Input rows a band of `band` output rows reads (the whole input for a linear layer).
constexpr int band_input_rows(const layer& l, int band) {
  if (l.kind == op::linear) return l.in.h;
  const int r = (band - 1) * l.stride.h + l.window().h;
  return r < l.in.h ? r : l.in.h;
}

/// L2 bytes of the inputs of a layer that stay whole in L2 while `inputs_in_l3` > 0 of its
/// inputs come from L3 (an add's other input), each in the wider input's element width as the
/// stripes are; 0 when no input comes from L3 (the inputs then count as `input_bytes`).
constexpr std::int64_t resident_input_bytes(const layer& l, int inputs_in_l3) {
  if (inputs_in_l3 <= 0) return 0;
  return std::int64_t{align4l(l.in.elements() * l.input_bytes_max())} * (l.inputs() - inputs_in_l3);
}

}  // namespace plan_detail

/// L2 bytes of a layer's buffers for one L3 choice (DESIGN.md section 2): `inputs_in_l3` of its
/// inputs read from L3 in double-buffered bands of `band` output rows (the others whole in
/// L2: `x_resident`), weights whole or in double-buffered stripes of `wc` output channels,
/// the output whole or in double-buffered bands.
struct l3_buffer_bytes {
  std::int64_t x = 0, x_resident = 0, w = 0, y = 0;
};
constexpr l3_buffer_bytes l3_buffers(const layer& l, int inputs_in_l3, int band, bool w_striped,
                                     int wc, bool y_rows) {
  using plan_detail::align4l;
  l3_buffer_bytes b;
  const std::int64_t W = plan_detail::weight_bytes(l);
  const std::int64_t per_channel_w = l.out.c > 0 ? W / l.out.c : 0;
  const std::int64_t row_y = std::int64_t{l.out.w} * l.out.c * l.output_bytes_per_element();
  const bool input_in_l3 = inputs_in_l3 > 0;
  const std::int64_t in_row = plan_detail::input_row_bytes(l) * (input_in_l3 ? inputs_in_l3 : 1);
  b.x = input_in_l3 ? 2 * align4l(plan_detail::band_input_rows(l, band) * in_row)
                    : align4l(plan_detail::input_bytes(l));
  b.x_resident = plan_detail::resident_input_bytes(l, inputs_in_l3);
  b.y = y_rows ? 2 * align4l(band * row_y) : align4l(row_y * l.out.h);
  b.w = w_striped && W > 0 ? 2 * align4l(wc * per_channel_w) : align4l(W);
  return b;
}

/// Bytes of the first block of layer `l`'s weights under decision `d` (0 when they are not read
/// from L3): the first channel stripe, or the whole weights; what a prefetch during the
/// previous step reads, and what a layer that is not prefetched reads before its loop nest.
constexpr std::int64_t first_weight_block_bytes(const layer& l, const l3_decision& d) {
  const std::int64_t W = plan_detail::weight_bytes(l);
  if (!d.w || W == 0) return 0;
  const bool striped = d.w_stripe_c > 0 && d.w_stripe_c < l.out.c;
  return striped ? d.w_stripe_c * (W / l.out.c) : W;
}

/// The L3 cycles of that block (one transfer).
constexpr std::int64_t first_weight_block_cycles(const layer& l, const platform& p,
                                                 const l3_decision& d) {
  const std::int64_t b = first_weight_block_bytes(l, d);
  return b > 0 ? cost::l3_cycles(p, b, 1) : 0;
}

/// The cycles of the previous step a prefetch of this layer's first weight block hides behind:
/// that step's loop nest less its own L3 transfers (`prev`'s L1 cycles and decision).
constexpr std::int64_t prefetch_slack(const layer_plan& prev) {
  const std::int64_t s = prev.l1_cycles - prev.l3.busy;
  return s > 0 ? s : 0;
}

/// The L3 traffic of a layer's decision `d` (its placement and stripes) and the cycles of it
/// not hidden behind the layer's L1 loop nest: fills d.l3_bytes, d.cycles and d.busy. The
/// first weight block (the whole weights, or the first stripe) is read before the loop nest
/// starts: by the previous step when `prefetched` is at least 0 (that step's slack: what of the
/// read goes beyond it shows), else by this one, all of it showing.
constexpr void l3_traffic(const layer& l, const layer_plan& lp, const platform& p, int inputs_in_l3,
                          l3_decision& d, std::int64_t prefetched = -1) {
  const std::int64_t W = plan_detail::weight_bytes(l);
  const std::int64_t row_y = std::int64_t{l.out.w} * l.out.c * l.output_bytes_per_element();
  const std::int64_t Y = row_y * l.out.h;
  const std::int64_t in_row =
      plan_detail::input_row_bytes(l) * (inputs_in_l3 > 0 ? inputs_in_l3 : 1);
  auto in_rows = [&](int band) { return plan_detail::band_input_rows(l, band); };
  // L3 traffic: weights (reloaded per row band when both are striped), input and output.
  const int bands = d.y_stripe_h > 0 ? (l.out.h + d.y_stripe_h - 1) / d.y_stripe_h : 1;
  std::int64_t bytes = 0, transfers = 0, exposed = 0, first = 0;
  if (d.w && W > 0) {
    const int wstripes = d.w_stripe_c > 0 ? (l.out.c + d.w_stripe_c - 1) / d.w_stripe_c : 1;
    const int reloads = d.stage == 5 ? bands : 1;
    bytes += W * reloads;
    transfers += std::int64_t{wstripes} * reloads;
    first = first_weight_block_bytes(l, d);
    const std::int64_t t = first_weight_block_cycles(l, p, d);
    exposed += prefetched >= 0 ? (t > prefetched ? t - prefetched : 0) : t;
  }
  if (d.x) {
    bytes += std::int64_t{bands} * in_rows(d.y_stripe_h) * in_row;
    transfers += bands;
    exposed += cost::l3_cycles(p, in_rows(d.y_stripe_h) * in_row, 1);
  }
  if (d.y) {
    bytes += Y;
    transfers += bands;
    exposed += cost::l3_cycles(p, d.y_stripe_h * row_y, 1);
  }
  d.l3_bytes = bytes;
  // The rest overlaps the L1 loop nest (double-buffered stripes); what does not fit shows.
  const std::int64_t l3 = cost::l3_cycles(p, bytes - first, transfers - (first > 0 ? 1 : 0));
  d.busy = l3;
  d.cycles = (l3 > lp.l1_cycles ? l3 - lp.l1_cycles : 0) + exposed;
}

/// The L3 -> L2 cascade of one layer (DESIGN.md section 2), given its L1 plan: the first of
/// (1) everything whole in L2, (2) the same with the input read from L3 by row stripes,
/// (3) weights by output-channel stripes, (4) output rows to L3, (5) both, whose buffers fit
/// `budget` next to `prefetch` bytes of the next layer's weights. Stripes are whole L1 tiles
/// (channel stripes a multiple of tile_c, row stripes of tile_h) and double-buffered.
/// Weights not in L3 (`weights_in_l3` false) are resident: the caller has taken them out of
/// `budget` with the other resident weights, so they are not counted again here.
/// Returns stage 0 if nothing fits, with the least bytes it would need in `l2_x`.
constexpr l3_decision l3_cascade(const layer& l, const layer_plan& lp, const platform& p,
                                 int inputs_in_l3, bool weights_in_l3, std::int64_t budget,
                                 std::int64_t prefetch, std::int64_t prefetched = -1) {
  using plan_detail::align4l;
  l3_decision d;
  const std::int64_t W = plan_detail::weight_bytes(l);
  const std::int64_t per_channel_w = l.out.c > 0 ? W / l.out.c : 0;
  const std::int64_t row_y = std::int64_t{l.out.w} * l.out.c * l.output_bytes_per_element();
  const std::int64_t Y = row_y * l.out.h;
  // Inputs read from L3 come in row stripes; an add's other input may stay in L2.
  const bool input_in_l3 = inputs_in_l3 > 0;
  const std::int64_t in_row = plan_detail::input_row_bytes(l) * (input_in_l3 ? inputs_in_l3 : 1);
  const std::int64_t X = plan_detail::input_bytes(l);
  const std::int64_t x_resident = plan_detail::resident_input_bytes(l, inputs_in_l3);
  const int k_h = l.kind == op::linear ? l.in.h : l.window().h;
  const int s_h = l.kind == op::linear ? 1 : l.stride.h;
  auto in_rows = [&](int band) {
    if (l.kind == op::linear) return l.in.h;
    const int r = (band - 1) * s_h + k_h;
    return r < l.in.h ? r : l.in.h;
  };
  const int th = lp.tile_h > 0 ? lp.tile_h : 1;
  const int tc = lp.tile_c > 0 ? lp.tile_c : 1;
  const bool has_w = W > 0;
  // Sizes of each option, largest stripes first; returns true when it fits.
  auto try_option = [&](bool w_striped, bool y_rows) -> bool {
    // Row band: whole output unless rows are striped (or the input comes from L3, which
    // needs a band too); the largest band (a multiple of the L1 row tile) that fits.
    const bool banded = y_rows || input_in_l3;
    for (int band = l.out.h; band >= 1;) {
      const l3_buffer_bytes sizes = l3_buffers(l, inputs_in_l3, band, false, l.out.c, y_rows);
      const std::int64_t xb = sizes.x, yb = sizes.y;
      // Weight stripe: a multiple of the L1 channel tile.
      std::int64_t wb = align4l(W);
      int wc = l.out.c;
      if (w_striped && has_w) {
        // Among the stripes that fit, the one with the fewest modeled cycles: the first stripe
        // shows (beyond the previous step's slack when that step prefetches it), the rest
        // overlap the loop nest (ties: the larger stripe).
        const std::int64_t room = budget - prefetch - xb - x_resident - yb;
        wc = 0;
        std::int64_t best = INT64_MAX;
        for (int c = (l.out.c / tc) * tc; c >= tc; c -= tc) {
          if (2 * align4l(c * per_channel_w) > room) continue;
          const std::int64_t stripes = (l.out.c + c - 1) / c;
          const std::int64_t rest = cost::l3_cycles(p, W - c * per_channel_w, stripes - 1);
          std::int64_t first = cost::l3_cycles(p, c * per_channel_w, 1);
          if (prefetched >= 0) first = first > prefetched ? first - prefetched : 0;
          const std::int64_t t = (rest > lp.l1_cycles ? rest - lp.l1_cycles : 0) + first;
          if (t < best) best = t, wc = c;
        }
        if (wc == 0) wc = tc;  // does not fit: reported below
        wb = 2 * align4l(wc * per_channel_w);
      }
      const std::int64_t total =
          xb + x_resident + yb + (has_w && weights_in_l3 ? wb : 0) + prefetch;
      if (total <= budget) {
        d.w = weights_in_l3 && has_w;
        d.x = input_in_l3;
        d.y = y_rows;
        d.w_stripe_c = wc;
        d.x_stripe_h = in_rows(banded ? band : l.out.h);
        d.y_stripe_h = banded ? band : l.out.h;
        d.l2_x = static_cast<int>(xb);
        d.l2_w = has_w ? static_cast<int>(wb) : 0;
        d.l2_y = static_cast<int>(yb);
        return true;
      }
      if (!banded) break;
      // Next: the largest multiple of the L1 row tile below this band (0 ends the loop).
      band = ((band - 1) / th) * th;
    }
    return false;
  };
  const bool can_stripe_w = has_w && weights_in_l3 && p.has_l3();
  const bool can_rows = p.has_l3() && l.kind != op::linear;
  if (try_option(false, false)) {
    d.stage = input_in_l3 ? 2 : 1;
    // Whole weights from L3 are read before the loop nest starts (by the previous step, or by
    // this one): stripes, the first read so and the rest behind the loop nest, may show less.
    if (can_stripe_w && l.out.c > tc) {
      l3_traffic(l, lp, p, inputs_in_l3, d, prefetched);
      const l3_decision whole = d;
      if (try_option(true, false)) {
        d.stage = 3;
        l3_traffic(l, lp, p, inputs_in_l3, d, prefetched);
        if (d.cycles >= whole.cycles || d.w_stripe_c >= l.out.c) d = whole;
      } else {
        d = whole;
      }
    }
  } else if (can_stripe_w && try_option(true, false))
    d.stage = 3;
  else if (can_rows && try_option(false, true))
    d.stage = 4;
  else if (can_rows && can_stripe_w && try_option(true, true))
    d.stage = 5;
  else {
    d.stage = 0;
    // The least it would need: one L1 row tile per stripe, one channel tile per weight stripe.
    const std::int64_t xb =
        input_in_l3 ? 2 * align4l(in_rows(th) * in_row) + x_resident : align4l(X);
    const std::int64_t yb = can_rows ? 2 * align4l(std::int64_t{th} * row_y) : align4l(Y);
    const std::int64_t wb = can_stripe_w    ? 2 * align4l(tc * per_channel_w)
                            : weights_in_l3 ? align4l(W)
                                            : 0;
    d.l2_x = static_cast<int>(xb + yb + wb + prefetch);
    return d;
  }
  l3_traffic(l, lp, p, inputs_in_l3, d, prefetched);
  return d;
}

/// The L2 arena laid out as a bidirectional stack, given every layer's L3 decisions: weights
/// not streamed from L3 resident at the bottom, each layer's output on the side opposite its
/// input, the next layer's weights prefetched above it, residual outputs kept until their last
/// consumer. Fills `l2` with the slots; returns the peak, DORY's bound and the first step whose
/// buffers go above `budget` (-1: none).
struct l2_stack_result {
  int peak = 0;
  int dory = 0;
  int over_step = -1;  ///< the first step at which the stack exceeds the budget
  int over_bytes = 0;  ///< the stack's bytes then
};
constexpr l2_stack_result layout_l2_stack(std::span<const layer> ls, std::span<layer_plan> plans,
                                          std::span<layer_l2> l2, std::int64_t budget) {
  using plan_detail::align4l;
  l2_stack_result r;
  const int n = static_cast<int>(ls.size());
  const int cap = n < max_layers ? n : max_layers;
  int last[max_layers] = {};
  for (int i = 0; i < cap; ++i) {
    const int c = plan_detail::last_consumer(ls, i);
    last[i] = c < 0 ? n - 1 : c;
  }
  int resident = 0;
  for (int i = 0; i < cap; ++i)
    if (!plans[static_cast<std::size_t>(i)].l3.w)
      resident += align4l(plan_detail::weight_bytes(ls[static_cast<std::size_t>(i)]));
  // Bidirectional stack. Each side is a LIFO of slots; freeing marks a slot dead and pops dead
  // slots off the top. Pass 1 assigns low offsets and depths of high slots, pass 2 turns
  // depths into offsets once the peak is known.
  struct entry {
    int layer;
    int which;  // 0 x, 1 w, 2 y
    int until;
    int bytes;
  };
  entry side_stack[2][3 * max_layers + 2] = {};
  int depth[2] = {0, 0}, top[2] = {0, 0};
  int peak = static_cast<int>(resident);
  auto slot_of = [&](int layer, int which) -> l2_slot& {
    auto& e = l2[static_cast<std::size_t>(layer)];
    return which == 0 ? e.x : which == 1 ? e.w : e.y;
  };
  auto push = [&](int side, int layer, int which, int bytes, int from, int until) {
    l2_slot& sl = slot_of(layer, which);
    sl.bytes = bytes;
    sl.high = side == 1;
    sl.from = from;
    sl.until = until;
    const int at = depth[side];
    depth[side] += bytes;
    sl.offset = side == 0 ? static_cast<int>(resident) + at : depth[side];  // high: depth for now
    side_stack[side][top[side]++] = entry{layer, which, until, bytes};
    const int used = static_cast<int>(resident) + depth[0] + depth[1];
    if (used > peak) peak = used;
    if (used > budget && r.over_step < 0) r.over_step = from, r.over_bytes = used;
  };
  auto release = [&](int step) {
    for (int side = 0; side < 2; ++side)
      while (top[side] > 0 && side_stack[side][top[side] - 1].until < step) {
        depth[side] -= side_stack[side][top[side] - 1].bytes;
        --top[side];
      }
  };
  int side_of_y[max_layers] = {};
  int dory = 0;
  for (int i = 0; i < cap; ++i) {
    const layer& l = ls[static_cast<std::size_t>(i)];
    const layer_plan& lp = plans[static_cast<std::size_t>(i)];
    release(i);
    const int in_side = l.src[0] >= 0 ? side_of_y[l.src[0]] : 1;
    // Side choice: DORY puts a layer's output opposite its input so that the input can be
    // popped when it dies. Generalised to residuals: a buffer goes where it nests, on a side
    // whose top lives at least as long (the tightest such), else where the top lives longest;
    // ties go opposite the input.
    auto side_for = [&](int until) {
      int best = 1 - in_side;
      int best_key = 0;
      for (int k = 0; k < 2; ++k) {
        const int side = k == 0 ? 1 - in_side : in_side;
        const int top_until = top[side] > 0 ? side_stack[side][top[side] - 1].until : 1 << 30;
        // Nesting sides rank first (smaller top lifetime better), then the longest-lived top.
        const int key = top_until >= until ? (1 << 30) - top_until + (1 << 29) : top_until;
        if (k == 0 || key > best_key) best = side, best_key = key;
      }
      return best;
    };
    const int y_until = lp.l3.y ? i : last[i];
    const int out_side = side_for(y_until);
    side_of_y[i] = out_side;
    if (lp.l3.l2_y > 0) push(out_side, i, 2, lp.l3.l2_y, i, y_until);
    if (lp.l3.x && lp.l3.l2_x > 0) push(side_for(i), i, 0, lp.l3.l2_x, i, i);
    // This layer's weights, unless the previous layer prefetched them.
    const bool prefetched = i > 0 && plans[static_cast<std::size_t>(i - 1)].l3.prefetch_next;
    if (lp.l3.w && lp.l3.l2_w > 0 && !prefetched) push(side_for(i), i, 1, lp.l3.l2_w, i, i);
    // The next layer's weights, fetched while this one runs.
    if (lp.l3.prefetch_next) {
      const layer_plan& nx = plans[static_cast<std::size_t>(i + 1)];
      push(side_for(i + 1), i + 1, 1, nx.l3.l2_w, i, i + 1);
    }
    // DORY's bound: input + weights + next weights + output, plus other live outputs.
    int live = 0;
    for (int j = 0; j < i; ++j)
      if (last[j] >= i && j != l.src[0] && j != l.src[1] &&
          !plans[static_cast<std::size_t>(j)].l3.y)
        live += plans[static_cast<std::size_t>(j)].l3.l2_y;
    // Its inputs: stripes of those in L3, the L2 buffers of the others.
    int x = lp.l3.x ? lp.l3.l2_x : 0;
    for (int k = 0; k < l.inputs(); ++k) {
      const layer_plan& src = plans[static_cast<std::size_t>(l.src[k])];
      if (!src.l3.y) x += src.l3.l2_y;
    }
    const int wn = lp.l3.prefetch_next ? plans[static_cast<std::size_t>(i + 1)].l3.l2_w : 0;
    const int b = x + (lp.l3.w ? lp.l3.l2_w : 0) + wn + lp.l3.l2_y + live;
    if (b > dory) dory = b;
  }
  for (int i = 0; i < cap; ++i) {
    auto& e = l2[static_cast<std::size_t>(i)];
    for (l2_slot* sl : {&e.x, &e.w, &e.y})
      if (sl->offset >= 0 && sl->high) sl->offset = peak - sl->offset;
  }
  // Weights resident in L2 (not streamed from L3): at the bottom, alive throughout.
  int at = 0;
  for (int i = 0; i < cap; ++i) {
    if (plans[static_cast<std::size_t>(i)].l3.w) continue;
    const int wb = align4l(plan_detail::weight_bytes(ls[static_cast<std::size_t>(i)]));
    if (wb == 0) continue;
    auto& sl = l2[static_cast<std::size_t>(i)].w;
    sl = {at, wb, false, 0, n - 1};
    at += wb;
    plans[static_cast<std::size_t>(i)].l3.l2_w = wb;
  }
  r.peak = peak;
  r.dory = dory + resident;
  return r;
}

/// The first layer reading a source that is not an earlier layer, or -1 (input that did not
/// come from shape inference is reported, not read out of bounds).
constexpr int first_source_out_of_order(std::span<const layer> ls) {
  for (int i = 0; i < static_cast<int>(ls.size()); ++i) {
    const layer& l = ls[static_cast<std::size_t>(i)];
    for (int k = 0; k < l.inputs(); ++k)
      if (l.src[k] < 0 || l.src[k] >= i) return i;
  }
  return -1;
}

/// The faults every network check reports before any arithmetic, in this order: spans not as
/// long as the layers (`spans_match` false: input that did not come from shape inference),
/// more layers than max_layers, a layer reading a source that is not an earlier layer, a layer
/// whose L1 plan does not fit (when `plans` is given). Sets `s` and returns true at the first;
/// leaves `s` alone and returns false when there is none.
constexpr bool structural_fault(network_summary& s, std::span<const layer> ls,
                                std::span<const layer_plan> plans, bool spans_match = true) {
  const int n = static_cast<int>(ls.size());
  if (!spans_match) {
    s.problem = plan_fault::not_inferred;
    return true;
  }
  if (n > max_layers) {
    s.problem = plan_fault::too_many_layers;
    s.needs = n;
    s.budget = max_layers;
    return true;
  }
  if (const int bad = first_source_out_of_order(ls); bad >= 0) {
    s.problem = plan_fault::not_inferred;
    s.layer = bad;
    return true;
  }
  for (int i = 0; i < static_cast<int>(plans.size()); ++i) {
    const auto& lp = plans[static_cast<std::size_t>(i)];
    if (!lp.fits) {
      s.problem = plan_fault::l1;
      s.layer = i;
      s.needs = lp.l1_needed;
      s.budget = lp.l1_budget;
      return true;
    }
  }
  return false;
}

/// Which depthwise inputs stay channel-major (CHW) in L2, written so by their producer: the
/// depthwise kernel reads its input tile CHW, so an HWC input is marshalled channel by channel
/// (one command per channel of every tile) while a CHW one is one command per tile. A tensor
/// qualifies when a standard or pointwise convolution with 8-bit outputs produces it, the
/// depthwise layer is its only reader (sole_depthwise_reader), it never goes to L3 (neither
/// written out by row stripes nor read back so), and both layers cut it in whole-width tiles
/// (so that each tile's store and load is one 2-D command of whole rows per channel; the
/// planner prefers such tiles for the producer: plan_producer).
constexpr void choose_channel_major(std::span<const layer> ls, std::span<layer_plan> plans,
                                    std::span<const layer_l2> l2) {
  const auto n = ls.size();
  for (auto& pl : plans) pl.out_chw = pl.in_chw = false;
  for (std::size_t i = 0; i < n; ++i) {
    const int r = sole_depthwise_reader(ls, i);
    if (r < 0) continue;
    const auto j = static_cast<std::size_t>(r);
    if (l2[i].l3_y >= 0 || plans[i].l3.y || plans[j].l3.x) continue;
    if (plans[i].n_w != 1 || plans[j].n_w != 1) continue;
    plans[i].out_chw = true;
    plans[j].in_chw = true;
  }
}

/// The problem of layer `l` with row tiles of at most `cap` rows: what the L3 cascade re-plans
/// a layer with when even one of its L1 row tiles is too big for a row stripe in L2.
constexpr tiling_problem capped_problem(const layer& l, const platform& p, int cap) {
  tiling_problem t = make_problem(l, p);
  t.max_tile_h = cap;
  return t;
}

/// Re-plans with thinner row tiles made ahead of the network's finishing (finish_network_with
/// looks each up by its problem). A compile-time plan makes each in a sliced search of its
/// own, as the layers' plans are made, so that the constant that finishes the network runs no
/// search and stays under the compilers' default limits however many layers the cascade
/// re-plans (plan_detail::finish_stage). Layers of equal shape share an entry.
struct replan_table {
  static constexpr int capacity = 32;
  int n = 0;
  tiling_problem problem[capacity]{};
  layer_plan plan[capacity]{};
  /// The plan made ahead for problem `q`, or nullptr.
  [[nodiscard]] constexpr const layer_plan* find(const tiling_problem& q) const {
    for (int i = 0; i < n; ++i)
      if (problem[i] == q) return &plan[i];
    return nullptr;
  }
  /// Full: a further re-plan is searched where it is needed.
  [[nodiscard]] constexpr bool full() const { return n >= capacity; }
};

/// Completes a network's plan from its layers' L1 plans, given where each layer's weights live
/// (`w_l3[i]`: streamed from L3, else resident in L2 for the whole run): runs the L3 cascade
/// per layer next to the resident weights, lays the L2 arena out as a bidirectional stack
/// (resident weights at the bottom, each layer's output on the side opposite its input, the
/// next layer's streamed weights prefetched above it, residual outputs kept until their last
/// consumer) and totals the cycles.
constexpr network_summary finish_network_with(std::span<const layer> ls, const platform& p,
                                              std::span<layer_plan> plans, std::span<layer_l2> l2,
                                              std::int64_t slack, std::span<const bool> w_l3,
                                              const replan_table* ahead = nullptr) {
  using plan_detail::align4l;
  network_summary s;
  const int n = static_cast<int>(ls.size());
  const std::int64_t budget = p.l2_budget();
  s.l2_budget = p.l2_budget();
  s.l3_budget = p.l3_bytes;
  // Input that did not come from shape inference is reported, not read out of bounds.
  if (structural_fault(
          s, ls, plans,
          plans.size() == ls.size() && l2.size() == ls.size() && w_l3.size() == ls.size()))
    return s;
  for (auto& e : l2) e = layer_l2{};
  // Resident weights stay in L2 for the whole run; the others live in L3 and each layer's are
  // brought in (prefetched) when it runs.
  auto streams = [&](int i) {
    return i < n && w_l3[static_cast<std::size_t>(i)] && p.has_l3() &&
           plan_detail::weight_bytes(ls[static_cast<std::size_t>(i)]) > 0;
  };
  std::int64_t resident = 0;
  for (int i = 0; i < n; ++i) {
    const std::int64_t wb = align4l(plan_detail::weight_bytes(ls[static_cast<std::size_t>(i)]));
    if (streams(i)) {
      s.weights_in_l3 = true;
      s.weights_streamed += wb;
    } else {
      resident += wb;
    }
  }
  s.weights_resident = resident;

  // Lifetimes of outputs.
  int last[max_layers] = {};
  const int cap = n;
  for (int i = 0; i < n; ++i) {
    const int c = plan_detail::last_consumer(ls, i);
    last[i] = c < 0 ? n - 1 : c;
  }

  // L3: the streamed weights first, then outputs placed there.
  std::int64_t l3_next = 0;
  for (int i = 0; i < n; ++i) {
    if (!streams(i)) continue;
    l2[static_cast<std::size_t>(i)].l3_w = static_cast<int>(l3_next);
    l3_next += align4l(plan_detail::weight_bytes(ls[static_cast<std::size_t>(i)]));
  }
  // The cascade of a layer depends on the L2 buffer the next layer's weights take (prefetched
  // while this one runs), which depends on the next layer's own cascade: iterate, starting
  // from whole weights, and keep a prefetch only where the final sizes fit.
  std::int64_t est_w[max_layers + 1] = {};
  for (int i = 0; i < cap; ++i)
    est_w[i] = streams(i) ? align4l(plan_detail::weight_bytes(ls[static_cast<std::size_t>(i)])) : 0;
  const std::int64_t l3_acts = l3_next;
  for (int pass = 0; pass < 3; ++pass) {
    l3_next = l3_acts;
    for (int i = 0; i < cap; ++i) {
      const layer& l = ls[static_cast<std::size_t>(i)];
      layer_plan& lp = plans[static_cast<std::size_t>(i)];
      auto& e = l2[static_cast<std::size_t>(i)];
      if (l.kind == op::input) {
        lp.l3 = {};
        lp.l3.stage = 1;
        lp.l3.l2_y = align4l(l.output_bytes());
        lp.l3.y_stripe_h = l.out.h;
        lp.l3.prefetch_next = streams(i + 1);
        continue;
      }
      // Outputs alive across this step, other than this layer's inputs (residuals).
      std::int64_t live = 0;
      for (int j = 0; j < i; ++j) {
        if (last[j] > i && j != l.src[0] && j != l.src[1] &&
            !plans[static_cast<std::size_t>(j)].l3.y)
          live += plans[static_cast<std::size_t>(j)].l3.l2_y;
      }
      int in_l3 = 0;
      for (int k = 0; k < l.inputs(); ++k)
        if (plans[static_cast<std::size_t>(l.src[k])].l3.y) ++in_l3;
      const std::int64_t next_w = streams(i + 1) ? est_w[i + 1] : 0;
      const std::int64_t room = budget - slack - resident - live;
      const std::int64_t pre = i > 0 && plans[static_cast<std::size_t>(i - 1)].l3.prefetch_next
                                   ? prefetch_slack(plans[static_cast<std::size_t>(i - 1)])
                                   : -1;
      l3_decision d = l3_cascade(l, lp, p, in_l3, streams(i), room, next_w, pre);
      d.prefetch_next = next_w > 0;
      if (d.stage == 0 && next_w > 0) {
        // The next layer's weights can also be fetched when it starts: retry without.
        d = l3_cascade(l, lp, p, in_l3, streams(i), room, 0, pre);
        d.prefetch_next = false;
      }
      // Row stripes through L3 hold whole L1 row tiles: when even one is too big, re-plan the
      // layer with thinner row tiles.
      for (int cap = lp.tile_h / 2; d.stage == 0 && cap >= 1 && l.kind != op::linear; cap /= 2) {
        const tiling_problem P = capped_problem(l, p, cap);
        layer_plan np;
        if (const layer_plan* made = ahead ? ahead->find(P) : nullptr) {
          np = *made;
        } else if (ahead && !ahead->full()) {
          // Asked of the caller, who makes it and finishes the network again.
          s.problem = plan_fault::replan;
          s.layer = i;
          s.needs = cap;
          return s;
        } else {
          np = plan_problem(P, lp.goal);
        }
        if (!np.fits) break;
        np.max_tile_h = cap;
        d = l3_cascade(l, np, p, in_l3, streams(i), room, next_w, pre);
        d.prefetch_next = next_w > 0;
        if (d.stage == 0 && next_w > 0) {
          d = l3_cascade(l, np, p, in_l3, streams(i), room, 0, pre);
          d.prefetch_next = false;
        }
        if (d.stage != 0) lp = np;
      }
      if (d.stage == 0) {
        s.problem = plan_fault::l2_layer;
        s.layer = i;
        s.needs = d.l2_x + resident + live;
        s.budget = budget;
        return s;
      }
      d.prefetch_bytes = d.prefetch_next ? static_cast<int>(next_w) : 0;
      lp.l3 = d;
      lp.cycles = lp.l1_cycles + d.cycles;
      e.l3_y = -1;
      if (d.y) {
        e.l3_y = static_cast<int>(l3_next);
        l3_next += align4l(l.output_bytes());
      }
    }
    for (int i = 0; i < cap; ++i)
      est_w[i] = streams(i) ? plans[static_cast<std::size_t>(i)].l3.l2_w : 0;
  }
  // A prefetch decided with an estimate smaller than the final buffer is dropped.
  for (int i = 0; i + 1 < cap; ++i) {
    auto& d = plans[static_cast<std::size_t>(i)].l3;
    if (d.prefetch_next && d.prefetch_bytes < plans[static_cast<std::size_t>(i + 1)].l3.l2_w)
      d.prefetch_next = false;
    if (!streams(i + 1) || plans[static_cast<std::size_t>(i + 1)].l3.l2_w == 0)
      d.prefetch_next = false;
  }
  // The cycles with the prefetches as they stand now (each step's slack after the previous).
  for (int i = 1; i < cap; ++i) {
    const layer& l = ls[static_cast<std::size_t>(i)];
    layer_plan& lp = plans[static_cast<std::size_t>(i)];
    const layer_plan& prev = plans[static_cast<std::size_t>(i - 1)];
    if (l.kind == op::input) continue;
    int in_l3 = 0;
    for (int k = 0; k < l.inputs(); ++k)
      if (plans[static_cast<std::size_t>(l.src[k])].l3.y) ++in_l3;
    l3_traffic(l, lp, p, in_l3, lp.l3, prev.l3.prefetch_next ? prefetch_slack(prev) : -1);
    lp.cycles = lp.l1_cycles + lp.l3.cycles;
  }
  s.l3_used = l3_next;
  if (p.has_l3() && l3_next > p.l3_bytes) {
    // The layer whose weights or output go above L3, in the order they are placed (the
    // streamed weights, then the outputs).
    s.problem = plan_fault::l3;
    std::int64_t used = 0;
    for (int i = 0; i < n && s.layer < 0; ++i) {
      if (!streams(i)) continue;
      const std::int64_t wb = align4l(plan_detail::weight_bytes(ls[static_cast<std::size_t>(i)]));
      used += wb;
      if (wb > 0 && used > p.l3_bytes) s.layer = i, s.needs = used;
    }
    for (int i = 0; i < n && s.layer < 0; ++i) {
      if (!plans[static_cast<std::size_t>(i)].l3.y) continue;
      used += align4l(ls[static_cast<std::size_t>(i)].output_bytes());
      if (used > p.l3_bytes) s.layer = i, s.needs = used;
    }
    if (s.layer < 0) s.needs = l3_next;
    s.budget = p.l3_bytes;
    return s;
  }

  const l2_stack_result st = layout_l2_stack(ls, plans, l2, budget);
  const int peak = st.peak;
  s.l2_peak = peak;
  s.dory_bound = st.dory;
  if (peak > budget) {
    s.problem = plan_fault::l2_arena;
    s.needs = peak;
    s.budget = budget;
  }
  choose_channel_major(ls, plans, l2);
  choose_output_groups(plans, p);
  for (int i = 0; i < n; ++i) {
    s.cycles += plans[static_cast<std::size_t>(i)].cycles;
    s.macs += plans[static_cast<std::size_t>(i)].macs;
    s.l3_bytes_per_frame += plans[static_cast<std::size_t>(i)].l3.l3_bytes;
  }
  return s;
}

/// The L3 decision of one layer for a given placement `c` with `inputs_in_l3` of its inputs
/// read from L3: buffers sized by l3_buffers, traffic and cycles by l3_traffic (no checks; see
/// finish_network_imported). The prefetch size is the next layer's and is filled in later.
/// `prefetched`: the previous step's slack when it prefetches this layer's first weight block
/// (prefetch_slack), else -1.
constexpr l3_decision l3_decision_for(const layer& l, const layer_plan& lp, const platform& p,
                                      const imported_l3& c, int inputs_in_l3,
                                      std::int64_t prefetched = -1) {
  l3_decision d;
  const std::int64_t W = plan_detail::weight_bytes(l);
  const bool striped = c.w && c.w_stripe_c < l.out.c;
  const l3_buffer_bytes b = l3_buffers(l, inputs_in_l3, c.y_stripe_h, striped, c.w_stripe_c, c.y);
  d.w = c.w;
  d.x = inputs_in_l3 > 0;
  d.y = c.y;
  d.stage = striped ? (c.y ? 5 : 3) : c.y ? 4 : inputs_in_l3 > 0 ? 2 : 1;
  d.w_stripe_c = c.w_stripe_c;
  d.y_stripe_h = c.y_stripe_h;
  d.x_stripe_h = plan_detail::band_input_rows(l, c.y_stripe_h);
  d.prefetch_next = c.prefetch_next;
  if (l.kind == op::input) {
    d.l2_y = c.y ? 0 : static_cast<int>(b.y);
    d.x_stripe_h = 0;
    return d;
  }
  d.l2_x = static_cast<int>(b.x);
  d.l2_w = W > 0 ? static_cast<int>(b.w) : 0;
  d.l2_y = static_cast<int>(b.y);
  l3_traffic(l, lp, p, inputs_in_l3, d, prefetched);
  return d;
}

/// Completes a network's plan from imported L3 decisions (the joint solve of ctile-solve)
/// instead of the greedy cascade, re-checking them with the planner's own code: each layer's
/// placement and stripes (stripes of whole L1 tiles, bands only where rows go through L3, a
/// prefetch only of weights in L3), its L2 buffers next to the resident weights and the
/// live outputs (l3_buffers), the bidirectional stack (layout_l2_stack) and L3's size. The
/// first violation is reported as plan_fault::imported with the layer, the constraint, the
/// value and the limit.
constexpr network_summary finish_network_imported(std::span<const layer> ls, const platform& p,
                                                  std::span<layer_plan> plans,
                                                  std::span<layer_l2> l2,
                                                  std::span<const imported_l3> choice) {
  using plan_detail::align4l;
  using C = imported_constraint;
  network_summary s;
  const int n = static_cast<int>(ls.size());
  const std::int64_t budget = p.l2_budget();
  s.l2_budget = p.l2_budget();
  s.l3_budget = p.l3_bytes;
  if (structural_fault(
          s, ls, plans,
          plans.size() == ls.size() && l2.size() == ls.size() && choice.size() == ls.size()))
    return s;
  for (auto& e : l2) e = layer_l2{};
  auto fail = [&](int i, C c, std::int64_t value, std::int64_t limit) {
    s.problem = plan_fault::imported;
    s.layer = i;
    s.violated = c;
    s.needs = value;
    s.budget = limit;
    return s;
  };
  // Each layer's placement and stripes, on their own.
  for (int i = 0; i < n; ++i) {
    const layer& l = ls[static_cast<std::size_t>(i)];
    const layer_plan& lp = plans[static_cast<std::size_t>(i)];
    const imported_l3& c = choice[static_cast<std::size_t>(i)];
    const std::int64_t W = plan_detail::weight_bytes(l);
    if (c.w && W == 0) return fail(i, C::weights_in_l3_without_weights, 0, 1);
    if (c.w && !p.has_l3()) return fail(i, C::weights_in_l3_without_l3, W, p.l3_bytes);
    if (!c.w && W > 0 && p.has_l3() && p.stream_weights)
      return fail(i, C::weights_resident_while_streaming_forced, W, 0);
    if (c.y && !p.has_l3())
      return fail(i, C::output_in_l3_without_l3, l.output_bytes(), p.l3_bytes);
    if (c.w_stripe_c < 1 || c.w_stripe_c > l.out.c || (!c.w && c.w_stripe_c != l.out.c))
      return fail(i, C::weight_stripe_out_of_range, c.w_stripe_c, l.out.c);
    if (c.w && c.w_stripe_c < l.out.c && c.w_stripe_c % lp.tile_c != 0)
      return fail(i, C::weight_stripe_not_whole_l1_tiles, c.w_stripe_c, lp.tile_c);
    int in_l3 = 0;
    for (int k = 0; k < l.inputs(); ++k) in_l3 += choice[static_cast<std::size_t>(l.src[k])].y;
    if (l.inputs() == 2 && choice[static_cast<std::size_t>(l.src[1])].y &&
        !choice[static_cast<std::size_t>(l.src[0])].y)
      return fail(i, C::add_second_input_alone_in_l3, l.src[1], l.src[0]);
    const bool banded = c.y || in_l3 > 0;
    if (c.y_stripe_h < 1 || c.y_stripe_h > l.out.h)
      return fail(i, C::row_band_out_of_range, c.y_stripe_h, l.out.h);
    if (!banded && c.y_stripe_h != l.out.h)
      return fail(i, C::row_band_without_l3_rows, c.y_stripe_h, l.out.h);
    if (banded && l.kind != op::input && c.y_stripe_h < l.out.h && c.y_stripe_h % lp.tile_h != 0)
      return fail(i, C::row_band_not_whole_l1_tiles, c.y_stripe_h, lp.tile_h);
    if (c.prefetch_next && !(i + 1 < n && choice[static_cast<std::size_t>(i + 1)].w))
      return fail(i, C::prefetch_of_weights_not_in_l3,
                  i + 1 < n ? plan_detail::weight_bytes(ls[static_cast<std::size_t>(i + 1)]) : 0,
                  0);
    const std::int64_t pre = i > 0 && choice[static_cast<std::size_t>(i - 1)].prefetch_next
                                 ? prefetch_slack(plans[static_cast<std::size_t>(i - 1)])
                                 : -1;
    plans[static_cast<std::size_t>(i)].l3 = l3_decision_for(l, lp, p, c, in_l3, pre);
  }
  // Prefetch sizes, and each step's buffers next to the resident weights and live outputs
  // (an output lives until its last consumer, the network's outputs to the end).
  int last[max_layers] = {};
  for (int j = 0; j < n; ++j) {
    const int c = plan_detail::last_consumer(ls, j);
    last[j] = c < 0 ? n - 1 : c;
  }
  auto last_of = [&](int j) { return last[j]; };
  std::int64_t resident = 0;
  for (int i = 0; i < n; ++i)
    if (!choice[static_cast<std::size_t>(i)].w)
      resident += align4l(plan_detail::weight_bytes(ls[static_cast<std::size_t>(i)]));
  s.weights_in_l3 = false;
  s.weights_resident = resident;
  for (int i = 0; i < n; ++i) {
    const layer& l = ls[static_cast<std::size_t>(i)];
    layer_plan& lp = plans[static_cast<std::size_t>(i)];
    s.weights_in_l3 = s.weights_in_l3 || lp.l3.w;
    if (lp.l3.w) s.weights_streamed += align4l(plan_detail::weight_bytes(l));
    const std::int64_t next_w =
        lp.l3.prefetch_next ? plans[static_cast<std::size_t>(i + 1)].l3.l2_w : 0;
    lp.l3.prefetch_bytes = static_cast<int>(next_w);
    lp.cycles = lp.l1_cycles + lp.l3.cycles;
    if (l.kind == op::input) continue;
    std::int64_t live = 0;
    for (int j = 0; j < i; ++j)
      if (last_of(j) > i && j != l.src[0] && j != l.src[1] &&
          !plans[static_cast<std::size_t>(j)].l3.y)
        live += plans[static_cast<std::size_t>(j)].l3.l2_y;
    int in_l3 = 0;
    for (int k = 0; k < l.inputs(); ++k) in_l3 += choice[static_cast<std::size_t>(l.src[k])].y;
    const std::int64_t x_resident = plan_detail::resident_input_bytes(l, in_l3);
    const std::int64_t need = resident + live + lp.l3.l2_x + x_resident + lp.l3.l2_y +
                              (lp.l3.w ? lp.l3.l2_w : 0) + next_w;
    if (need > budget) return fail(i, C::layer_buffers_exceed_l2, need, budget);
  }
  // L3: the weights streamed from it first, then the outputs placed there.
  std::int64_t l3_next = 0;
  for (int i = 0; i < n; ++i) {
    auto& e = l2[static_cast<std::size_t>(i)];
    e.l3_w = -1;
    if (!choice[static_cast<std::size_t>(i)].w) continue;
    e.l3_w = static_cast<int>(l3_next);
    l3_next += align4l(plan_detail::weight_bytes(ls[static_cast<std::size_t>(i)]));
    if (l3_next > p.l3_bytes) return fail(i, C::l3_placement_exceeds_l3, l3_next, p.l3_bytes);
  }
  for (int i = 0; i < n; ++i) {
    auto& e = l2[static_cast<std::size_t>(i)];
    e.l3_y = -1;
    if (!choice[static_cast<std::size_t>(i)].y) continue;
    e.l3_y = static_cast<int>(l3_next);
    l3_next += align4l(ls[static_cast<std::size_t>(i)].output_bytes());
    if (l3_next > p.l3_bytes) return fail(i, C::l3_placement_exceeds_l3, l3_next, p.l3_bytes);
  }
  s.l3_used = l3_next;
  const l2_stack_result st = layout_l2_stack(ls, plans, l2, budget);
  s.l2_peak = st.peak;
  s.dory_bound = st.dory;
  if (st.over_step >= 0)
    return fail(st.over_step, C::l2_stack_exceeds_budget, st.over_bytes, budget);
  choose_channel_major(ls, plans, l2);
  choose_output_groups(plans, p);
  for (int i = 0; i < n; ++i) {
    s.cycles += plans[static_cast<std::size_t>(i)].cycles;
    s.macs += plans[static_cast<std::size_t>(i)].macs;
    s.l3_bytes_per_frame += plans[static_cast<std::size_t>(i)].l3.l3_bytes;
    if (plan_detail::weight_bytes(ls[static_cast<std::size_t>(i)]) > 0)
      l2[static_cast<std::size_t>(i)].w_why = weight_reason::imported;
  }
  return s;
}

namespace plan_detail {

/// Step `i`'s L2 bytes other than resident weights, as the residency choice (choose_resident)
/// estimates them: its inputs, output and the outputs alive across it whole in L2 (`whole`),
/// or else (when those and its own weights exceed L2 on their own) its thinnest buffers, the
/// lower_bounds figures (inputs and outputs by one-row stripes through L3 where they can go
/// there). `own_streamed`: its own weights when they stream from L3 (whole with whole
/// activations, else the smaller of the whole and two one-channel stripes). `last[j]`: the
/// last step that reads layer j's output.
struct step_bytes {
  std::int64_t activations = 0;
  std::int64_t own_streamed = 0;
};
constexpr step_bytes step_bytes_of(std::span<const layer> ls, const platform& p, int i,
                                   std::span<const int> last) {
  const layer& l = ls[static_cast<std::size_t>(i)];
  step_bytes r;
  const std::int64_t W = weight_bytes(l);
  auto streams_out = [&](const layer& o) {
    return p.has_l3() && o.kind != op::linear && o.kind != op::input;
  };
  std::int64_t live_whole = 0, live_thin = 0;
  for (int j = 0; j < i; ++j) {
    const layer& o = ls[static_cast<std::size_t>(j)];
    if (last[static_cast<std::size_t>(j)] <= i || j == l.src[0] || j == l.src[1]) continue;
    live_whole += align4l(o.output_bytes());
    if (!streams_out(o)) live_thin += align4l(o.output_bytes());
  }
  const std::int64_t row_y = std::int64_t{l.out.w} * l.out.c * l.output_bytes_per_element();
  const std::int64_t whole = align4l(input_bytes(l)) + align4l(row_y * l.out.h) + live_whole;
  if (whole + align4l(W) <= p.l2_budget()) {
    r.activations = whole;
    r.own_streamed = align4l(W);
    return r;
  }
  int in_l3 = 0;
  for (int k = 0; k < l.inputs(); ++k)
    if (streams_out(ls[static_cast<std::size_t>(l.src[k])])) ++in_l3;
  // Rows and tensors at their element width (16-bit tensors: 2 bytes), as lower_bounds counts.
  const std::int64_t in_row = input_row_bytes(l) * in_l3;
  const std::int64_t x =
      in_l3 > 0 ? 2 * align4l(band_input_rows(l, 1) * in_row) +
                      align4l(l.in.elements() * l.input_bytes_max()) * (l.inputs() - in_l3)
                : align4l(input_bytes(l));
  const std::int64_t y = streams_out(l) ? 2 * align4l(row_y) : align4l(row_y * l.out.h);
  r.activations = x + y + live_thin;
  const std::int64_t stripes = l.out.c > 0 ? 2 * align4l(W / l.out.c) : 0;
  r.own_streamed = W == 0 ? 0 : stripes < align4l(W) ? stripes : align4l(W);
  return r;
}

/// Where each layer's weights live, before the full plan (finish_network) has the last word.
/// All resident in L2 to start with; while some step's estimated L2 (step_bytes_of: every
/// resident weight, its activations, its own weights when streamed) exceeds the budget, the
/// resident weights that relieve that step the most move to L3: the largest (ties: the later
/// layer), the step's own weights counting only what streaming them saves there. Records,
/// per moved layer, the step and the bytes it would have needed. A step that no move relieves
/// is left to the cascade (its activations go through L3 by stripes).
constexpr void choose_resident(std::span<const layer> ls, const platform& p, std::span<bool> w_l3,
                               std::span<weight_reason> why, std::span<int> why_step,
                               std::span<std::int64_t> why_needs) {
  const int n = static_cast<int>(ls.size());
  std::int64_t act[max_layers] = {}, own[max_layers] = {}, W[max_layers] = {};
  int last[max_layers] = {};
  for (int j = 0; j < n; ++j) {
    const int c = last_consumer(ls, j);
    last[j] = c < 0 ? n - 1 : c;
  }
  std::int64_t resident = 0;
  for (int i = 0; i < n; ++i) {
    const layer& l = ls[static_cast<std::size_t>(i)];
    W[i] = align4l(weight_bytes(l));
    if (!w_l3[static_cast<std::size_t>(i)]) resident += W[i];
    if (l.kind == op::input) continue;
    const step_bytes b = step_bytes_of(ls, p, i, {last, static_cast<std::size_t>(n)});
    act[i] = b.activations;
    own[i] = b.own_streamed;
  }
  const std::int64_t budget = p.l2_budget();
  for (int moves = 0; moves < n; ++moves) {
    int over = -1;
    std::int64_t need = 0;
    for (int i = 0; i < n && over < 0; ++i) {
      if (ls[static_cast<std::size_t>(i)].kind == op::input) continue;
      const std::int64_t t = resident + act[i] + (w_l3[static_cast<std::size_t>(i)] ? own[i] : 0);
      if (t > budget) over = i, need = t;
    }
    if (over < 0) return;
    int best = -1;
    std::int64_t relief = 0;
    for (int j = 0; j < n; ++j) {
      if (w_l3[static_cast<std::size_t>(j)] || W[j] == 0) continue;
      const std::int64_t r = j == over ? W[j] - own[j] : W[j];
      if (r > 0 && r >= relief) best = j, relief = r;
    }
    if (best < 0) return;
    const auto b = static_cast<std::size_t>(best);
    w_l3[b] = true;
    why[b] = weight_reason::l2_full;
    why_step[b] = over;
    why_needs[b] = need;
    resident -= W[best];
  }
}

}  // namespace plan_detail

/// Completes a network's plan (see finish_network_with), deciding where each layer's weights
/// live: without L3, all resident in L2; with platform::stream_weights, all streamed from L3;
/// otherwise resident where they fit beside the activations (plan_detail::choose_resident),
/// and when the full plan still fails on L2 (a step, or the arena), the largest resident
/// weights (other than the failing step's own) move to L3 one at a time and the network is
/// planned again; if it still fails, every layer streams, as a network whose weights do not
/// fit L2 always has. The per-layer cascade budgets each step on its own; when the stack's
/// layout then peaks above L2 (buffers trapped under longer lived ones), the cascade is rerun
/// with that much less room, a few times at most. `ahead`: the re-plans with thinner row tiles
/// made ahead (replan_table); when given and one it lacks is needed, the summary asks for it
/// (plan_fault::replan); without it, re-plans are searched where needed.
constexpr network_summary finish_network(std::span<const layer> ls, const platform& p,
                                         std::span<layer_plan> plans, std::span<layer_l2> l2,
                                         const replan_table* ahead = nullptr) {
  const int n = static_cast<int>(ls.size());
  if (n > max_layers) {  // finish_network_with reports it; the arrays below hold max_layers
    network_summary s;
    s.l2_budget = p.l2_budget();
    s.l3_budget = p.l3_bytes;
    structural_fault(s, ls, {});
    return s;
  }
  bool w_l3[max_layers] = {};
  weight_reason why[max_layers] = {};
  int why_step[max_layers] = {};
  std::int64_t why_needs[max_layers] = {};
  const bool l3 = p.has_l3();
  const bool choose = l3 && !p.stream_weights;
  for (int i = 0; i < n; ++i) {
    why_step[i] = -1;
    if (plan_detail::weight_bytes(ls[static_cast<std::size_t>(i)]) == 0) continue;
    w_l3[i] = l3 && p.stream_weights;
    why[i] = !l3                ? weight_reason::no_l3
             : p.stream_weights ? weight_reason::forced
                                : weight_reason::fits;
  }
  const auto un = static_cast<std::size_t>(n);
  if (choose)
    plan_detail::choose_resident(ls, p, {w_l3, un}, {why, un}, {why_step, un}, {why_needs, un});
  auto plan = [&] {
    std::int64_t slack = 0;
    network_summary s = finish_network_with(ls, p, plans, l2, slack, {w_l3, un}, ahead);
    for (int attempt = 0; attempt < 4 && s.problem == plan_fault::l2_arena; ++attempt) {
      slack += s.needs - s.budget;
      s = finish_network_with(ls, p, plans, l2, slack, {w_l3, un}, ahead);
    }
    return s;
  };
  network_summary s = plan();
  auto fails_on_l2 = [&] {
    return s.problem == plan_fault::l2_layer || s.problem == plan_fault::l2_arena;
  };
  auto move = [&](int j) {
    w_l3[j] = true;
    why[j] = weight_reason::l2_full;
    why_step[j] = s.problem == plan_fault::l2_layer ? s.layer : -1;
    why_needs[j] = s.needs;
  };
  for (int k = 0; k < 4 && choose && fails_on_l2(); ++k) {
    int best = -1;
    std::int64_t most = 0;
    for (int j = 0; j < n; ++j) {
      const std::int64_t W = plan_detail::weight_bytes(ls[static_cast<std::size_t>(j)]);
      if (w_l3[j] || W == 0 || (s.problem == plan_fault::l2_layer && j == s.layer)) continue;
      if (W >= most) best = j, most = W;
    }
    if (best < 0) break;
    move(best);
    s = plan();
  }
  if (choose && fails_on_l2()) {
    bool any = false;
    for (int j = 0; j < n; ++j)
      if (!w_l3[j] && plan_detail::weight_bytes(ls[static_cast<std::size_t>(j)]) > 0)
        move(j), any = true;
    if (any) s = plan();
  }
  if (l2.size() == un)
    for (int i = 0; i < n; ++i) {
      auto& e = l2[static_cast<std::size_t>(i)];
      e.w_why = why[i];
      e.w_step = why[i] == weight_reason::l2_full ? why_step[i] : -1;
      e.w_needs = why[i] == weight_reason::l2_full ? why_needs[i] : 0;
    }
  return s;
}

/// The first layer of `ls` that no plan can fit, from per-layer lower bounds that need no
/// search (so that a network far too large for the platform is reported at the cost of a few
/// formulas per layer, before any search runs, and by the layer at fault):
/// - L1: the least any tiling of the layer takes (min_l1_need; on one core when its kernel's
///   scratch is per core), the figure plan_problem reports when no tiling fits;
/// - L2 at the layer's step: its thinnest buffers (inputs and outputs by one-row stripes
///   through L3 where their producer and the layer can stream them, weights by one-channel
///   stripes when they live in L3, else whole) next to what must stay in L2 meanwhile (the
///   weights without L3, outputs read later that cannot go to L3);
/// - L3: the weights that must go there (every layer's with platform::stream_weights, else
///   those beyond what the whole L2 budget could hold), then the outputs whose whole buffer
///   cannot fit L2 at their step, in the planner's order (weights first, then outputs by
///   layer), up to the layer.
/// The greedy planner (finish_network) never fits a network these bounds reject. `joint`: the
/// plan imports a joint solve's L3 decisions, which place inputs, outputs and weights in ways
/// the greedy cascade does not (and are re-checked in full by finish_network_imported, which
/// names the layer), so only the L1 bound applies.
/// Returns problem::none when every layer passes; else the fault, the layer, its least bytes
/// and the budget.
constexpr network_summary lower_bounds(std::span<const layer> ls, const platform& p,
                                       bool joint = false) {
  using plan_detail::align4l;
  network_summary s;
  const int n = static_cast<int>(ls.size());
  s.l2_budget = p.l2_budget();
  s.l3_budget = p.l3_bytes;
  if (structural_fault(s, ls, {})) return s;
  auto fail = [&](plan_fault f, int i, std::int64_t needs, std::int64_t budget) {
    s.problem = f;
    s.layer = i;
    s.needs = needs;
    s.budget = budget;
    return s;
  };
  const bool l3 = p.has_l3();
  const std::int64_t budget = p.l2_budget();
  // Whether a layer's output can go to L3 (by row stripes): what the cascade allows.
  auto streams_out = [&](const layer& l) {
    return l3 && l.kind != op::linear && l.kind != op::input;
  };
  std::int64_t all_weights = 0;
  for (const auto& l : ls) all_weights += align4l(plan_detail::weight_bytes(l));
  const std::int64_t resident = l3 ? 0 : all_weights;
  // Each output's last step (its last consumer's, the network's outputs the last), found once:
  // the check below asks it of every earlier layer at every step.
  int last[max_layers] = {};
  for (int j = 0; j < n; ++j) {
    const int c = plan_detail::last_consumer(ls, j);
    last[j] = c < 0 ? n - 1 : c;
  }
  // L3 in the planner's order: the streamed weights first, then the outputs placed there.
  // Weights stay resident in L2 where they fit: at least the excess over the whole L2 budget
  // streams (all of them when streaming is forced).
  std::int64_t l3_used = 0;
  if (l3 && !joint && !p.stream_weights && all_weights > budget) {
    l3_used = all_weights - budget;
    if (l3_used > p.l3_bytes) return fail(plan_fault::l3, n - 1, l3_used, p.l3_bytes);
  }
  for (int i = 0; i < n && l3 && !joint && p.stream_weights; ++i) {
    const std::int64_t wb = align4l(plan_detail::weight_bytes(ls[static_cast<std::size_t>(i)]));
    l3_used += wb;
    if (wb > 0 && l3_used > p.l3_bytes) return fail(plan_fault::l3, i, l3_used, p.l3_bytes);
  }
  for (int i = 0; i < n; ++i) {
    const layer& l = ls[static_cast<std::size_t>(i)];
    if (l.kind == op::input) continue;
    if (l.in.h <= 0 || l.in.w <= 0 || l.in.c <= 0 || l.out.h <= 0 || l.out.w <= 0 || l.out.c <= 0)
      return fail(plan_fault::not_inferred, i, 0, 0);
    // L1.
    const tiling_problem P = make_problem_geometry(l, p);
    const std::int64_t l1 =
        scratch_per_core(P) ? min_l1_need(on_fewer_cores(P, 1)) : min_l1_need(P);
    if (l1 > P.l1_budget) return fail(plan_fault::l1, i, l1, P.l1_budget);
    if (joint) continue;
    // L2: the inputs, streamed when their producer can write L3.
    int in_l3 = 0;
    for (int k = 0; k < l.inputs(); ++k)
      if (streams_out(ls[static_cast<std::size_t>(l.src[k])])) ++in_l3;
    const std::int64_t in_row = plan_detail::input_row_bytes(l) * in_l3;
    const std::int64_t x =
        in_l3 > 0 ? 2 * align4l(plan_detail::band_input_rows(l, 1) * in_row) +
                        align4l(l.in.elements() * l.input_bytes_max()) * (l.inputs() - in_l3)
                  : align4l(plan_detail::input_bytes(l));
    const std::int64_t W = plan_detail::weight_bytes(l);
    // Weights: whole or by double-buffered one-channel stripes from L3; without L3 they are
    // resident (counted above).
    const std::int64_t stripes = 2 * align4l(W / l.out.c);
    const std::int64_t w = W == 0 || !l3 ? 0 : stripes < align4l(W) ? stripes : align4l(W);
    const std::int64_t row_y = std::int64_t{l.out.w} * l.out.c * l.output_bytes_per_element();
    const std::int64_t y_whole = align4l(row_y * l.out.h);
    const std::int64_t y = streams_out(l) ? 2 * align4l(row_y) : y_whole;
    std::int64_t live = 0;
    for (int j = 0; j < i; ++j) {
      const layer& o = ls[static_cast<std::size_t>(j)];
      if (last[j] > i && j != l.src[0] && j != l.src[1] && !streams_out(o))
        live += align4l(o.output_bytes());
    }
    const std::int64_t l2 = resident + live + x + w + y;
    if (l2 > budget) return fail(plan_fault::l2_layer, i, l2, budget);
    // L3: an output whose whole buffer cannot fit L2 at its step goes there.
    if (streams_out(l) && resident + live + x + w + y_whole > budget) {
      l3_used += align4l(l.output_bytes());
      if (l3_used > p.l3_bytes) return fail(plan_fault::l3, i, l3_used, p.l3_bytes);
    }
  }
  return s;
}

/// A network's complete plan, for a fixed number of layers.
template <std::size_t N>
struct network_plan {
  std::array<layer_plan, N> layers{};
  std::array<layer_l2, N> l2{};
  network_summary summary{};
};

/// Plans every layer and the network (usable at compile time and at run time).
template <std::size_t N>
constexpr network_plan<N> plan_network(const std::array<layer, N>& ls, const platform& p,
                                       objective o = objective::model) {
  network_plan<N> r;
  r.summary = lower_bounds(ls, p);
  if (!r.summary.ok()) return r;
  plan_layers(ls, p, o, r.layers);
  r.summary = finish_network(ls, p, r.layers, r.l2);
  return r;
}

namespace error {
template <int Layer, auto Name, op Kind, std::int64_t NeedsBytes, std::int64_t L1BudgetBytes>
struct layer_does_not_fit_in_l1 {
  static_assert(Layer < 0,
                "no tiling of this layer fits L1: even its smallest tiles need NeedsBytes, more "
                "than the L1 budget (L1 minus core stacks)");
};
template <int Layer, auto Name, op Kind, std::int64_t NeedsBytes, std::int64_t L2BudgetBytes>
struct layer_does_not_fit_in_l2 {
  static_assert(Layer < 0,
                "this layer's L2 buffers do not fit: even with the thinnest L3 stripes the "
                "platform allows, it needs NeedsBytes of L2, more than the L2 budget (L2 minus "
                "the code reserve)");
};
template <std::int64_t PeakBytes, std::int64_t L2BudgetBytes>
struct network_l2_arena_does_not_fit {
  static_assert(PeakBytes < 0,
                "the network's L2 arena (its buffers laid out as a bidirectional stack) peaks "
                "above the L2 budget");
};
template <int Layer>
struct network_layers_were_not_shape_inferred {
  static_assert(Layer < -1,
                "the network's layers were not shape-inferred (use ctile::network<...>)");
};
template <std::int64_t Layers, std::int64_t MaxLayers>
struct network_has_more_layers_than_a_plan_holds {
  static_assert(Layers < 0, "the planner handles at most ctile::max_layers layers");
};
template <std::int64_t NeedsBytes, std::int64_t L3Bytes>
struct network_does_not_fit_in_l3 {
  static_assert(NeedsBytes < 0, "the weights and activations placed in L3 exceed its size");
};
template <int Layer, auto Name, op Kind, std::int64_t NeedsBytes, std::int64_t L3Bytes>
struct layer_does_not_fit_in_l3 {
  static_assert(Layer < 0,
                "L3 is too small: the weights placed in L3 and the outputs that cannot stay in "
                "L2, up to this layer's, take NeedsBytes, more than L3's size");
};
}  // namespace error

namespace plan_detail {

template <class Net, platform P, objective O, std::size_t I>
inline constexpr layer_plan layer_plan_v = imported_or_planned<Net, P, O, I>();

/// Whether the imported plan carries joint L3 decisions for every layer (a header for another
/// layer count is reported by the per-layer import).
template <class Net, platform P, objective O>
consteval bool imports_l3() {
  if constexpr (plan_is_joint<Net, P, O>)
    return imported_plan<Net, P, O>::size == Net::size;
  else
    return false;
}

template <class Net, platform P, objective O, std::size_t... I>
constexpr network_plan<Net::size> assemble(std::index_sequence<I...>, const replan_table& ahead) {
  network_plan<Net::size> r;
  r.layers = {layer_plan_v<Net, P, O, I>...};
  if constexpr (imports_l3<Net, P, O>()) {
    // The joint solve's L3 decisions replace the greedy cascade (re-checked).
    constexpr std::array<imported_l3, Net::size> choice{imported_plan<Net, P, O>::l3[I]...};
    r.summary = finish_network_imported(Net::layers, P, r.layers, r.l2, choice);
  } else {
    // A local copy: its address is a constant that is not null even where the compiler may not
    // assume a static object's is (GCC with -fno-delete-null-pointer-checks, which the
    // sanitizers imply).
    const replan_table made = ahead;
    r.summary = finish_network(Net::layers, P, r.layers, r.l2, &made);
  }
  return r;
}

/// Stage `S` of finishing a network's plan: the re-plans asked for by the stages before, each
/// made in a sliced search of its own (a constant per slice), then the network finished with
/// them; a stage asks for at most one more (plan_fault::replan). The re-plans of a stage and
/// its finishing are separate constants, so each stays under the compilers' default limits.
template <class Net, platform P, objective O, int S>
struct finish_stage {
  using before = finish_stage<Net, P, O, S - 1>;
  static consteval replan_table made() {
    constexpr network_summary asked = before::value.summary;
    replan_table t = before::table;
    if constexpr (asked.problem == plan_fault::replan) {
      constexpr tiling_problem q = capped_problem(
          Net::layers[static_cast<std::size_t>(asked.layer)], P, static_cast<int>(asked.needs));
      t.problem[t.n] = q;
      t.plan[t.n] = sliced_plan<q, O>();
      ++t.n;
    }
    return t;
  }
  static constexpr replan_table table = made();
  static constexpr network_plan<Net::size> value =
      assemble<Net, P, O>(std::make_index_sequence<Net::size>{}, table);
};
template <class Net, platform P, objective O>
struct finish_stage<Net, P, O, 0> {
  static constexpr replan_table table{};
  static constexpr network_plan<Net::size> value =
      assemble<Net, P, O>(std::make_index_sequence<Net::size>{}, table);
};

/// The network's plan from the first stage that asks for no re-plan.
template <class Net, platform P, objective O, int S = 0>
consteval network_plan<Net::size> finished() {
  if constexpr (finish_stage<Net, P, O, S>::value.summary.problem == plan_fault::replan)
    return finished<Net, P, O, S + 1>();
  else
    return finish_stage<Net, P, O, S>::value;
}

/// A null pointer to the error type that describes a failed plan (no_error for a plan that
/// fits). Completing the type reports it: its assertion is the one error of a failed plan.
template <class Net, network_summary S>
consteval auto plan_error_for() {
  if constexpr (S.layer >= 0 &&
                (S.problem == plan_fault::imported || S.problem == plan_fault::l1 ||
                 S.problem == plan_fault::l2_layer || S.problem == plan_fault::l3)) {
    constexpr layer L = Net::layers[static_cast<std::size_t>(S.layer)];
    constexpr fixed_string<L.name.size() + 1> name{L.name};
    if constexpr (S.problem == plan_fault::imported)
      return static_cast<
          error::imported_plan_violates<S.layer, name, S.violated, S.needs, S.budget>*>(nullptr);
    else if constexpr (S.problem == plan_fault::l1)
      return static_cast<
          error::layer_does_not_fit_in_l1<S.layer, name, L.kind, S.needs, S.budget>*>(nullptr);
    else if constexpr (S.problem == plan_fault::l2_layer)
      return static_cast<
          error::layer_does_not_fit_in_l2<S.layer, name, L.kind, S.needs, S.budget>*>(nullptr);
    else
      return static_cast<
          error::layer_does_not_fit_in_l3<S.layer, name, L.kind, S.needs, S.budget>*>(nullptr);
  } else if constexpr (S.problem == plan_fault::l2_arena) {
    return static_cast<error::network_l2_arena_does_not_fit<S.needs, S.budget>*>(nullptr);
  } else if constexpr (S.problem == plan_fault::l3) {
    return static_cast<error::network_does_not_fit_in_l3<S.needs, S.budget>*>(nullptr);
  } else if constexpr (S.problem == plan_fault::not_inferred) {
    return static_cast<error::network_layers_were_not_shape_inferred<S.layer>*>(nullptr);
  } else if constexpr (S.problem == plan_fault::too_many_layers) {
    return static_cast<error::network_has_more_layers_than_a_plan_holds<S.needs, S.budget>*>(
        nullptr);
  } else {
    return static_cast<no_error*>(nullptr);
  }
}

/// Whether `Net` passed shape inference (a network type that did not has reported its one
/// error already: nothing is planned or reported for it).
template <class Net>
consteval bool declared_validly() {
  if constexpr (requires { Net::valid; })
    return Net::valid;
  else
    return true;
}

template <class Net, platform P, objective O>
struct plan_holder {
  /// The per-layer lower bounds, checked before any search (lower_bounds).
  static constexpr network_summary bounds = [] {
    if constexpr (declared_validly<Net>()) {
      return lower_bounds(Net::layers, P, imports_l3<Net, P, O>());
    } else {
      network_summary s;
      s.problem = plan_fault::not_inferred;
      return s;
    }
  }();
  static consteval network_plan<Net::size> make() {
    if constexpr (bounds.ok()) {
      // Each layer is planned in a constant of its own, so layers of equal shape share the
      // work; so is each re-plan the L3 cascade asks for (finish_stage).
      return finished<Net, P, O>();
    } else {
      network_plan<Net::size> r;
      r.summary = bounds;
      return r;
    }
  }
  static constexpr network_plan<Net::size> value = make();
  // A failed plan's one error (none for a network whose declaration already gave one).
  static consteval auto error_for() {
    if constexpr (declared_validly<Net>())
      return plan_error_for<Net, value.summary>();
    else
      return static_cast<no_error*>(nullptr);
  }
  static_assert(sizeof(std::remove_pointer_t<decltype(error_for())>) > 0);
};

}  // namespace plan_detail

/// The plan of network type `Net` on platform `P`, computed and checked at compile time.
template <class Net, platform P, objective O = objective::model>
inline constexpr const network_plan<Net::size>& plan_of =
    plan_detail::plan_holder<Net, P, O>::value;

}  // namespace ctile
