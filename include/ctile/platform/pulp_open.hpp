// The open PULP cluster (pulp-open: 8 RI5CY-class cores with XpulpV2, 64 KiB TCDM at 0x10000000,
// mchan DMA, 512 KiB L2 at 0x1C000000) as programs built against pulp-runtime see it.
#pragma once

#include "ctile/hal/dma_limits.hpp"
#include "ctile/platform/platform.hpp"

/// Hot data in the cluster's L1. An object with static storage marked CTILE_L1_DATA goes to
/// section CTILE_L1_SECTION (".ctile.l1" unless the build defines it otherwise), which the
/// firmware's linker script maps to the cluster's L1 (for pulp-runtime:
/// examples/firmware/cluster/ctile_l1.ld, inserted after the runtime's own L1 data, before its
/// L1 heap). The requantization constants and the fork descriptor are read on every tile:
/// from L1 a load costs one cycle, from L2 about 15. Only
/// for mutable objects of namespace or class scope (a section holds writable data or read-only
/// data, not both; GCC ignores the attribute on variables of templates); the bytes
/// they take must come off the L1 the plan may use (`platform::with_l1`). A build without such
/// a script (the host, QEMU) names a section its linker already places with the data, e.g.
/// -DCTILE_L1_SECTION=\".data.ctile_l1\".
#ifndef CTILE_L1_SECTION
#define CTILE_L1_SECTION ".ctile.l1"
#endif
#define CTILE_L1_DATA [[gnu::section(CTILE_L1_SECTION)]]
/// The same in a section of its own (CTILE_L1_SECTION followed by `suffix`, e.g. ".fork"), for
/// inline variables: their COMDAT sections may not share a name with ordinary ones.
#define CTILE_L1_DATA_IN(suffix) [[gnu::section(CTILE_L1_SECTION suffix)]]

namespace ctile {

/// The cluster DMA (mchan v7) through pulp-runtime's plp_dma_memcpy / plp_dma_memcpy_2d: their
/// size, 2-D stride and 2-D length arguments are `unsigned short` (16 bits; the hardware's
/// length field has 17), so a command moves at most 65,535 B; planned commands are kept at a
/// multiple of four below that (65,532 B) so that split pieces stay word-aligned. 16 transfer
/// counters.
inline constexpr hal::dma_limits pulp_open_dma{.max_command_bytes = 65532,
                                               .length_field_max = 65535,
                                               .max_line_bytes = 65535,
                                               .max_stride = 65535,
                                               .counters = 16,
                                               .has_2d = true};

/// pulp-open under pulp-runtime:
/// - L1: the 64 KiB TCDM less 2 KiB for what the runtime keeps there (its L1 data sections, the
///   allocator, the fork descriptor); the cluster stacks come from the same L1 heap,
///   CLUSTER_STACK_SIZE for each of the 8 cores, core 0 included. The runtime's default (0x800)
///   is too small for the executor on core 0 (its deepest chain of frames, read off the machine
///   code at -Os by bench/stack: 2,704 B, checked with a 256 B margin by CTest
///   `bench.stack.rv32imc_Os.pulp_open`), so ctile's images build the runtime with
///   CLUSTER_STACK_SIZE=0xC00 and the platform counts 3 KiB a core; a build that changes it changes
///   `with_stacks` alike.
/// - L2: 512 KiB, of which 128 KiB are kept for code (the runtime's and the firmware's), the
///   runtime's data and the stacks of the fabric controller.
/// - L3: the HyperRAM on the SoC's uDMA HyperBus peripheral, through ctile's own driver
///   (include/ctile/hal/udma_hyper.hpp; pulp-runtime has none): 8 MiB, the S27KS0641 of
///   GVSoC's pulp-open board (gvsoc-pulp pulp/chips/pulp_open/pulp_open_board.py binds a
///   Hyperram on hyper0 chip select 0; devices/hyperbus/hyperram.py: size 0x00800000).
///   Bandwidth: GVSoC's HyperBus model (pulp/udma/hyper/udma_hyper_v3.cpp) moves one byte a
///   peripheral cycle with the clock divider at its reset value 0, and pulp_open.py clocks
///   the SoC and the cluster at 50 MHz each: 1,000 B per 1,000 cluster cycles. Latency per
///   transfer: the model's ~20 peripheral cycles of protocol (chip select, 6 command-address
///   bytes, 2 x 6 cycles of access latency, chip select off) plus the driver's five register
///   writes and a status poll from a cluster core through the SoC interconnect, taken as ~14
///   cycles each like a cluster access to L2 (DESIGN.md section 7): 100 cycles. Modeled from
///   the simulator's source, not measured.
/// - DMA: pulp_open_dma. Cluster clock ~50 MHz (GVSoC's default); the DMA cost figures are
///   GAP-8's, not yet measured on this cluster.
/// - Code fetch (with_code_fetch): GVSoC's pulp-open cluster configuration (gvsoc-pulp,
///   pulp/chips/pulp_open/cluster.json, "icache"): a private L0 of 8 sets x 4 ways x 16-byte
///   lines (512 B) per core and a shared cache of 2 banks x 32 sets x 4 ways x 16-byte lines
///   (4 KiB), +2 cycles an L0 miss that hits the shared cache (its refill latency); +18 cycles
///   a line refilled from L2 and +14 a data access to L2, both measured on GVSoC's pulp-open
///   (DESIGN.md section 7; the same figures as tests/cross/cluster_timing.py).
///   The cluster firmware keeps the requantization constants and the fork descriptor in L1
///   (.ctile.l1) and the executor's tables in L2, where its loop nests' reads of them cost
///   what the loop terms measure (tables_in_l1 false).
inline constexpr platform pulp_open = [] {
  platform p = platform{}
                   .named("pulp_open")
                   .with_cores(8)
                   .with_l1(64 * 1024 - 2 * 1024)
                   .with_stacks(3072, 3072)
                   .with_l2(512 * 1024)
                   .with_code_reserve(128 * 1024)
                   .with_l3(8 * 1024 * 1024);
  p.l3_bytes_per_kcycle = 1000;
  p.l3_latency_cycles = 100;
  p.dma_max_cmd_bytes = static_cast<int>(pulp_open_dma.length_field_max);
  p.dma_max_2d_line = static_cast<int>(pulp_open_dma.max_line_bytes);
  p.dma_max_2d_stride = static_cast<int>(pulp_open_dma.max_stride);
  p.dma_safe_max_bytes = static_cast<int>(pulp_open_dma.max_command_bytes);
  p.cluster_mhz = 50;
  return p.with_code_fetch(512, 4096, 16, 2, 18, 14);
}();

}  // namespace ctile
