// Per-layer figures of a network's plan, split by where the modeled time goes, all computed
// with the planner's own cost functions (ctile::cost): bench_network prints them, writes the
// data the plots read, and sweeps L1 and L2 sizes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <ctile/ctile.hpp>
#include <ctile/plan/network_plan.hpp>

namespace ctile::bench {

/// Where a layer's modeled cycles go. compute + dma_stall + overhead = the L2 <-> L1 loop's
/// cycles (layer_plan::l1_cycles); l3_stall is the L3 traffic not hidden behind them.
struct layer_time {
  std::int64_t compute = 0;    ///< the slowest core's kernel cycles, summed over tiles
  std::int64_t dma_stall = 0;  ///< cluster DMA not hidden behind compute (prologue, epilogue,
                               ///< tiles whose transfers outlast their compute)
  std::int64_t overhead = 0;   ///< per-tile fork, barrier, loop and code fetch
  std::int64_t l3_stall = 0;   ///< L3 <-> L2 transfers not hidden behind the layer
  [[nodiscard]] constexpr std::int64_t total() const {
    return compute + dma_stall + overhead + l3_stall;
  }
};

/// The split of layer `l`'s plan `lp` on platform `p`: the compute of every tile class (inner
/// and last tile along each axis) from cost::tile_compute, the fixed cost per tile (less the
/// output commands that output groups save), and the rest of the model's cycles as DMA stall.
constexpr layer_time time_of(const layer& l, const layer_plan& lp, const platform& p) {
  layer_time t;
  if (l.kind == op::input) return t;
  const tiling_problem P = make_problem(l, p);
  for (int ci = 0; ci < 2; ++ci) {
    const std::int64_t cnt_c = ci == 0 ? lp.n_c - 1 : 1;
    for (int hi = 0; hi < 2; ++hi) {
      const std::int64_t cnt_h = hi == 0 ? lp.n_h - 1 : 1;
      for (int wi = 0; wi < 2; ++wi) {
        const std::int64_t cnt_w = wi == 0 ? lp.n_w - 1 : 1;
        const std::int64_t n = cnt_c * cnt_h * cnt_w;
        if (n == 0) continue;
        t.compute += n * cost::tile_compute(P, lp.split, hi == 0 ? lp.tile_h : lp.last_h,
                                            wi == 0 ? lp.tile_w : lp.last_w,
                                            ci == 0 ? lp.tile_c : lp.last_c);
      }
    }
  }
  t.overhead = lp.tiles() * (lp.spatial() ? P.tile_overhead_spatial : P.tile_overhead) +
               lp.n_c * cost::params_apart_cycles(P, lp) -
               std::int64_t{output_commands_saved(lp)} * cost::output_command_cycles;
  t.dma_stall = lp.l1_cycles - t.compute - t.overhead;
  t.l3_stall = lp.cycles - lp.l1_cycles;
  return t;
}

/// L2 arena bytes alive while layer `step` runs (every buffer of the bidirectional stack whose
/// lifetime covers the step).
template <std::size_t N>
constexpr std::int64_t l2_live(const network_plan<N>& np, int step) {
  std::int64_t b = 0;
  for (const auto& e : np.l2)
    for (const l2_slot* s : {&e.x, &e.w, &e.y})
      if (s->offset >= 0 && s->from <= step && step <= s->until) b += s->bytes;
  return b;
}

/// Network totals of a plan.
struct network_time {
  std::int64_t macs = 0;
  layer_time time{};
  std::int64_t cycles = 0;
  int l1_peak = 0;
  [[nodiscard]] constexpr double mac_per_cycle() const {
    return cycles > 0 ? static_cast<double>(macs) / static_cast<double>(cycles) : 0.0;
  }
};
template <std::size_t N>
constexpr network_time totals(const std::array<layer, N>& ls, const network_plan<N>& np,
                              const platform& p) {
  network_time r;
  for (std::size_t i = 0; i < N; ++i) {
    const layer_time t = time_of(ls[i], np.layers[i], p);
    r.time.compute += t.compute;
    r.time.dma_stall += t.dma_stall;
    r.time.overhead += t.overhead;
    r.time.l3_stall += t.l3_stall;
    r.macs += np.layers[i].macs;
    r.cycles += np.layers[i].cycles;
    if (np.layers[i].l1.total > r.l1_peak) r.l1_peak = np.layers[i].l1.total;
  }
  return r;
}

/// DORY's published figures for MobileNet-v1 1.0-128 on GAP-8 (Burrello et al., "DORY:
/// Automatic End-to-End Deployment of Real-World DNNs on Low-Cost IoT MCUs", IEEE TC 2021):
/// 8.76 MAC/cycle on GVSOC with 8 cores, and 4.3 frames/s at a 100 MHz cluster.
struct dory_figures {
  double mac_per_cycle_gvsoc = 8.76;
  double frames_per_s = 4.3;
  int cluster_mhz = 100;
};

}  // namespace ctile::bench
