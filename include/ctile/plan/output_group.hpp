// Output groups of channel-major convolutions: when a layer's every tile is a channel tile of
// its own (one row and one column tile) and its output is kept channel-major in L2, channel
// tile t's output planes lie right after tile t - 1's, so an L1 buffer of g channel tiles goes
// to L2 in one command instead of g. The loop nests fill such a buffer tile by tile and send it
// once full (schedule::conv_loop, schedule::run_tiles; the linear loop's groups are the same
// idea, linear_y_group). The group takes only L1 the tiling leaves free, so no tiling changes;
// what it saves is a command programmed and waited for by core 0 per channel tile, at the price
// of a larger last transfer that no compute hides.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "ctile/layers/layer.hpp"
#include "ctile/plan/cost_model.hpp"
#include "ctile/plan/layer_plan.hpp"
#include "ctile/platform/platform.hpp"

namespace ctile {

/// Whether plan `p` can take output groups: a convolution whose every tile is a channel tile
/// of its own, with its output channel-major (8-bit) in L2, more than one channel tile, one
/// reduction tile, and its L1 tiles fitting.
constexpr bool groups_outputs(const layer_plan& p) {
  return p.kind == op::conv && p.out_chw && !p.spatial() && p.n_c > 1 && p.n_k == 1 && p.fits;
}

/// The output commands plan `p` saves by its output group, against one a channel tile: all
/// but one of each group's (0 for a plan without output groups: groups_outputs, y_group).
constexpr int output_commands_saved(const layer_plan& p) {
  if (p.kind != op::conv || !p.out_chw || p.spatial()) return 0;
  const int g = p.y_group(1);
  return g > 1 ? p.n_c - (p.n_c + g - 1) / g : 0;
}

/// Plan `p` (groups_outputs) with output buffers of `g` channel tiles: two of them, or one of
/// the whole output when `g` covers every channel tile; the L1 buffers after the output's
/// move up or down by the change. Its cycles are left as they are.
constexpr layer_plan with_output_group(layer_plan p, int g) {
  using plan_detail::align4;
  const int tile = p.tile_h * p.tile_w * p.tile_c;  // 8-bit outputs
  const int channels = (p.n_c - 1) * p.tile_c + p.last_c;
  const bool whole = g >= p.n_c;
  const int y = whole ? channels * p.tile_h * p.tile_w : g * tile;
  const int copies = whole ? 1 : 2;
  const int shift = copies * align4(y) - p.y_copies * align4(p.y_bytes);
  const auto moved = [&](int at) { return at > p.l1.y[0] ? at + shift : at; };
  for (int k = 0; k < 2; ++k) {
    p.l1.w[k] = moved(p.l1.w[k]);
    p.l1.kl[k] = moved(p.l1.kl[k]);
  }
  p.l1.scratch = moved(p.l1.scratch);
  p.l1.total += shift;
  p.l1.y[1] = copies > 1 ? p.l1.y[0] + align4(y) : p.l1.y[0];
  p.y_bytes = y;
  p.y_copies = copies;
  p.fits = p.l1.total <= p.l1_budget;
  return p;
}

/// Modeled cycles that output groups of `g` channel tiles save in plan `p` on platform `pf`:
/// a command per channel tile that no longer sends its own output
/// (cost::output_command_cycles), less the last group's transfer beyond the last tile's (the
/// transfer after the last kernel, which nothing hides).
constexpr std::int64_t output_group_saving(const layer_plan& p, const platform& pf, int g) {
  const std::int64_t plane = std::int64_t{p.tile_h} * p.tile_w;
  const int groups = (p.n_c + g - 1) / g;
  const std::int64_t last_group = ((p.n_c - 1) % g) * std::int64_t{p.tile_c} + p.last_c;
  const int bw = pf.dma_bytes_per_kcycle > 0 ? pf.dma_bytes_per_kcycle : 1;
  const std::int64_t tail = ((last_group - p.last_c) * plane * 1000 + bw - 1) / bw;
  return std::int64_t{p.n_c - groups} * cost::output_command_cycles - tail;
}

/// The output group of plan `p` (groups_outputs) on platform `pf`: of the groups whose buffers
/// fit the L1 the tiling leaves free and whose command is within the platform's limit, the one
/// that saves the most modeled cycles (output_group_saving; the smaller on a tie); 1 when none
/// saves any.
constexpr int best_output_group(const layer_plan& p, const platform& pf) {
  int best = 1;
  std::int64_t most = 0;
  const std::int64_t plane = std::int64_t{p.tile_h} * p.tile_w;
  const int channels = (p.n_c - 1) * p.tile_c + p.last_c;
  for (int g = 2; g <= p.n_c; ++g) {
    const std::int64_t bytes = g >= p.n_c ? channels * plane : g * p.tile_c * plane;
    if (bytes > pf.dma_command_limit()) break;  // (the larger groups' too)
    if (!with_output_group(p, g).fits) continue;
    const std::int64_t s = output_group_saving(p, pf, g);
    if (s > most) most = s, best = g;
  }
  return best;
}

/// Sets the output group of every plan that can take one (groups_outputs; best_output_group),
/// its cycles less the saving. Run after choose_channel_major, which decides the layouts.
constexpr void choose_output_groups(std::span<layer_plan> plans, const platform& pf) {
  for (auto& p : plans) {
    if (!groups_outputs(p)) continue;
    const int g = best_output_group(p, pf);
    if (g <= 1) continue;
    const std::int64_t saved = output_group_saving(p, pf, g);
    p = with_output_group(p, g);
    p.l1_cycles -= saved;
    p.cycles -= saved;
  }
}

}  // namespace ctile
