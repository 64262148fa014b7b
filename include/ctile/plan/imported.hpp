// Plans found outside the compiler (by ctile-solve, a generator step) and imported as a
// header. The header specializes `ctile::imported_plan<Net, Platform, Objective>`; when such a
// specialization is visible, `plan_of` builds each layer's plan from the imported tile sizes
// and core split instead of searching, after re-checking them with the same constraint code
// the search uses (buffers_for / l1_bytes_for, the split list, the cost model). A stale or
// hand-edited header stops the build with an error whose name and arguments read as the
// sentence: `imported_plan_violates<Layer, Name, Constraint, Value, Limit>`.
//
// Every translation unit that plans the same network on the same platform must see the same
// header (include it before using plan_of or ctile::executor), or the program holds two plans.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>

#include "ctile/core/fixed_string.hpp"
#include "ctile/core/split.hpp"
#include "ctile/layers/layer.hpp"
#include "ctile/plan/channel_major.hpp"
#include "ctile/plan/cost_model.hpp"
#include "ctile/plan/layer_plan.hpp"
#include "ctile/plan/problem.hpp"
#include "ctile/plan/search.hpp"
#include "ctile/platform/platform.hpp"

namespace ctile {

/// One layer's tiling as a solver found it, with what the solver saw of the layer (to detect
/// a header generated for another version of the network) and the objective value it claims.
struct imported_layer {
  op kind = op::input;
  int out_h = 0, out_w = 0, out_c = 0, in_c = 0;  ///< the layer's shape when solved
  int tile_c = 0, tile_h = 0, tile_w = 0;
  core_split split{};
  std::int64_t cycles = 0;  ///< modeled cycles of the L2 -> L1 loop nest (the objective)
  int tile_k = 0;           ///< linear: bytes of the reduction per tile (0: not cut); 0 otherwise
  int cores = 0;  ///< the cores it runs on when fewer than the platform's (0: all of them)
  friend constexpr bool operator==(const imported_layer&, const imported_layer&) = default;
};

/// One layer's L3 decisions as the joint solve chose them: whether its weights stream from L3
/// (else they stay resident in L2) and by how many output channels per double-buffered stripe
/// (the output channels: whole, prefetchable), whether its output goes to L3, the output rows
/// per band (the output rows when nothing is banded) and whether it prefetches the next
/// layer's whole weights while it runs. A generated header that also specializes these
/// (`imported_plan<...>::l3[size]`) replaces the planner's greedy L3 cascade.
struct imported_l3 {
  bool w = false;
  int w_stripe_c = 0;
  bool y = false;
  int y_stripe_h = 0;
  bool prefetch_next = false;
  friend constexpr bool operator==(const imported_l3&, const imported_l3&) = default;
};

/// No imported plan: `plan_of` searches. A generated header specializes this with
/// `available = true`, `size` (the layer count) and `layers[size]` (imported_layer values).
template <class Net, platform P, objective O>
struct imported_plan {
  static constexpr bool available = false;
};

/// The constraint an imported layer plan breaks (the third argument of the error below).
enum class imported_constraint : std::uint8_t {
  none,
  layer_kind_changed,              ///< Value: the kind now, Limit: the kind solved for
  output_height_changed,           ///< Value: out.h now, Limit: out.h solved for
  output_width_changed,            ///< likewise
  output_channels_changed,         ///< likewise
  input_channels_changed,          ///< likewise
  channel_tile_out_of_range,       ///< Value: tile_c, Limit: the output channels
  row_tile_out_of_range,           ///< Value: tile_h, Limit: the output rows
  column_tile_out_of_range,        ///< Value: tile_w, Limit: the output columns
  depthwise_tile_not_whole_rows,   ///< Value: tile_w, Limit: the row width it must span
  row_tile_reads_only_padding,     ///< Value: tile_h, Limit: the padding above (rows)
  column_tile_reads_only_padding,  ///< Value: tile_w, Limit: the padding on the left (columns)
  split_not_supported,             ///< Value: the split kind, Limit: the kind's default split
  k_tile_out_of_range,      ///< Value: tile_k, Limit: the layer's reduction (0 for other kinds)
  k_tile_not_whole_words,   ///< Value: tile_k, Limit: 4
  cores_out_of_range,       ///< Value: the cores, Limit: the platform's (fewer only with scratch)
  tile_buffers_exceed_l1,   ///< Value: L1 bytes the tiles need, Limit: the L1 budget
  objective_value_differs,  ///< Value: cycles the header claims, Limit: cycles recomputed
  // The joint L3/L2 decisions of a network (imported_plan<...>::l3).
  weights_in_l3_without_l3,          ///< Value: the layer's weight bytes, Limit: the L3 bytes (0)
  weights_in_l3_without_weights,     ///< Value: 0 weight bytes, Limit: 1
  output_in_l3_without_l3,           ///< Value: the layer's output bytes, Limit: the L3 bytes (0)
  weight_stripe_out_of_range,        ///< Value: channels per stripe, Limit: the output channels
  weight_stripe_not_whole_l1_tiles,  ///< Value: channels per stripe, Limit: the L1 channel tile
  row_band_out_of_range,             ///< Value: rows per band, Limit: the output rows
  row_band_not_whole_l1_tiles,       ///< Value: rows per band, Limit: the L1 row tile
  row_band_without_l3_rows,          ///< Value: rows per band, Limit: the output rows
  add_second_input_alone_in_l3,      ///< Value: the second source, Limit: the first source
  prefetch_of_weights_not_in_l3,     ///< Value: the next layer's weight bytes, Limit: 0
  layer_buffers_exceed_l2,           ///< Value: L2 bytes the step needs, Limit: the L2 budget
  l2_stack_exceeds_budget,           ///< Value: the stack's bytes at this step, Limit: the budget
  l3_placement_exceeds_l3,           ///< Value: L3 bytes placed, Limit: the L3 size
  weights_resident_while_streaming_forced,  ///< Value: the layer's weight bytes, Limit: 0
};

constexpr const char* imported_constraint_text(imported_constraint c) {
  switch (c) {
    case imported_constraint::none:
      return "none";
    case imported_constraint::layer_kind_changed:
      return "the layer kind changed since the plan was solved";
    case imported_constraint::output_height_changed:
      return "the output height changed since the plan was solved";
    case imported_constraint::output_width_changed:
      return "the output width changed since the plan was solved";
    case imported_constraint::output_channels_changed:
      return "the output channel count changed since the plan was solved";
    case imported_constraint::row_tile_reads_only_padding:
      return "a row tile of that size lies wholly in the layer's padding (it has no input)";
    case imported_constraint::column_tile_reads_only_padding:
      return "a column tile of that size lies wholly in the layer's padding (it has no input)";
    case imported_constraint::input_channels_changed:
      return "the input channel count changed since the plan was solved";
    case imported_constraint::channel_tile_out_of_range:
      return "the channel tile is not between 1 and the output channels";
    case imported_constraint::row_tile_out_of_range:
      return "the row tile is not between 1 and the output rows";
    case imported_constraint::column_tile_out_of_range:
      return "the column tile is not between 1 and the output columns";
    case imported_constraint::depthwise_tile_not_whole_rows:
      return "a depthwise tile must span whole rows";
    case imported_constraint::split_not_supported:
      return "the core split is not one the layer's kernel supports";
    case imported_constraint::k_tile_out_of_range:
      return "the K tile is not between 4 and the layer's reduction (or 0 when not linear)";
    case imported_constraint::cores_out_of_range:
      return "the core count is not below the platform's, or the kernel has no per-core scratch";
    case imported_constraint::k_tile_not_whole_words:
      return "a K tile that cuts the reduction must be a multiple of 4 bytes";
    case imported_constraint::tile_buffers_exceed_l1:
      return "the tile buffers exceed the L1 budget";
    case imported_constraint::objective_value_differs:
      return "the objective value differs from the cost model's";
    case imported_constraint::weights_in_l3_without_l3:
      return "the weights are placed in L3 on a platform without L3";
    case imported_constraint::weights_in_l3_without_weights:
      return "the weights are placed in L3 but the layer has none";
    case imported_constraint::output_in_l3_without_l3:
      return "the output is placed in L3 on a platform without L3";
    case imported_constraint::weight_stripe_out_of_range:
      return "the weight stripe is not between 1 and the output channels (whole when in L2)";
    case imported_constraint::weight_stripe_not_whole_l1_tiles:
      return "the weight stripe is not a multiple of the L1 channel tile";
    case imported_constraint::row_band_out_of_range:
      return "the row band is not between 1 and the output rows";
    case imported_constraint::row_band_not_whole_l1_tiles:
      return "the row band is not a multiple of the L1 row tile";
    case imported_constraint::row_band_without_l3_rows:
      return "the rows are banded but neither the input nor the output is in L3";
    case imported_constraint::add_second_input_alone_in_l3:
      return "an add reads its second input from L3 but not its first";
    case imported_constraint::prefetch_of_weights_not_in_l3:
      return "the next layer's weights are prefetched but are not read from L3";
    case imported_constraint::layer_buffers_exceed_l2:
      return "the layer's L2 buffers, resident weights and live outputs exceed the L2 budget";
    case imported_constraint::l2_stack_exceeds_budget:
      return "the L2 bidirectional stack exceeds the L2 budget at this layer";
    case imported_constraint::l3_placement_exceeds_l3:
      return "the weights and outputs placed in L3 exceed its size";
    case imported_constraint::weights_resident_while_streaming_forced:
      return "the weights are resident in L2 while the platform forces them to stream from L3";
  }
  return "?";
}

/// The outcome of re-checking one imported layer: the first constraint it breaks, the value
/// found and the limit (or expected value).
struct imported_check {
  imported_constraint violated = imported_constraint::none;
  std::int64_t value = 0;
  std::int64_t limit = 0;
  [[nodiscard]] constexpr bool ok() const { return violated == imported_constraint::none; }
};

/// Re-checks an imported tiling of layer `l` on platform `p` with the planner's own code.
constexpr imported_check check_imported_layer(const layer& l, const platform& p,
                                              const imported_layer& im) {
  using C = imported_constraint;
  auto fail = [](C c, std::int64_t v, std::int64_t lim) { return imported_check{c, v, lim}; };
  if (l.kind != im.kind)
    return fail(C::layer_kind_changed, static_cast<int>(l.kind), static_cast<int>(im.kind));
  if (l.out.h != im.out_h) return fail(C::output_height_changed, l.out.h, im.out_h);
  if (l.out.w != im.out_w) return fail(C::output_width_changed, l.out.w, im.out_w);
  if (l.out.c != im.out_c) return fail(C::output_channels_changed, l.out.c, im.out_c);
  if (l.in.c != im.in_c) return fail(C::input_channels_changed, l.in.c, im.in_c);
  if (l.kind == op::input) return {};
  const tiling_problem full = make_problem(l, p);
  if (im.cores != 0 && (im.cores < 1 || im.cores >= full.cores || !scratch_per_core(full)))
    return fail(C::cores_out_of_range, im.cores, full.cores);
  const tiling_problem P = im.cores != 0 ? on_fewer_cores(full, im.cores) : full;
  if (im.tile_c < 1 || im.tile_c > P.C) return fail(C::channel_tile_out_of_range, im.tile_c, P.C);
  const int max_h = P.H < P.max_tile_h ? P.H : P.max_tile_h;
  if (im.tile_h < 1 || im.tile_h > max_h) return fail(C::row_tile_out_of_range, im.tile_h, max_h);
  if (im.tile_w < 1 || im.tile_w > P.W) return fail(C::column_tile_out_of_range, im.tile_w, P.W);
  if (P.whole_rows && im.tile_w != P.W)
    return fail(C::depthwise_tile_not_whole_rows, im.tile_w, P.W);
  if (!rows_read_input(P, im.tile_h))
    return fail(C::row_tile_reads_only_padding, im.tile_h, P.pad.t);
  if (!cols_read_input(P, im.tile_w))
    return fail(C::column_tile_reads_only_padding, im.tile_w, P.pad.l);
  const cost::split_list splits = cost::splits_for(P);
  bool known = false;
  for (int i = 0; i < splits.n; ++i) known = known || splits.item[i] == im.split;
  if (!known)
    return fail(C::split_not_supported, static_cast<int>(im.split.kind),
                static_cast<int>(splits.item[0].kind));
  const int K = P.linear ? linear_k(P) : 0;
  if (im.tile_k != 0 && (im.tile_k < 4 || im.tile_k >= K))
    return fail(C::k_tile_out_of_range, im.tile_k, K);
  if (im.tile_k % 4 != 0) return fail(C::k_tile_not_whole_words, im.tile_k, 4);
  const int bytes = l1_bytes_for(P, im.tile_c, im.tile_h, im.tile_w, im.tile_k);
  if (bytes > P.l1_budget) return fail(C::tile_buffers_exceed_l1, bytes, P.l1_budget);
  const std::int64_t cyc =
      cost::layer_cycles(P, im.tile_c, im.tile_h, im.tile_w, im.split, im.tile_k);
  if (cyc != im.cycles) return fail(C::objective_value_differs, im.cycles, cyc);
  return {};
}

/// The layer plan of a re-checked imported tiling (the search's plan for the same tiles).
constexpr layer_plan imported_layer_plan(const layer& l, const platform& p,
                                         const imported_layer& im, objective o) {
  if (l.kind == op::input) return plan_layer(l, p, o);
  const tiling_problem full = make_problem(l, p);
  layer_plan r = make_layer_plan(im.cores != 0 ? on_fewer_cores(full, im.cores) : full, im.tile_c,
                                 im.tile_h, im.tile_w, im.split, im.tile_k);
  r.score = r.l1_cycles;
  r.goal = o;
  return r;
}

namespace error {
template <int Layer, auto Name, imported_constraint Constraint, std::int64_t Value,
          std::int64_t Limit>
struct imported_plan_violates {
  static_assert(Layer < 0,
                "the imported plan (a generated header) breaks a constraint of this layer "
                "(Constraint: Value against Limit); the header is stale or was edited by hand: "
                "regenerate it");
};
template <std::int64_t NetworkLayers, std::int64_t ImportedLayers>
struct imported_plan_has_another_layer_count {
  static_assert(NetworkLayers < 0,
                "the imported plan was solved for a network with another number of layers; "
                "regenerate the header");
};
template <objective O>
struct imported_plans_use_the_model_objective {
  static_assert(O != O, "imported plans are solved for objective::model only");
};
}  // namespace error

namespace plan_detail {

template <class Net, platform P, objective O, std::size_t I>
consteval layer_plan import_layer() {
  using IP = imported_plan<Net, P, O>;
  if constexpr (O != objective::model) {
    (void)error::imported_plans_use_the_model_objective<O>{};
    return {};
  } else if constexpr (IP::size != Net::size) {
    (void)error::imported_plan_has_another_layer_count<static_cast<std::int64_t>(Net::size),
                                                       static_cast<std::int64_t>(IP::size)>{};
    return {};
  } else {
    constexpr layer L = Net::layers[I];
    constexpr imported_layer im = IP::layers[I];
    constexpr imported_check c = check_imported_layer(L, P, im);
    if constexpr (!c.ok()) {
      constexpr fixed_string<L.name.size() + 1> name{L.name};
      (void)
          error::imported_plan_violates<static_cast<int>(I), name, c.violated, c.value, c.limit>{};
      return {};
    } else {
      return imported_layer_plan(L, P, im, O);
    }
  }
}

/// Layer I's plan as the search makes it alone, in constants of its own (sliced_plan; so
/// that the layer that a depthwise layer reads finds the depthwise plan already made).
template <class Net, platform P, objective O, std::size_t I>
consteval layer_plan searched() {
  constexpr layer L = Net::layers[I];
  if constexpr (layer_is_searched(L, P))
    return sliced_plan<make_problem(L, P), O>();
  else
    return plan_layer(L, P, O);
}
template <class Net, platform P, objective O, std::size_t I>
inline constexpr layer_plan searched_v = searched<Net, P, O, I>();

/// Layer I's plan: the imported one (re-checked) when a header provides it, else the search's
/// (for a layer that a depthwise layer alone reads, in its network: plan_producer, its
/// searches sliced the same way).
template <class Net, platform P, objective O, std::size_t I>
consteval layer_plan imported_or_planned() {
  if constexpr (imported_plan<Net, P, O>::available) {
    return import_layer<Net, P, O, I>();
  } else {
    constexpr int j = sole_depthwise_reader(Net::layers, I);
    if constexpr (j >= 0) {
      constexpr layer dw = Net::layers[static_cast<std::size_t>(j)];
      constexpr layer_plan dw_plan = searched_v<Net, P, O, static_cast<std::size_t>(j)>;
      constexpr layer_plan best = searched_v<Net, P, O, I>;
      if constexpr (producer_weighs_whole_rows(O, best, dw_plan))
        return producer_choice(P, dw, dw_plan, best,
                               sliced_plan<whole_row_problem(Net::layers[I], P), O>());
      else
        return best;
    } else {
      return searched_v<Net, P, O, I>;
    }
  }
}

}  // namespace plan_detail

/// True when the imported plan also carries the joint L3/L2 decisions.
template <class Net, platform P, objective O = objective::model>
inline constexpr bool plan_is_joint = requires {
  { imported_plan<Net, P, O>::l3[0] } -> std::convertible_to<const imported_l3&>;
};

/// True when a generated header provides the plan of `Net` on `P`.
template <class Net, platform P, objective O = objective::model>
inline constexpr bool plan_is_imported = imported_plan<Net, P, O>::available;

}  // namespace ctile
