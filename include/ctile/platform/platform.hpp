// A target's memory levels, cores and DMA limits as a plain value. The planner reads only
// these numbers: a new target (a 128 KiB-L1 PULP variant, a board with more HyperRAM) is a
// new value, not new code.
#pragma once

#include <cstdint>

#include "ctile/core/fixed_string.hpp"

namespace ctile {

/// Memory levels, cores and DMA figures of one target. Structural: usable as a template
/// argument (`plan_of<Net, gap8>`), and modifiable with the fluent setters below
/// (`gap8.with_l1(128 * 1024)`).
struct platform {
  name_t name{};
  int cores = 8;  ///< cluster cores sharing L1

  // L1 (cluster TCDM): what is left for tiles is l1_bytes minus the core stacks.
  int l1_bytes = 64000;        ///< L1 the planner may use, before stacks
  int l1_stack_master = 3500;  ///< stack of core 0
  int l1_stack_worker = 3400;  ///< stack of each other core

  // L2 (SoC memory): what is left for activations and weights is l2_bytes minus code.
  int l2_bytes = 512 * 1024;
  int l2_code_reserve = 96 * 1024;  ///< code, stacks and runtime data kept out of the arena

  // L3 (off-chip RAM); 0: no L3, everything must fit L2.
  int l3_bytes = 8 * 1024 * 1024;
  /// Every layer's weights live in L3 and are brought to L2 each frame, even those that fit
  /// L2 beside the activations (which the planner otherwise keeps resident in L2).
  bool stream_weights = false;

  // Cluster DMA (L2 <-> L1) command limits.
  int dma_max_cmd_bytes = 65535;   ///< 16-bit length field
  int dma_max_2d_line = 32767;     ///< 15-bit 2-D line length field
  int dma_max_2d_stride = 32767;   ///< 15-bit 2-D stride field
  int dma_safe_max_bytes = 32768;  ///< planned commands never exceed this

  // Cost-model figures (cycles are cluster cycles).
  int cluster_mhz = 100;
  int dma_bytes_per_kcycle = 20000;  ///< L2 <-> L1 bandwidth, bytes per 1000 cycles
  int dma_latency_cycles = 8;        ///< per command
  int l3_bytes_per_kcycle = 2000;    ///< L3 <-> L2 bandwidth, bytes per 1000 cycles
  int l3_latency_cycles = 200;       ///< per L3 transfer (set-up through the fabric controller)

  // Core 0's instruction fetch and table reads outside the kernels (the cost model's loop
  // terms, cost::loop_tile_cycles and cost::loop_layer_cycles). All 0: the target fetches
  // code and reads the executor's tables at no extra cost (a host).
  int icache_private_bytes = 0;  ///< per-core (L0) instruction cache
  int icache_shared_bytes = 0;   ///< the cluster's shared instruction cache
  int icache_line_bytes = 16;    ///< line of both levels
  int icache_shared_refill = 0;  ///< cycles of an L0 miss that hits the shared cache
  int icache_l2_refill = 0;      ///< cycles of a line refilled from L2
  int l2_data_cycles = 0;        ///< extra cycles of a core's load or store to L2
  /// The executor's per-layer tables (layers, plans, placements) are in L1 (a firmware's
  /// CTILE_L1_DATA), so the loop nests' reads of them cost nothing extra. The cluster firmware
  /// keeps them in L2.
  bool tables_in_l1 = false;

  friend constexpr bool operator==(const platform&, const platform&) = default;

  /// L1 bytes left for tile buffers once the core stacks are taken.
  [[nodiscard]] constexpr int l1_budget() const {
    return l1_bytes - l1_stack_master - (cores - 1) * l1_stack_worker;
  }
  /// L2 bytes left for the activation/weight arena once code is reserved.
  [[nodiscard]] constexpr int l2_budget() const { return l2_bytes - l2_code_reserve; }
  [[nodiscard]] constexpr bool has_l3() const { return l3_bytes > 0; }
  /// The largest single DMA command the plans use.
  [[nodiscard]] constexpr int dma_command_limit() const {
    const int m = dma_safe_max_bytes < dma_max_cmd_bytes ? dma_safe_max_bytes : dma_max_cmd_bytes;
    return m > 0 ? m : 1;
  }

  template <std::size_t N>
  constexpr platform named(const char (&s)[N]) const {
    auto c = *this;
    c.name = name_t(s);
    return c;
  }
  constexpr platform with_cores(int n) const {
    auto c = *this;
    c.cores = n;
    return c;
  }
  constexpr platform with_l1(int bytes) const {
    auto c = *this;
    c.l1_bytes = bytes;
    return c;
  }
  constexpr platform with_stacks(int master, int worker) const {
    auto c = *this;
    c.l1_stack_master = master;
    c.l1_stack_worker = worker;
    return c;
  }
  constexpr platform with_l2(int bytes) const {
    auto c = *this;
    c.l2_bytes = bytes;
    return c;
  }
  constexpr platform with_code_reserve(int bytes) const {
    auto c = *this;
    c.l2_code_reserve = bytes;
    return c;
  }
  constexpr platform with_l3(int bytes) const {
    auto c = *this;
    c.l3_bytes = bytes;
    return c;
  }
  /// The instruction caches (private and shared bytes, line bytes, the cycles of an L0 miss
  /// that hits the shared cache and of a line from L2) and the extra cycles of a data access
  /// to L2.
  constexpr platform with_code_fetch(int private_bytes, int shared_bytes, int line,
                                     int shared_refill, int l2_refill, int l2_data) const {
    auto c = *this;
    c.icache_private_bytes = private_bytes;
    c.icache_shared_bytes = shared_bytes;
    c.icache_line_bytes = line;
    c.icache_shared_refill = shared_refill;
    c.icache_l2_refill = l2_refill;
    c.l2_data_cycles = l2_data;
    return c;
  }
  constexpr platform with_tables_in_l1(bool in_l1) const {
    auto c = *this;
    c.tables_in_l1 = in_l1;
    return c;
  }
  /// Forces every layer's weights to stream from L3 (stream_weights).
  constexpr platform with_streamed_weights(bool on = true) const {
    auto c = *this;
    c.stream_weights = on;
    return c;
  }
  constexpr platform with_dma_safe_max(int bytes) const {
    auto c = *this;
    c.dma_safe_max_bytes = bytes;
    return c;
  }
};

}  // namespace ctile
