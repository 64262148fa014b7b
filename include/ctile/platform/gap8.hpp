// GreenWaves GAP-8: 8-core cluster, 64 KiB L1, 512 KiB L2, 8 MiB HyperRAM.
#pragma once

#include "ctile/platform/platform.hpp"

namespace ctile {

/// GAP-8: 64,000 B of L1 (DORY's figure: the 64 KiB TCDM less what the runtime keeps), less the
/// stacks of the cluster's cores: 3,500 B for core 0, which runs the executor (its deepest
/// chain of frames, read off the machine code by bench/stack: 1.9-2.3 KB with GCC 12 and
/// clang-19 at -O2, -O3 and -Os), and 1,472 B for each of the 7 others, which run only the
/// kernels' fork bodies (deepest chain 0.90-1.20 KB; the stack is the deepest, GCC 12's -O3
/// build's, plus a 256 B margin for the runtime's own frames, rounded up to 64 B; CTest
/// `bench.stack.*` checks every build against both stacks) = 50,196 B for tiles. A firmware sets
/// the cluster task's stacks to these figures (PMSIS: `pi_cluster_task::stack_size =
/// gap8.l1_stack_master`, `slave_stack_size = gap8.l1_stack_worker`); one that keeps DORY's (3,400
/// B for each other core) plans with gap8_dory. 512 KiB L2 with a 96 KiB code reserve; 8 MiB
/// HyperRAM at ~200 MB/s; cluster DMA ~2 GB/s with ~80 ns latency at a 100 MHz cluster; DMA
/// commands limited to 65,535 B (2-D lines and strides to 32,767 B) and kept at 32 KiB. Code fetch:
/// GAP-8's cluster is a PULP cluster with a shared instruction cache; its geometry and latencies
/// are taken to be pulp-open's (pulp_open_code_fetch, not measured on GAP-8), with the code and the
/// executor's tables in L2 (no L1 section for them in a GAP-8 build).
inline constexpr platform gap8 =
    platform{}.named("gap8").with_stacks(3500, 1472).with_code_fetch(512, 4096, 16, 2, 18, 14);

/// GAP-8 as DORY budgets it: the same, with DORY's stacks (3,500 B for core 0, 3,400 B for each
/// of the 7 others) = 36,700 B for tiles. For comparisons with DORY's own figures, and for a
/// firmware that keeps DORY's cluster task settings.
inline constexpr platform gap8_dory = gap8.with_stacks(3500, 3400).named("gap8_dory");

/// A PULP cluster with 128 KiB of L1 (same stacks, L2 and DMA as GAP-8).
inline constexpr platform pulp_128k = gap8.with_l1(128 * 1024).named("pulp128k");

}  // namespace ctile
