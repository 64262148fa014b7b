// A cycle model of a PULP-NN-style kernel plus cluster DMA on GAP-8, per L1 tile and per
// layer. Shared by the planner (its default objective) and the benchmarks (bench/network).
//
// Where the kernel constants come from. Each one is marked with its source:
// - [loop]: the instruction count of a loop in the CORE-V build of the kernels (clang-19,
//   `bench/kernels/cycles/instruction_mix.py`), one cycle per instruction plus the stalls the
//   simulator charges (below). E.g. the 4x2 matmul hardware loop: 6 `cv.lw` + 8
//   `cv.sdotusp.b` = 14 cycles per 4 bytes of the reduction for 32 MACs.
// - [fit:PROGRAM]: fitted so that the model reproduces the cycles of the freestanding cycle
//   program PROGRAM (bench/kernels/cycles, one core, one tile) once the [loop] terms are
//   subtracted. The programs' cycles come from the instruction-set simulator
//   tests/cross/corev_iss.py (exact instruction counts; +1 cycle on load-use, +2 on taken
//   branches, 5-cycle mulh*, +1 on misaligned accesses, zero-overhead hardware loops) since no
//   cycle-accurate CV32E40P/RI5CY model is available here: these are *simulated* figures, not
//   silicon measurements. bench/README.md ("Calibration of the cost model") lists the
//   program, its simulated cycles and the model's figure for the same tile;
//   tests/bench checks that they agree within 10%.
// - [estimate]: not measured; an instruction count of code as PULP-NN writes it.
// - Cluster DMA: ~2 GB/s and ~80 ns per command at a 100 MHz cluster; L3 HyperRAM ~200 MB/s
//   (platform values, ctile/platform/platform.hpp, DESIGN.md section 1).
#pragma once

#include <cstdint>

#include "ctile/core/split.hpp"
#include "ctile/plan/problem.hpp"
#include "ctile/platform/gap8.hpp"
#include "ctile/platform/platform.hpp"

namespace ctile::cost {

// ---- Kernel constants (cycles of one core).
inline constexpr int matmul_4x2_per_k4 = 14;  ///< [loop] 4 ch x 2 px block, per 4 bytes of K
/// [loop] 4 ch x 4 px block of a pointwise layer (8 lw + 16 sdotp), per 4 bytes of K.
inline constexpr int matmul_4x4_per_k4 = 24;
inline constexpr int matmul_1x2_per_k4 = 5;    ///< [estimate] leftover channel, 2 pixels
inline constexpr int matmul_4x1_per_k4 = 9;    ///< [loop] 4 channels x 1 pixel: 5 lw + 4 sdotp
inline constexpr int matmul_1x1_per_k4 = 3;    ///< [loop] one dot: 2 lw + 1 sdotp
inline constexpr int matmul_block_setup = 23;  ///< [loop] accumulators, pointers, loop set-up
inline constexpr int matmul_small_setup = 12;  ///< [estimate] same for a leftover block
/// [fit:cycles_conv3x3, 4x2 blocks] batch-norm (kappa * acc + lambda), requantization, clip,
/// store of one conv output, straight from the block's registers; 8 per 4x2 block (block
/// set-up + 8 outputs = 93 cycles, fitted to the pointwise programs' 4x2 blocks before they
/// went to 4x4).
inline constexpr int requant_per_output = 9;
/// [fit:cycles_pointwise, cycles_pointwise_c64, cycles_pointwise_c256] per output of a 4x4
/// pointwise block, in place of requant_per_output: the block requantizes its 16 sums straight
/// from the loop's registers (batch-norm with a shift plan: mul, cv.addNr, cv.clipur) and
/// stores each pixel's 4 channels as one word (2 packs + 1 store per 4 outputs), ~4 cycles.
inline constexpr int quad_requant_per_output = 4;
/// [fit:cycles_pointwise, cycles_pointwise_c64, cycles_pointwise_c256] per 4x4 pointwise
/// block besides its loop and 16 x quad_requant_per_output (96 cycles per block besides the
/// loop in all three programs, measured 2026-11-24): the step and parameter loads and pointer
/// write-backs of the block loop (the MAC loop takes every register), the peeled first word,
/// and each group of 4 pixels' call share.
inline constexpr int matmul_quad_setup = 32;
/// [fit:cycles_conv3x3] per kernel row of a pixel: interior pixel pairs read their receptive
/// field in place (no copy); only border pairs are copied to the im2col buffer.
inline constexpr int im2col_per_row = 4;
/// [fit:cycles_conv3x3] copying words is limited to border pairs: negligible per word.
inline constexpr int im2col_per_word = 0;
/// [fit:cycles_depthwise3x3] depthwise per input byte of a core's block: the window rows stay
/// in registers and roll down each column (one word load per output), so no per-byte copy.
inline constexpr int dw_transpose_per_byte = 0;
inline constexpr int dw_per_k4 = 1;  ///< [loop] one sdotp per filter row (rows in registers)
/// [fit:cycles_depthwise3x3] per output: word load, bias, requantization (a mulhu plan: 5
/// cycles; a shift plan is ~4 cycles cheaper), store, hardware-loop control.
inline constexpr int dw_per_output = 12;
/// [fit:cycles_linear] per output: bias, requantization, store (outputs in 4x1 blocks).
/// Refitted on 2026-11-24 to the program with the corrected hardware-loop encoding (21,009
/// cycles; the fit of 44 dated from the half-word encoding, 20,111).
inline constexpr int linear_per_output = 74;
/// [estimate] per output and K tile of a linear layer whose reduction is cut: the int32
/// partial sum loaded (not on the first K tile) and stored (not on the last).
inline constexpr int linear_partial_per_output = 4;
inline constexpr int maxpool_per_tap4 = 16;    ///< [fit:cycles_maxpool] per window tap, 4 channels
inline constexpr int maxpool_per_output4 = 6;  ///< [estimate] store of 4 channels, loop
inline constexpr int avgpool_per_tap = 6;      ///< [loop] lbu + add + pointer + load-use
inline constexpr int avgpool_per_output = 48;  ///< [fit:cycles_avgpool] floor(sum * m / d), store
inline constexpr int add_per_element = 44;  ///< [fit:cycles_add] 2 loads, 2 rescales, clip, store
inline constexpr int kernel_call = 30;      ///< [estimate] per core: call, core id, bounds

// ---- Kernels of tiles with a 16-bit operand (kernels/ctile/kernels/wide.hpp).
//
// A layer that reads or writes a 16-bit tensor (tiling_problem::in_bpe or out_bpe 2) runs the
// portable wide kernels on every core of its split: plain loops with 64-bit accumulators, a
// halfword load per 16-bit element (two byte loads where the operand is not 2-byte aligned), and
// an exact requantization floor(t * m / d) by a shift when d is a power of two, else through
// libgcc's 64-bit division, per output; products summed in 32 bits by blocks of 256
// (wide::dot_as), the loops made for the element width, signedness and alignment once per tile
// (wide::with_elements). Their cost replaces the 8-bit kernel terms (wide_terms_for). [loop]:
// the inner loop of the CORE-V (clang-19, -O3) build in the freestanding programs
// bench/kernels/cycles/cycles_wide_*, cycles per iteration on the instruction-set simulator
// (`corev_iss.py --profile`); [fit:PROGRAM]: the rest of that program's simulated cycles spread
// over its outputs (bench/README.md, "The cost of 16-bit tensors"). Simulated, not measured on
// silicon; tests/bench re-measures them (10%).
/// [loop] conv and pointwise, per MAC: the halfword load of the u16 element, a weight load, mul,
/// the 32-bit add, pointers and counter, the taken branch.
inline constexpr int wide_conv_per_mac = 8;
/// [fit:cycles_wide_conv3x3, cycles_wide_pointwise] per kernel row of an output: the bounds
/// checks and the block sum's set-up, one sum over the row's taps (their elements follow one
/// another in the HWC input); with a horizontal dilation every tap is a row of its own. The two
/// programs give the per-row and per-output terms exactly: 3 rows and 1 row.
inline constexpr int wide_conv_per_row = 71;
/// [fit:cycles_wide_conv3x3, cycles_wide_pointwise] per output: batch-norm in 64 bits, the
/// requantization's 64-bit product and shift, clamp, store.
inline constexpr int wide_conv_per_output = 143;
/// [loop] depthwise, per tap of an output: the bounds checks, the CHW element load, the
/// 64-bit multiply-accumulate.
inline constexpr int wide_dw_per_tap = 25;
/// [fit:cycles_wide_depthwise3x3] per output: bias, requantization, store.
inline constexpr int wide_dw_per_output = 430;
/// [loop] linear, per MAC (the block sum over the flattened input, as conv's).
inline constexpr int wide_linear_per_mac = 8;
/// [fit:cycles_wide_linear] per output: bias, requantization (64-bit product and shift), store.
inline constexpr int wide_linear_per_output = 157;
/// [estimate] per output and K tile of a wide linear layer whose reduction is cut: the 64-bit
/// partial sum assembled from 8 bytes and stored back as 8 bytes.
inline constexpr int wide_linear_partial_per_output = 40;
/// [loop] pools, per window tap: bounds checks, the element load, the sum and the max.
inline constexpr int wide_pool_per_tap = 18;
/// [fit:cycles_wide_avgpool] average pool, per output: requantization (64-bit product and
/// shift) and the 16-bit store.
inline constexpr int wide_avgpool_per_output = 196;
/// [fit:cycles_wide_maxpool] max pool, per output: the window's bounds and loop set-up, the
/// 16-bit store (no requantization).
inline constexpr int wide_maxpool_per_output = 136;
/// [fit:cycles_wide_add] residual add, per element: two loads, two 64-bit rescales, the
/// requantization (64-bit product and shift), the 16-bit store.
inline constexpr int wide_add_per_element = 188;

/// Whether a layer's tiles run the wide kernels: a 16-bit input or output (4 bytes is a raw
/// int32 output of an 8-bit linear layer, which runs the 8-bit kernel).
constexpr bool wide_operands(const tiling_problem& P) {
  return P.in_bpe > 1 || P.out_bpe == 2;
}

// ---- Core 0's cycles outside the kernels: the loop nests, per tile and per layer.
//
// What a tile and a layer cost outside the kernels on a cluster is mostly instruction fetch
// and table reads, not instructions: every layer's loop nest is its own code, fetched cold
// from L2 once per inference; the per-tile path is longer than the private L0 cache, so every
// tile refills it from the shared cache (or, once a kernel has evicted it, from L2); the
// executor's tables are read from L2 unless the firmware places them in L1. The terms:
// - per layer: layer_cycles, plus code_bytes / line x the L2 refill (not when the same loop
//   nest ran in the previous layer and stays cached), plus layer_l2_reads x the L2 latency
//   (0 when the platform's tables are in L1);
// - per tile: tile_cycles (instructions, stalls, the DMA queue's accesses), plus
//   tile_path_bytes / line x the shared cache's refill, those of them the kernel's code evicts
//   from the shared cache x the L2 refill instead, plus tile_l2_reads x the L2 latency, plus
//   the fork and barrier.
// The platform gives the cache sizes and latencies (platform::with_code_fetch); a platform
// without them (the host) pays layer_cycles and tile_cycles only.
//
// [sim:code_cost] the loop_cost constants are measured by bench/runtime/code_cost.py from
// bench/runtime's rv32imc executables (GCC 12, -O2, CIFAR-10 and MobileNet-v1 1.0-128) under
// the tests' cluster timing model (tests/cross/cluster_timing.py): per layer the code bytes
// touched (the probe's distinct 16-byte lines), the L0 misses, and the L2 data accesses (the
// cycles saved by placing the read-only data in L1, / 14); a least-squares line over the
// layers of a kind against their tile counts gives the per-layer and per-tile figures, the
// code bytes are the median. Simulated, not measured on a cluster. The CTest
// bench.tile_overhead.constants re-measures them and fails when one is off by more than 10%
// (or 16); after a change to the loop nests run bench/runtime/code_cost.sh (builds the
// rolled and unrolled variants, measures, compares) and paste its table here (bench/README.md,
// "Code bytes in the cost model").
struct loop_cost {
  int code_bytes = 0;       ///< the loop nest's code touched per layer
  int tile_path_bytes = 0;  ///< per tile, code bytes that miss the 512 B private cache
  int layer_l2_reads = 0;   ///< per layer, data accesses to tables in L2
  int tile_l2_reads = 0;    ///< per tile, data accesses to tables in L2
  int layer_cycles = 0;     ///< per layer besides the above
  int tile_cycles = 0;      ///< per tile besides the above and the fork
  /// per tile more when the layer is cut in more than one row or column tile: the nest's
  /// spatial path (each tile's geometry, input command and arguments), against the channel
  /// path of a layer whose every tile is a channel tile of its own
  int spatial_tile_cycles = 0;
};
// Measured on the _rolled and _unrolled variants of CIFAR-10, MobileNet-v1 1.0-128 and the
// residual network (bench/runtime/code_cost.sh). Fields: code_bytes, tile_path_bytes,
// layer_l2_reads, tile_l2_reads, layer_cycles, tile_cycles, spatial_tile_cycles.
inline constexpr loop_cost loop_cost_conv{1776, 297, 1, 0, 198, 149, 26};
inline constexpr loop_cost loop_cost_depthwise{2144, 501, 1, 0, 323, 212, 0};
inline constexpr loop_cost loop_cost_linear{1352, 455, 1, 0, 353, 145, 0};
inline constexpr loop_cost loop_cost_pool{1328, 45, 1, 0, 0, 313, 0};

static_assert(loop_cost_conv.spatial_tile_cycles >= 0 &&
                  loop_cost_depthwise.spatial_tile_cycles >= 0 &&
                  loop_cost_linear.spatial_tile_cycles >= 0 &&
                  loop_cost_pool.spatial_tile_cycles >= 0,
              "A spatial tile costs no less than a channel tile: the search's bounds take the "
              "channel tile's cost.");

/// The measured terms of a layer kind's loop nest (an add runs the pools' loop).
constexpr const loop_cost& loop_cost_of(op k) {
  switch (k) {
    case op::conv:
      return loop_cost_conv;
    case op::depthwise:
      return loop_cost_depthwise;
    case op::linear:
      return loop_cost_linear;
    default:
      return loop_cost_pool;
  }
}

/// [measured outside] pi_cl_team_fork's dispatch and the closing barrier, per fork (one per
/// tile): 7,824 cycles for CIFAR-10's 49 forks on GVSoC's 8-core pulp-open (DESIGN.md
/// section 7).
inline constexpr int fork_barrier = 160;
/// [estimate] the code of a tile's kernel, which evicts the loop nest's lines from the shared
/// instruction cache (with empty kernels: 0).
inline constexpr int kernel_code_bytes = 2048;

/// Core 0's cycles per tile outside the kernel on platform `p` for a loop nest with terms `c`,
/// when the tile's kernel runs `kernel_code` bytes of code; `spatial`: the layer is cut in
/// more than one row or column tile (loop_cost::spatial_tile_cycles).
constexpr std::int64_t loop_tile_cycles(const platform& p, const loop_cost& c,
                                        int kernel_code = kernel_code_bytes, bool spatial = false) {
  std::int64_t t =
      std::int64_t{c.tile_cycles} + (spatial ? c.spatial_tile_cycles : 0) + fork_barrier;
  if (p.icache_private_bytes > 0 && p.icache_line_bytes > 0) {
    // The path misses L0 (tile_path_bytes counts the bytes beyond it); of those, what the
    // kernel's code pushes out of the shared cache comes from L2.
    std::int64_t evicted = std::int64_t{kernel_code} + c.code_bytes - p.icache_shared_bytes;
    evicted = evicted < 0 ? 0 : evicted > c.tile_path_bytes ? c.tile_path_bytes : evicted;
    t += (c.tile_path_bytes - evicted) / p.icache_line_bytes * p.icache_shared_refill +
         evicted / p.icache_line_bytes * p.icache_l2_refill;
  }
  if (!p.tables_in_l1) t += std::int64_t{c.tile_l2_reads} * p.l2_data_cycles;
  return t;
}

/// Core 0's cycles per layer outside its tiles on platform `p` for a loop nest with terms `c`:
/// `warm` when the same loop nest ran in the previous layer and stays cached (see
/// loop_stays_cached).
constexpr std::int64_t loop_layer_cycles(const platform& p, const loop_cost& c, bool warm = false) {
  std::int64_t t = c.layer_cycles;
  if (!warm && p.icache_line_bytes > 0)
    t += std::int64_t{c.code_bytes} / p.icache_line_bytes * p.icache_l2_refill;
  if (!p.tables_in_l1) t += std::int64_t{c.layer_l2_reads} * p.l2_data_cycles;
  return t;
}

/// The same for the measured nest of a layer kind.
constexpr std::int64_t loop_tile_cycles(const platform& p, op k,
                                        int kernel_code = kernel_code_bytes, bool spatial = false) {
  return loop_tile_cycles(p, loop_cost_of(k), kernel_code, spatial);
}
constexpr std::int64_t loop_layer_cycles(const platform& p, op k, bool warm = false) {
  return loop_layer_cycles(p, loop_cost_of(k), warm);
}

/// Whether a layer whose loop nest (terms `c`) is the previous layer's finds it cached: the
/// nest and the kernel's code fit the shared cache.
constexpr bool loop_stays_cached(const platform& p, const loop_cost& c,
                                 int kernel_code = kernel_code_bytes) {
  return c.code_bytes + kernel_code <= p.icache_shared_bytes;
}

/// Core 0's cycles outside the kernels on a layer of kind `k` cut into `tiles` tiles
/// (`spatial`: more than one row or column tile).
constexpr std::int64_t loop_overhead(const platform& p, op k, std::int64_t tiles, bool warm = false,
                                     int kernel_code = kernel_code_bytes, bool spatial = false) {
  return loop_layer_cycles(p, k, warm) + tiles * loop_tile_cycles(p, k, kernel_code, spatial);
}

/// The unrolled loop nest (the executor unrolls a layer that runs whole in few tiles: every
/// tile's geometry, commands and arguments folded to constants): its code bytes and its cycles
/// besides the cold code and the fork, per run and per tile, over every kind. [sim:code_cost]
struct unrolled_cost {
  int run_bytes = 0;
  int tile_bytes = 0;
  int run_cycles = 0;
  int tile_cycles = 0;
};
// Fields: run_bytes, tile_bytes, run_cycles, tile_cycles (bench/runtime/code_cost.sh).
inline constexpr unrolled_cost loop_cost_unrolled{872, 175, 316, 128};

/// The platform whose code fetch the executor's unroll decision weighs code bytes with: the
/// loop nests are the same code on every target, written for the cluster (gap8's figures are
/// pulp-open's instruction caches, with the tables in L2).
inline constexpr platform unroll_target = gap8;

/// Core 0's cycles saved per inference by unrolling a layer of kind `k` in `tiles` tiles on
/// platform `p` (negative: unrolling costs more): the rolled nest's loop_overhead against the
/// unrolled code, all of it fetched cold once, both without the fork (the same for either).
constexpr std::int64_t unroll_saving(const platform& p, op k, std::int64_t tiles,
                                     int kernel_code = kernel_code_bytes, bool spatial = false) {
  const unrolled_cost& u = loop_cost_unrolled;
  std::int64_t unrolled = u.run_cycles + tiles * u.tile_cycles;
  if (p.icache_line_bytes > 0)
    unrolled += (u.run_bytes + tiles * u.tile_bytes) / p.icache_line_bytes * p.icache_l2_refill;
  return loop_overhead(p, k, tiles, false, kernel_code, spatial) - tiles * fork_barrier - unrolled;
}

/// A core's cycles on an r x w x c block, as coefficients of the block's extents:
/// r * ((w / 2) * pair + (w % 2) * single + w * per_px) + stripe * in_r * in_w + call (with
/// quads: (w / 4) * quad + (w % 4 / 2) * pair instead of the pairs),
/// where in_r, in_w are the input extents of the block. Depends on c only, so the search
/// computes it once per channel tile.
struct core_coefs {
  std::int64_t quad = 0;    ///< per 4 output pixels in a row (0: the kernel goes by pairs)
  std::int64_t pair = 0;    ///< per pair of output pixels in a row
  std::int64_t single = 0;  ///< per leftover pixel of an odd row
  std::int64_t per_px = 0;  ///< per output pixel
  std::int64_t stripe = 0;  ///< per input pixel (depthwise re-layout)
};

/// The kernel terms of a layer whose tiles run the wide kernels: all per output (the wide
/// kernels compute one output at a time, any split), q per output of a core's block.
constexpr kernel_terms wide_terms_for(const tiling_problem& P) {
  kernel_terms k;
  const std::int64_t taps = std::int64_t{P.kernel.h} * P.kernel.w;
  switch (P.kind) {
    case op::conv:
      k.q = taps * P.Cin * wide_conv_per_mac +
            (P.dilation.w == 1 ? P.kernel.h : taps) * wide_conv_per_row + wide_conv_per_output;
      break;
    case op::depthwise:
      k.q = taps * wide_dw_per_tap + wide_dw_per_output;
      break;
    case op::linear:
      k.q = std::int64_t{P.Hin} * P.Win * P.Cin * wide_linear_per_mac + wide_linear_per_output;
      break;
    case op::maxpool:
      k.q = taps * wide_pool_per_tap + wide_maxpool_per_output;
      break;
    case op::avgpool:
      k.q = taps * wide_pool_per_tap + wide_avgpool_per_output;
      break;
    case op::add:
      k.q = wide_add_per_element;
      break;
    default:
      break;
  }
  return k;
}

/// The kernel terms of a layer (see kernel_terms): the constants above, per kind.
constexpr kernel_terms terms_for(const tiling_problem& P) {
  using plan_detail::ceil_div;
  if (wide_operands(P)) return wide_terms_for(P);
  kernel_terms k;
  switch (P.kind) {
    case op::conv: {
      const std::int64_t k4 = ceil_div(P.kernel.h * P.kernel.w * P.Cin, 4);
      const bool pointwise =
          P.kernel.h == 1 && P.kernel.w == 1 && P.stride.h == 1 && P.stride.w == 1;
      const std::int64_t im2col =
          pointwise ? 0
                    : P.kernel.h * (im2col_per_row + std::int64_t{im2col_per_word} *
                                                         ceil_div(P.kernel.w * P.Cin, 4));
      k.p0 = 2 * im2col;
      k.p4 = k4 * matmul_4x2_per_k4 + matmul_block_setup;
      if (pointwise && P.Cin >= 12) {
        // 4 pixels at a time (the kernel does so from 8 input channels, rows of 2 words, but
        // there this term would be 0, which reads as "no quads": modeled as pairs); leftover
        // channels as two pairs' (conv_quads). The 16 outputs' requantization is counted here:
        // per_px counts requant_per_output for every output, so the block takes back the
        // difference.
        k.u4 = k4 * matmul_4x4_per_k4 + matmul_quad_setup +
               16 * (quad_requant_per_output - requant_per_output);
        k.u1 = 2 * (k4 * matmul_1x2_per_k4 + matmul_small_setup);
      }
      k.p1 = k4 * matmul_1x2_per_k4 + matmul_small_setup;
      k.s0 = im2col;
      k.s4 = k4 * matmul_4x1_per_k4 + matmul_block_setup;
      k.s1 = k4 * matmul_1x1_per_k4 + matmul_small_setup;
      k.q = requant_per_output;
      break;
    }
    case op::depthwise:
      k.q = std::int64_t{P.kernel.h} * ceil_div(P.kernel.w, 4) * dw_per_k4 + dw_per_output;
      k.t = dw_transpose_per_byte;
      break;
    case op::linear:
      // Outputs in blocks of 4 (the 4x1 loop over the whole input), a leftover block counted
      // as a full one.
      k.q4 =
          ceil_div(P.Hin * P.Win * P.Cin, 4) * std::int64_t{matmul_4x1_per_k4} + matmul_block_setup;
      k.q = linear_per_output;
      break;
    case op::maxpool:
      k.q4 = std::int64_t{P.kernel.h} * P.kernel.w * maxpool_per_tap4 + maxpool_per_output4;
      break;
    case op::avgpool:
      k.q = std::int64_t{P.kernel.h} * P.kernel.w * avgpool_per_tap + avgpool_per_output;
      break;
    case op::add:
      k.q = add_per_element;
      break;
    default:
      break;
  }
  return k;
}

/// A core's cost coefficients for c output channels.
constexpr core_coefs coefs_for(const tiling_problem& P, int c) {
  core_coefs k;
  if (c <= 0) return k;
  const kernel_terms& t = P.terms;
  const std::int64_t c4 = c / 4, cl = c % 4;
  if (t.u4 != 0) k.quad = t.u0 + t.u4 * c4 + t.u1 * cl;
  k.pair = t.p0 + t.p4 * c4 + t.p1 * cl;
  k.single = t.s0 + t.s4 * c4 + t.s1 * cl;
  k.per_px = t.q * c + t.q4 * ((c + 3) / 4);
  k.stripe = t.t * c;
  return k;
}

/// The cycles of one output row of w pixels (w >= 0): quads (when the kernel has them), pairs,
/// an odd last pixel, and the per-pixel terms.
constexpr std::int64_t row_cycles(const core_coefs& k, std::int64_t w) {
  const std::int64_t pairs =
      k.quad != 0 ? (w / 4) * k.quad + (w % 4 / 2) * k.pair : (w / 2) * k.pair;
  return pairs + (w % 2) * k.single + w * k.per_px;
}

constexpr std::int64_t core_cycles(const tiling_problem& P, const core_coefs& k, int r, int w) {
  if (r <= 0 || w <= 0) return 0;
  std::int64_t t = std::int64_t{r} * row_cycles(k, w);
  if (k.stripe != 0)
    t += k.stripe * ((r - 1) * P.stride.h + P.window.h) * ((w - 1) * P.stride.w + P.window.w);
  return t + kernel_call;
}

/// Cycles of one core computing an r x w x c block of outputs of layer P.
constexpr std::int64_t core_cycles(const tiling_problem& P, int r, int w, int c) {
  if (c <= 0) return 0;
  return core_cycles(P, coefs_for(P, c), r, w);
}

/// A lower bound on the whole layer's compute cycles under any tiling and split: the
/// per-output work that no tiling avoids, spread evenly over the cores.
constexpr std::int64_t compute_lower_bound(const tiling_problem& P) {
  using plan_detail::ceil_div;
  const std::int64_t outs = std::int64_t{P.H} * P.W * P.C;
  // The wide kernels: every output costs its q (wide_terms_for).
  if (wide_operands(P)) return outs * P.terms.q / P.cores;
  std::int64_t t = 0;
  switch (P.kind) {
    case op::conv: {
      // Every output pixel is im2col'ed by at least one core.
      const bool pointwise =
          P.kernel.h == 1 && P.kernel.w == 1 && P.stride.h == 1 && P.stride.w == 1;
      const std::int64_t im2col =
          pointwise ? 0
                    : P.kernel.h * (im2col_per_row + std::int64_t{im2col_per_word} *
                                                         ceil_div(P.kernel.w * P.Cin, 4));
      // Quads requantize for less per output (quad_requant_per_output).
      const bool quads = pointwise && P.Cin >= 12;
      t = (pointwise ? P.macs * matmul_4x4_per_k4 / 64 : P.macs * matmul_4x2_per_k4 / 32) +
          outs * (quads ? quad_requant_per_output : requant_per_output) +
          std::int64_t{P.H} * P.W * im2col;
      break;
    }
    case op::depthwise:
      // A core's input stripe has at least as many bytes as its outputs.
      t = outs * (std::int64_t{P.kernel.h} * ceil_div(P.kernel.w, 4) * dw_per_k4 + dw_per_output +
                  dw_transpose_per_byte);
      break;
    case op::linear:
      t = outs * linear_per_output +
          outs / 4 *
              (ceil_div(P.Hin * P.Win * P.Cin, 4) * std::int64_t{matmul_4x1_per_k4} +
               matmul_block_setup);
      break;
    case op::maxpool:
      t = outs / 4 *
          (std::int64_t{P.kernel.h} * P.kernel.w * maxpool_per_tap4 + maxpool_per_output4);
      break;
    case op::avgpool:
      t = outs * (std::int64_t{P.kernel.h} * P.kernel.w * avgpool_per_tap + avgpool_per_output);
      break;
    case op::add:
      t = outs * add_per_element;
      break;
    default:
      break;
  }
  return t / P.cores;
}

/// The slowest core's cycles on a th x tw x tc tile under `s` (cores take contiguous bands of
/// ceil(n / parts) items, as ctile::band_of hands them out, so core 0 has the most work).
constexpr std::int64_t tile_compute(const tiling_problem& P, core_split s, int th, int tw, int tc) {
  using plan_detail::ceil_div;
  switch (s.kind) {
    case split_kind::rows:
      return core_cycles(P, ceil_div(th, P.cores), tw, tc);
    case split_kind::cols:
      return core_cycles(P, th, ceil_div(tw, P.cores), tc);
    case split_kind::channels:
      return core_cycles(P, th, tw, ceil_div(tc, P.cores));
    case split_kind::grid:
      return core_cycles(P, ceil_div(th, s.v), tw, ceil_div(tc, s.k));
  }
  return 0;
}

/// The splits a kernel of this kind supports, the kind's default first (it wins ties), then
/// the others; grids V x K = cores ordered by more filter groups first.
struct split_list {
  core_split item[8]{};
  int n = 0;
};
constexpr split_list splits_for(const tiling_problem& P) {
  split_list l;
  auto push = [&](core_split s) { l.item[l.n++] = s; };
  switch (P.kind) {
    case op::linear:
      push({split_kind::channels, 1, 1});
      return l;
    case op::depthwise:
      push({split_kind::channels, 1, 1});
      push({split_kind::rows, 1, 1});
      push({split_kind::cols, 1, 1});
      break;
    case op::conv:
      push({split_kind::rows, 1, 1});
      push({split_kind::channels, 1, 1});
      push({split_kind::cols, 1, 1});
      break;
    default:
      push({split_kind::rows, 1, 1});
      push({split_kind::channels, 1, 1});
      push({split_kind::cols, 1, 1});
      return l;
  }
  for (int k = P.cores / 2; k >= 2 && l.n < 8; --k)
    if (P.cores % k == 0 && P.cores / k >= 2) push({split_kind::grid, P.cores / k, k});
  if (P.cores < P.cluster_cores) {
    // On fewer cores than the cluster has, every split is a grid of the working cores (the
    // kernels leave cores beyond v x k idle): rows become n x 1, channels 1 x n; columns have
    // no grid form.
    split_list g;
    for (int i = 0; i < l.n; ++i) {
      const core_split s = l.item[i];
      if (s.kind == split_kind::rows) g.item[g.n++] = {split_kind::grid, P.cores, 1};
      if (s.kind == split_kind::channels) g.item[g.n++] = {split_kind::grid, 1, P.cores};
      if (s.kind == split_kind::grid) g.item[g.n++] = s;
    }
    return g;
  }
  return l;
}
/// The default split of a kind (what PULP-NN does): rows, channels for depthwise and linear.
constexpr core_split default_split(const tiling_problem& P) {
  return splits_for(P).item[0];
}

/// Cycles of one DMA transfer of `bytes` in `cmds` commands.
constexpr std::int64_t dma_cycles(const tiling_problem& P, std::int64_t bytes, std::int64_t cmds) {
  if (bytes <= 0) return 0;
  return cmds * P.dma_latency + plan_detail::ceil_div64(bytes * 1000, P.dma_bytes_per_kcycle);
}

/// DMA commands moving a rows x cols x ch block of an HWC tensor whose rows are `full_cols`
/// wide with `full_ch` channels, each command within the platform's limits: contiguous
/// blocks in pieces of the command limit, 2-D transfers of whole lines otherwise, one 2-D
/// transfer per row when the channels are cut.
constexpr std::int64_t activation_cmds(const tiling_problem& P, int rows, int cols, int ch,
                                       int full_cols, int full_ch) {
  if (rows <= 0 || cols <= 0 || ch <= 0) return 0;
  const int lim = P.dma_limit;
  const int line_lim = lim < P.dma_line_max ? lim : P.dma_line_max;
  if (ch == full_ch) {
    const int line = cols * ch;
    if (cols == full_cols) return (std::int64_t{rows} * line + lim - 1) / lim;
    const int per_line = (line + line_lim - 1) / line_lim;
    if (per_line > 1) return std::int64_t{rows} * per_line;
    const int lines = lim / line > 1 ? lim / line : 1;
    return (rows + lines - 1) / lines;
  }
  const int per_cmd = line_lim / ch > 1 ? line_lim / ch : 1;
  return std::int64_t{rows} * ((cols + per_cmd - 1) / per_cmd);
}

/// Cycles of the weights (and per-channel parameters) of a tc-channel slice.
constexpr std::int64_t weight_dma(const tiling_problem& P, int tc) {
  const std::int64_t w = std::int64_t{tc} * P.weights_per_channel;
  const std::int64_t kl = std::int64_t{tc} * P.params_per_channel;
  const std::int64_t cmds = plan_detail::ceil_div64(w, P.dma_limit) + (kl > 0 ? 1 : 0);
  return dma_cycles(P, w + kl, cmds);
}

/// Cycles of the input transfer of an output tile th x tw x tc.
constexpr std::int64_t input_dma(const tiling_problem& P, int th, int tw, int tc) {
  if (P.linear) {
    const std::int64_t b = std::int64_t{P.Hin} * P.Win * P.Cin * P.in_bpe;
    return ((b + P.dma_limit - 1) / P.dma_limit) * P.dma_latency +
           (b * 1000 + P.dma_bytes_per_kcycle - 1) / P.dma_bytes_per_kcycle;
  }
  int ih = (th - 1) * P.stride.h + P.window.h;
  if (ih > P.Hin) ih = P.Hin;
  int iw = (tw - 1) * P.stride.w + P.window.w;
  if (iw > P.Win) iw = P.Win;
  const int ic = P.channels_follow_input ? tc : P.Cin;
  // Bytes at the input's element width (an add's two inputs both counted at the wider one's).
  const std::int64_t b = std::int64_t{ih} * iw * ic * P.inputs * P.in_bpe;
  return P.inputs * activation_cmds(P, ih, iw * P.in_bpe, ic, P.Win * P.in_bpe, P.Cin) *
             P.dma_latency +
         (b * 1000 + P.dma_bytes_per_kcycle - 1) / P.dma_bytes_per_kcycle;
}

/// Cycles of the output transfer of a tile.
constexpr std::int64_t output_dma(const tiling_problem& P, int th, int tw, int tc) {
  const std::int64_t b = std::int64_t{th} * tw * tc * P.out_bpe;
  return activation_cmds(P, th, tw * P.out_bpe, tc, P.W * P.out_bpe, P.C) * P.dma_latency +
         (b * 1000 + P.dma_bytes_per_kcycle - 1) / P.dma_bytes_per_kcycle;
}

/// Lower bound of a layer's cycles over every tiling with `tiles` tiles: compute or the
/// unavoidable output and weight traffic, plus the fixed cost of each tile.
constexpr std::int64_t lower_bound(const tiling_problem& P, std::int64_t tiles) {
  const std::int64_t out = std::int64_t{P.H} * P.W * P.C * P.out_bpe;
  const std::int64_t w = std::int64_t{P.C} * (P.weights_per_channel + P.params_per_channel);
  const std::int64_t dma = (out + w) * 1000 / P.dma_bytes_per_kcycle;
  const std::int64_t comp = compute_lower_bound(P);
  return (comp > dma ? comp : dma) + tiles * P.tile_overhead;
}

/// What the evaluation of a tiling needs that depends on the channel tile only.
struct channel_context {
  int tc = 1, lc = 1, nc = 1;
  split_list splits{};
  core_coefs coef[8][2]{};  ///< per split, for the inner and the last channel tile
  std::int64_t wd_inner = 0, wd_last = 0;
};
constexpr channel_context channel_context_for(const tiling_problem& P, const split_list& splits,
                                              int tc) {
  using plan_detail::ceil_div;
  channel_context x;
  x.tc = tc;
  x.nc = ceil_div(P.C, tc);
  x.lc = P.C - (x.nc - 1) * tc;
  x.splits = splits;
  for (int i = 0; i < splits.n; ++i) {
    const core_split s = splits.item[i];
    for (int j = 0; j < 2; ++j) {
      const int c = j == 0 ? tc : x.lc;
      const int cc = s.kind == split_kind::channels ? ceil_div(c, P.cores)
                     : s.kind == split_kind::grid   ? ceil_div(c, s.k)
                                                    : c;
      x.coef[i][j] = coefs_for(P, cc);
    }
  }
  x.wd_inner = P.weights_per_channel > 0 ? weight_dma(P, tc) : 0;
  x.wd_last = P.weights_per_channel > 0 ? weight_dma(P, x.lc) : 0;
  return x;
}

/// What depends on the row tile too: each split's rows per core for inner and last row tiles.
struct row_context {
  int th = 1, lh = 1, nh = 1;
  int r[8][2]{};
};
constexpr row_context row_context_for(const tiling_problem& P, const channel_context& cx, int th) {
  using plan_detail::ceil_div;
  row_context x;
  x.th = th;
  x.nh = ceil_div(P.H, th);
  x.lh = P.H - (x.nh - 1) * th;
  for (int i = 0; i < cx.splits.n; ++i) {
    const core_split s = cx.splits.item[i];
    for (int j = 0; j < 2; ++j) {
      const int h = j == 0 ? th : x.lh;
      x.r[i][j] = s.kind == split_kind::rows   ? ceil_div(h, P.cores)
                  : s.kind == split_kind::grid ? ceil_div(h, s.v)
                                               : h;
    }
  }
  return x;
}

/// The least total input-stripe width of `cols` output columns of a core summed over a row
/// of tiles: whole-row tiles have exactly (cols - 1) * s + k; otherwise each tile's
/// (w - 1) * s + k >= w * min(s, k).
constexpr std::int64_t stripe_cols(const tiling_problem& P, std::int64_t cols) {
  if (cols <= 0) return 0;
  if (P.whole_rows) return (cols - 1) * P.stride.w + P.window.w;
  return cols * (P.stride.w < P.window.w ? P.stride.w : P.window.w);
}
/// The same for rows summed over a column of tiles (at least one tile).
constexpr std::int64_t stripe_rows(const tiling_problem& P, std::int64_t rows) {
  if (rows <= 0) return 0;
  if (P.window.h >= P.stride.h) return (rows - 1) * P.stride.h + P.window.h;
  return rows * P.window.h;
}

/// A lower bound split in parts: compute (without the per-tile kernel call), traffic that the
/// loop overlaps with compute, and the prologue and epilogue it does not. A tiling with `tiles`
/// tiles costs at least max(compute + tiles * kernel_call, overlapped) + exposed +
/// tiles * per_tile (the problem's tile_overhead, the lesser of its two per-tile costs).
struct bound_parts {
  std::int64_t compute = 0;
  std::int64_t overlapped = 0;
  std::int64_t exposed = 0;
  std::int64_t per_tile = 0;
  [[nodiscard]] constexpr std::int64_t at(std::int64_t tiles) const {
    const std::int64_t c = compute + tiles * kernel_call;
    return (c > overlapped ? c : overlapped) + exposed + tiles * per_tile;
  }
};

/// The traffic parts of the bound for a channel tile and, if th > 0, a row tile: the first
/// channel tile's weights and the first tile's input are loaded before the loop starts, the
/// last tile's output is stored after it; all other outputs and weights pass during the loop.
constexpr void traffic_bound(const tiling_problem& P, int tc, int th, bound_parts& b) {
  const int nc = (P.C + tc - 1) / tc;
  const int lc = P.C - (nc - 1) * tc;
  const int c_first = nc > 1 ? tc : lc;
  const std::int64_t per_ch = P.weights_per_channel + P.params_per_channel;
  const std::int64_t bw = P.dma_bytes_per_kcycle;
  std::int64_t in_b = 0;
  if (P.linear) {
    in_b = std::int64_t{P.Hin} * P.Win * P.Cin * P.in_bpe;
  } else {
    int rows = th > 0 ? (th - 1) * P.stride.h + P.window.h : P.window.h;
    if (rows > P.Hin) rows = P.Hin;
    int cols = P.whole_rows ? P.Win : P.window.w;
    if (cols > P.Win) cols = P.Win;
    in_b = std::int64_t{rows} * cols * (P.channels_follow_input ? c_first : P.Cin) * P.inputs *
           P.in_bpe;
  }
  const int last_rows = th > 0 ? P.H - ((P.H + th - 1) / th - 1) * th : 1;
  const std::int64_t out_b = std::int64_t{last_rows} * (P.whole_rows ? P.W : 1) * lc * P.out_bpe;
  b.per_tile = P.tile_overhead;
  b.exposed = (P.weights_per_channel > 0 ? weight_dma(P, c_first) : 0) + in_b * 1000 / bw +
              out_b * 1000 / bw;
  const std::int64_t out = std::int64_t{P.H} * P.W * P.C * P.out_bpe;
  b.overlapped = (out + std::int64_t{P.C - c_first} * per_ch) * 1000 / bw;
}

/// The bound over every column tiling, for a channel and a row tile: each split's compute
/// summed over whole rows (the cheapest split), and the traffic parts.
constexpr bound_parts row_lower_bound(const tiling_problem& P, const channel_context& cx,
                                      const row_context& rx) {
  using plan_detail::ceil_div;
  std::int64_t best = INT64_MAX;
  for (int i = 0; i < cx.splits.n; ++i) {
    const std::int64_t cols =
        cx.splits.item[i].kind == split_kind::cols ? ceil_div(P.W, P.cores) : P.W;
    std::int64_t t = 0;
    for (int cj = 0; cj < 2; ++cj) {
      const int cnt_c = cj == 0 ? cx.nc - 1 : 1;
      if (cnt_c == 0) continue;
      for (int hj = 0; hj < 2; ++hj) {
        const int cnt_h = hj == 0 ? rx.nh - 1 : 1;
        if (cnt_h == 0) continue;
        // Per row band of r rows: pixels at half a pair or more, plus the input stripe, whose
        // width over the whole row is at least stripe_cols.
        // With quads, a pixel costs at least a quarter of a quad.
        const core_coefs& k = cx.coef[i][cj];
        const std::int64_t px2 = k.quad != 0 && k.quad < 2 * k.pair ? k.quad / 2 : k.pair;
        const std::int64_t r = rx.r[i][hj];
        const std::int64_t in_r = r > 0 ? (r - 1) * P.stride.h + P.window.h : 0;
        t += std::int64_t{cnt_c} * cnt_h *
             (cols * r * (px2 + 2 * k.per_px) / 2 + k.stripe * in_r * stripe_cols(P, cols));
      }
    }
    if (t < best) best = t;
  }
  bound_parts b;
  b.compute = best;
  traffic_bound(P, cx.tc, rx.th, b);
  return b;
}

/// A lower bound of the layer's cycles over every row and column tiling, for a channel tile:
/// each split's compute summed over whole output planes (input stripes counted at
/// min(s, k) input pixels per output), the cheapest split; or all output and weight traffic;
/// plus `tiles` tiles. Flat arithmetic: the search calls it for every channel tile.
constexpr std::int64_t channel_lower_bound(const tiling_problem& P, const split_list& splits,
                                           int tc, std::int64_t tiles) {
  const int nc = (P.C + tc - 1) / tc;
  const int lc = P.C - (nc - 1) * tc;
  const kernel_terms& k = P.terms;
  std::int64_t best = INT64_MAX;
  for (int i = 0; i < splits.n; ++i) {
    const core_split s = splits.item[i];
    const std::int64_t cols = s.kind == split_kind::cols ? (P.W + P.cores - 1) / P.cores : P.W;
    const std::int64_t rows = s.kind == split_kind::rows   ? (P.H + P.cores - 1) / P.cores
                              : s.kind == split_kind::grid ? (P.H + s.v - 1) / s.v
                                                           : P.H;
    const int parts = s.kind == split_kind::channels ? P.cores
                      : s.kind == split_kind::grid   ? s.k
                                                     : 1;
    std::int64_t t = 0;
    for (int cj = 0; cj < 2; ++cj) {
      const int cnt_c = cj == 0 ? nc - 1 : 1;
      if (cnt_c == 0) continue;
      const std::int64_t c = ((cj == 0 ? tc : lc) + parts - 1) / parts;
      // Two pixels cost at least a pair or, with quads, half a quad.
      const std::int64_t pair = k.p0 + k.p4 * (c / 4) + k.p1 * (c % 4);
      const std::int64_t half_quad = (k.u0 + k.u4 * (c / 4) + k.u1 * (c % 4)) / 2;
      const std::int64_t per_px2 =
          (k.u4 != 0 && half_quad < pair ? half_quad : pair) + 2 * (k.q * c + k.q4 * ((c + 3) / 4));
      t += cnt_c *
           (rows * cols * per_px2 / 2 + k.t * c * stripe_rows(P, rows) * stripe_cols(P, cols));
    }
    if (t < best) best = t;
  }
  bound_parts b;
  b.compute = best;
  traffic_bound(P, tc, 0, b);
  return b.at(tiles);
}

/// [sim] core 0's cycles to program one more DMA command and wait for it: 83-113 measured on
/// four depthwise layers planned both ways under the tests' cluster timing model
/// (bench/README.md, "A channel tile's parameter commands").
inline constexpr int param_command_cycles = 100;

/// [sim] what core 0 saves per output command that an output group (plan/output_group.hpp)
/// makes unnecessary: the command's programming and its wait less the group's bookkeeping; 41
/// to 65 cycles a command measured on MobileNet-v1 1.0-128's pointwise layers 8 and 12 grouped
/// and not under the tests' cluster timing model (bench/README.md, "Output groups").
inline constexpr int output_command_cycles = 55;

/// Whether every channel tile's weights end on a word: `tc` channels a tile, the last tile's
/// `lc`, `wk` bytes each (the last K tile's of a linear layer cut in K). Only then can a tile's
/// per-channel parameters (32-bit words) follow its weights in one run of bytes, brought by
/// one command (schedule::tile_data_merged, the one rule of both the loops and the model).
constexpr bool channel_tiles_end_on_word(int tc, int lc, int wk) {
  return (std::int64_t{tc} * wk) % 4 == 0 && (std::int64_t{lc} * wk) % 4 == 0;
}

/// Core 0's cycles per channel tile for the parameter commands of a tiling whose constant data
/// are not one run of bytes: unless every channel tile's weights end on a word
/// (channel_tiles_end_on_word), each per-channel parameter array (bias, kappa, lambda) is a
/// command of its own, else one command brings them with the weights.
constexpr std::int64_t params_apart_cycles(const tiling_problem& P, int tc, int lc, int wk) {
  if (P.params_per_channel == 0 || P.weights_per_channel == 0) return 0;
  if (channel_tiles_end_on_word(tc, lc, wk)) return 0;
  return std::int64_t{P.params_per_channel / 4} * param_command_cycles;
}

/// Modeled cycles of the whole layer for a tiling, under each split of the context (written
/// to `out[i]`). The loop nest is channel tiles, then rows, then columns; with double
/// buffering a tile costs max(compute, DMA of the next input + previous output), and the last
/// spatial tile of a channel tile also brings the next channel tile's weights. Prologue: first
/// weights and input; epilogue: last output. Every tile adds `P.tile_overhead`, or
/// `P.tile_overhead_spatial` when the layer has more than one row or column tile; every
/// channel tile its parameter commands when they come apart (params_apart_cycles).
constexpr void layer_cycles_at(const tiling_problem& P, const channel_context& cx,
                               const row_context& rx, int tw, std::int64_t* out) {
  using plan_detail::ceil_div;
  const int nw = ceil_div(P.W, tw);
  const int lw = P.W - (nw - 1) * tw;
  const int nh = rx.nh, nc = cx.nc, th = rx.th, lh = rx.lh, tc = cx.tc, lc = cx.lc;
  const bool x_reloaded =
      !P.linear && (P.channels_follow_input ? nh > 1 || nw > 1 || nc > 1 : nh > 1 || nw > 1);
  const std::int64_t tiles = std::int64_t{nh} * nw * nc;
  const std::int64_t fixed = (nc > 1 ? cx.wd_inner : cx.wd_last) +
                             input_dma(P, nh > 1 ? th : lh, nw > 1 ? tw : lw, nc > 1 ? tc : lc) +
                             output_dma(P, lh, lw, lc) +
                             tiles * (nh * nw > 1 ? P.tile_overhead_spatial : P.tile_overhead) +
                             nc * params_apart_cycles(P, tc, lc, P.weights_per_channel);
  const int n = cx.splits.n;
  int wcols[8][2] = {};
  for (int i = 0; i < n; ++i) {
    out[i] = fixed;
    const bool by_cols = cx.splits.item[i].kind == split_kind::cols;
    wcols[i][0] = by_cols ? ceil_div(tw, P.cores) : tw;
    wcols[i][1] = by_cols ? ceil_div(lw, P.cores) : lw;
  }
  for (int ci = 0; ci < 2; ++ci) {
    const int cnt_c = ci == 0 ? nc - 1 : 1;
    if (cnt_c == 0) continue;
    const int c = ci == 0 ? tc : lc;
    for (int hi = 0; hi < 2; ++hi) {
      const int cnt_h = hi == 0 ? nh - 1 : 1;
      if (cnt_h == 0) continue;
      const int h = hi == 0 ? th : lh;
      for (int wi = 0; wi < 2; ++wi) {
        const int cnt_w = wi == 0 ? nw - 1 : 1;
        if (cnt_w == 0) continue;
        const int w = wi == 0 ? tw : lw;
        const std::int64_t xy = (x_reloaded ? input_dma(P, h, w, c) : 0) + output_dma(P, h, w, c);
        const bool last_spatial = hi == 1 && wi == 1;
        for (int i = 0; i < n; ++i) {
          // core_cycles(P, cx.coef[i][ci], r, wc), written out.
          const core_coefs& k = cx.coef[i][ci];
          const int r = rx.r[i][hi], wc = wcols[i][wi];
          std::int64_t comp = 0;
          if (r > 0 && wc > 0) {
            comp = std::int64_t{r} * row_cycles(k, wc) + kernel_call;
            if (k.stripe != 0)
              comp += k.stripe * ((r - 1) * P.stride.h + P.window.h) *
                      ((wc - 1) * P.stride.w + P.window.w);
          }
          const std::int64_t t0 = comp > xy ? comp : xy;
          if (!last_spatial) {
            out[i] += std::int64_t{cnt_c} * cnt_h * cnt_w * t0;
          } else if (ci == 0) {
            // Channel tiles 0 .. nc-2 load the next one's weights while finishing.
            const std::int64_t a = xy + cx.wd_inner, b = xy + cx.wd_last;
            out[i] += std::int64_t{nc - 2} * (comp > a ? comp : a) + (comp > b ? comp : b);
          } else {
            out[i] += t0;
          }
        }
      }
    }
  }
}

/// Modeled cycles of the whole layer for a tiling under each split of `splits`.
constexpr void layer_cycles_all(const tiling_problem& P, int tc, int th, int tw,
                                const split_list& splits, std::int64_t* out) {
  const channel_context cx = channel_context_for(P, splits, tc);
  const row_context rx = row_context_for(P, cx, th);
  layer_cycles_at(P, cx, rx, tw, out);
}

/// Modeled cycles of a linear layer whose reduction is cut in K tiles of `tk` bytes, with
/// `tc` output channels per tile (the cores split the channels). The loop runs the K tiles of
/// each channel tile in turn; every tile brings the next tile's weights (a 2-D transfer of tc
/// rows of tk bytes) and input slice (unless the input is whole in L1: linear_x_whole), the
/// last K tile of a channel tile also its per-channel parameters; an output buffer of g
/// channel tiles (linear_y_group) leaves once full, its transfer charged a g-th to each.
/// Double-buffered like layer_cycles_at: a tile costs max(compute, its transfers); prologue:
/// the input (slice) and the first weights; epilogue: the last output buffer; each tile adds
/// `P.tile_overhead`, each channel tile its parameter commands when they come apart
/// (params_apart_cycles of the last K tile).
constexpr std::int64_t linear_tiled_cycles(const tiling_problem& P, int tc, int tk) {
  using plan_detail::ceil_div;
  using plan_detail::ceil_div64;
  const int K = linear_k(P);
  const int nc = ceil_div(P.C, tc), lc = P.C - (nc - 1) * tc;
  const int nk = ceil_div(K, tk), lk = K - (nk - 1) * tk;
  const int line_lim = P.dma_limit < P.dma_line_max ? P.dma_limit : P.dma_line_max;
  const auto x_dma = [&](int k) {
    const std::int64_t b = std::int64_t{k} * P.in_bpe;
    return dma_cycles(P, b, ceil_div64(b, P.dma_limit));
  };
  const auto w_dma = [&](int c, int k) {
    const std::int64_t b = std::int64_t{c} * k;
    return dma_cycles(
        P, b, k <= line_lim ? ceil_div64(b, P.dma_limit) : std::int64_t{c} * ceil_div(k, line_lim));
  };
  const auto kl_dma = [&](int c) {
    return dma_cycles(P, std::int64_t{c} * P.params_per_channel, 1);
  };
  const auto comp = [&](int c, int k, bool last) {
    const std::int64_t cc = ceil_div(c, P.cores);
    if (wide_operands(P))
      return cc * (std::int64_t{k} * wide_linear_per_mac + wide_linear_partial_per_output +
                   (last ? wide_linear_per_output : 0)) +
             kernel_call;
    return ceil_div64(cc, 4) *
               (std::int64_t{ceil_div(k, 4)} * matmul_4x1_per_k4 + matmul_block_setup) +
           cc * (linear_partial_per_output + (last ? linear_per_output : 0)) + kernel_call;
  };
  const std::int64_t tiles = std::int64_t{nc} * nk;
  const int c0 = nc > 1 ? tc : lc;
  // A whole input is loaded once; a whole output leaves once, after the last tile.
  const bool x_whole = linear_x_whole(P, tk);
  const int g = linear_y_group(P, tc, tk);
  const int last_group = P.C - ((nc - 1) / g) * g * tc;  // channels of the last output buffer
  std::int64_t t = x_dma(x_whole ? K : tk) + w_dma(c0, tk) + output_dma(P, 1, 1, last_group) +
                   tiles * P.tile_overhead + nc * params_apart_cycles(P, tc, lc, lk);
  for (int ci = 0; ci < 2; ++ci) {
    const int cnt_c = ci == 0 ? nc - 1 : 1;
    if (cnt_c == 0) continue;
    const int c = ci == 0 ? tc : lc;
    for (int ki = 0; ki < 2; ++ki) {
      const int cnt_k = ki == 0 ? nk - 1 : 1;
      if (cnt_k == 0) continue;
      const int k = ki == 0 ? tk : lk;
      const std::int64_t a = comp(c, k, ki == 1);
      const std::int64_t b = (x_whole ? 0 : x_dma(k)) + w_dma(c, k) +
                             (ki == 1 ? kl_dma(c) + output_dma(P, 1, 1, c) / g : 0);
      t += std::int64_t{cnt_c} * cnt_k * (a > b ? a : b);
    }
  }
  return t;
}

/// Modeled cycles of a layer for one tiling and split (`tk`: a linear layer's K tile, 0 or
/// the whole reduction when it is not cut).
constexpr std::int64_t layer_cycles(const tiling_problem& P, int tc, int th, int tw, core_split s,
                                    int tk = 0) {
  if (P.linear && tk > 0 && tk < linear_k(P)) return linear_tiled_cycles(P, tc, tk);
  split_list one;
  one.item[0] = s;
  one.n = 1;
  std::int64_t r = 0;
  layer_cycles_all(P, tc, th, tw, one, &r);
  return r;
}

/// Modeled cycles of moving `bytes` between L3 and L2 in `transfers` transfers.
constexpr std::int64_t l3_cycles(const platform& p, std::int64_t bytes, std::int64_t transfers) {
  if (bytes <= 0) return 0;
  const int bw = p.l3_bytes_per_kcycle > 0 ? p.l3_bytes_per_kcycle : 1;
  return transfers * p.l3_latency_cycles + plan_detail::ceil_div64(bytes * 1000, bw);
}

}  // namespace ctile::cost

namespace ctile {

/// A layer's tiling problem on a platform: geometry, budgets and the cost model's terms.
constexpr tiling_problem make_problem(const layer& l, const platform& p) {
  tiling_problem t = make_problem_geometry(l, p);
  t.terms = cost::terms_for(t);
  t.tile_overhead = cost::loop_tile_cycles(p, t.kind);
  t.tile_overhead_spatial = cost::loop_tile_cycles(p, t.kind, cost::kernel_code_bytes, true);
  return t;
}

}  // namespace ctile
