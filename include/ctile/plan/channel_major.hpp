// Depthwise inputs kept channel-major: which layer a depthwise layer alone reads from, and the
// tiling of that producer in its network. The depthwise kernel reads its input tile CHW; an
// HWC tensor is marshalled channel by channel (a DMA command per channel of every tile), a
// CHW one is one command per tile. A producer can store CHW in one command per tile only when
// its tiles span whole rows, so the planner cuts it so when that costs less than the
// marshalling it saves. (The network plan then keeps the tensor CHW when it also stays in L2:
// choose_channel_major.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "ctile/layers/layer.hpp"
#include "ctile/plan/cost_model.hpp"
#include "ctile/plan/layer_plan.hpp"
#include "ctile/plan/search.hpp"
#include "ctile/platform/platform.hpp"

namespace ctile {

/// The depthwise layer that alone reads layer `i`'s output, when `i` is a standard or pointwise
/// convolution with 8-bit outputs that is not the network's last layer; -1 otherwise.
constexpr int sole_depthwise_reader(std::span<const layer> ls, std::size_t i) {
  const std::size_t n = ls.size();
  if (i + 1 >= n || ls[i].kind != op::conv || ls[i].output_bytes_per_element() != 1) return -1;
  int reader = -1, readers = 0;
  for (std::size_t k = 0; k < n; ++k)
    for (int s = 0; s < ls[k].inputs(); ++s)
      if (ls[k].src[s] == static_cast<int>(i)) ++readers, reader = static_cast<int>(k);
  if (readers != 1 || ls[static_cast<std::size_t>(reader)].kind != op::depthwise) return -1;
  return reader;
}

namespace cost {
/// [measured: bench/runtime] instructions a core spends on one command of a depthwise input's
/// marshalling: the wait for its previous command, five register stores, the id load, the loop.
inline constexpr int marshal_command = 15;
/// [fit: bench/runtime, MobileNet-v1 1.0-128 depthwise layers 2, 4, 6, 8 marshalled and kept
/// CHW] what a marshalled depthwise tile costs besides its commands: the cores' entry into
/// their share, their chained waits, the first tile's fork of its own.
inline constexpr int marshal_tile = 225;
/// [sim: bench/runtime under the cluster timing model] the marshalling's cycles in percent of
/// the instruction count above, where code is fetched from L2 through the cluster's
/// instruction caches (platform::icache_l2_refill): MobileNet-v1 1.0-128's second depthwise
/// layer (20 tiles, 256 channel commands) takes 11,869 cycles more marshalled than kept
/// channel-major, against 4,980 modeled by the two constants above.
inline constexpr int marshal_fetch_percent = 238;
}  // namespace cost

/// Modeled cycles of marshalling depthwise layer `dw` (planned as `p`, in whole-row tiles) from
/// an HWC input: a command per channel of each tile, the cores programming theirs at once, and
/// each tile's fixed part; in cycles of platform `pf` (its cores, and its code fetch).
constexpr std::int64_t marshal_cycles(const layer& dw, const layer_plan& p, const platform& pf) {
  const std::int64_t tiles = p.tiles();
  const std::int64_t commands = std::int64_t{p.n_h} * p.n_w * dw.out.c;
  const std::int64_t c = pf.cores > 0 ? pf.cores : 1;
  const std::int64_t instructions =
      tiles * cost::marshal_tile + (commands + c - 1) / c * cost::marshal_command;
  return pf.icache_l2_refill > 0 ? instructions * cost::marshal_fetch_percent / 100 : instructions;
}

/// Whether plan_producer weighs whole-row tiles for a layer whose best plan is `best`, read
/// by a depthwise layer planned as `dw_plan`.
constexpr bool producer_weighs_whole_rows(objective o, const layer_plan& best,
                                          const layer_plan& dw_plan) {
  return o == objective::model && best.fits && best.n_w != 1 && dw_plan.fits && dw_plan.n_w == 1;
}

/// Layer `l`'s tiling problem with whole-row tiles only.
constexpr tiling_problem whole_row_problem(const layer& l, const platform& p) {
  tiling_problem P = make_problem(l, p);
  P.whole_rows = true;
  return P;
}

/// plan_producer's choice between the best plan and the best whole-row plan `whole`.
constexpr layer_plan producer_choice(const platform& p, const layer& dw, const layer_plan& dw_plan,
                                     const layer_plan& best, const layer_plan& whole) {
  if (!whole.fits || whole.n_w != 1) return best;
  return whole.l1_cycles - best.l1_cycles <= marshal_cycles(dw, dw_plan, p) ? whole : best;
}

/// Layer `l`'s plan when depthwise layer `dw` (planned as `dw_plan`) alone reads its output:
/// plan_layer's, or the best whole-row tiling when that costs at most the reader's
/// marshalling more (modeled), so that the tensor can be kept channel-major. DORY's objective
/// is left as it is.
constexpr layer_plan plan_producer(const layer& l, const platform& p, objective o, const layer& dw,
                                   const layer_plan& dw_plan) {
  const layer_plan best = plan_layer(l, p, o);
  if (!producer_weighs_whole_rows(o, best, dw_plan)) return best;
  return producer_choice(p, dw, dw_plan, best, plan_problem(whole_row_problem(l, p), o));
}

/// Every layer's L2 -> L1 plan in its network (plan_layer, and plan_producer for the layers a
/// depthwise layer alone reads), into `out` (as many as `ls`).
constexpr void plan_layers(std::span<const layer> ls, const platform& p, objective o,
                           std::span<layer_plan> out) {
  for (std::size_t i = 0; i < ls.size(); ++i) out[i] = plan_layer(ls[i], p, o);
  for (std::size_t i = 0; i < ls.size(); ++i) {
    const int j = sole_depthwise_reader(ls, i);
    if (j >= 0)
      out[i] = plan_producer(ls[i], p, o, ls[static_cast<std::size_t>(j)],
                             out[static_cast<std::size_t>(j)]);
  }
}

}  // namespace ctile
