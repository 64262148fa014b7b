// HALs over the open PULP runtime (pulp-platform/pulp-runtime) for the PULP cluster
// (pulp-open): the cluster DMA (mchan) through plp_dma_memcpy / plp_dma_memcpy_2d /
// plp_dma_wait, a team fork on top of the runtime's start of all cluster cores, barriers
// through the event unit, the core id, L1 from the runtime's allocator and the cycle counter.
//
// pulp.h does not compile as C++, and the runtime's DMA, event-unit and core-id calls are
// `static inline` functions of its C headers. So this header includes none of the runtime:
// it declares the runtime's few external functions itself (C linkage, the runtime's
// signatures) and reaches the inline ones through pulp_runtime_glue.c, a C file beside this
// header that the firmware compiles against the runtime's headers (one `ctile_prt_*` function
// per runtime call). Freestanding: no heap, no exceptions, no libc.
//
// DMA commands are pushed by one core only. The mchan helpers of pulp-runtime push a command
// as several words into one queue shared by every core (the `pulp` chip has no per-core
// queue), so pushes from two cores at once would interleave their words; ctile's executor
// issues and waits for every transfer on the fork's core 0, outside forks, and the kernels
// never touch the DMA. The runtime's commands broadcast their completion event to every core,
// so any core may wait for a command.
//
// L3: pulp-runtime has no HyperRAM driver; ctile's own, hal::udma_hyper_l3 (udma_hyper.hpp:
// the SoC's uDMA HyperBus peripheral, programmed from core 0 like the DMA), is the L3 of a
// plan that needs one. A build whose plan keeps everything in L2 may pass pulp_runtime_no_l3
// instead, and require_l2_only<E>() proves at compile time that it may.
#pragma once

#include <cstdint>

#include "cluster.hpp"
#include "ctile/platform/pulp_open.hpp"
#include "dma_engine.hpp"
#include "dma_limits.hpp"
#include "l3_memory.hpp"

// The runtime's external functions (pulp.h), with its signatures.
extern "C" {
void synch_barrier();
void* pi_l1_malloc(int cid, int size);
}

// pulp_runtime_glue.c: each wraps the one runtime call named in its comment.
extern "C" {
/// plp_dma_memcpy(ext, loc, size, ext2loc): returns the transfer's counter.
int ctile_prt_dma_memcpy(std::uint32_t ext, std::uint32_t loc, std::uint32_t size, int ext2loc);
/// plp_dma_memcpy_2d(ext, loc, size, stride, length, ext2loc): returns the counter.
int ctile_prt_dma_memcpy_2d(std::uint32_t ext, std::uint32_t loc, std::uint32_t size,
                            std::uint32_t stride, std::uint32_t length, int ext2loc);
/// plp_dma_wait(counter): waits for the transfer and frees its counter.
void ctile_prt_dma_wait(std::uint32_t counter);
/// hal_core_id()
std::uint32_t ctile_prt_core_id(void);
/// get_core_num(): the cluster's cores (ARCHI_CLUSTER_NB_PE).
int ctile_prt_cluster_cores(void);
/// eu_bar_setup(eu_bar_addr(1), mask): hardware barrier 1 for the cores of `mask`.
void ctile_prt_team_barrier_setup(std::uint32_t mask);
/// eu_bar_trig_wait_clr(eu_bar_addr(1))
void ctile_prt_team_barrier(void);
/// perf_start(); perf_reset(): every performance counter of this core counts from 0.
void ctile_prt_perf_start(void);
/// cpu_perf_get(CSR_PCER_CYCLES): this core's cycle counter.
std::uint32_t ctile_prt_cycles(void);
/// Runs `entry` on every core of cluster 0: cluster_start(0, entry) and cluster_wait(0) from
/// the fabric controller, or entry() itself where main already runs on the cluster cores.
int ctile_prt_cluster_run(int (*entry)(void));
}

namespace ctile::hal {

/// The cluster DMA through the runtime's mchan helpers. A handle is the transfer's counter
/// (one of the DMA's 16) until it is waited for; waiting twice on a handle waits once.
template <dma_limits L = pulp_open_dma>
class basic_pulp_runtime_dma {
  static_assert(L.length_field_max <= 65535 && L.max_line_bytes <= 65535 && L.max_stride <= 65535 &&
                    L.counters <= 16,
                "pulp-runtime's plp_dma_memcpy takes 16-bit sizes, 2-D lengths and strides, "
                "and the mchan has 16 counters: these limits promise more.");

 public:
  static constexpr dma_limits limits = L;
  struct handle {
    int counter = -1;
  };

  void copy_1d(dma_dir d, void* l1, void* l2, std::uint32_t bytes, handle& h) {
    h.counter = ctile_prt_dma_memcpy(addr(l2), addr(l1), bytes, ext2loc(d));
  }
  void copy_2d(dma_dir d, void* l1, void* l2, std::uint32_t bytes, std::uint32_t line_bytes,
               std::uint32_t l2_stride, handle& h) {
    h.counter =
        ctile_prt_dma_memcpy_2d(addr(l2), addr(l1), bytes, l2_stride, line_bytes, ext2loc(d));
  }
  void wait(handle& h) {
    if (h.counter < 0) return;
    ctile_prt_dma_wait(static_cast<std::uint32_t>(h.counter));
    h.counter = -1;
  }

 private:
  static std::uint32_t addr(const void* p) {
    return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(p));
  }
  /// PLP_DMA_EXT2LOC (1): external memory (L2) to cluster memory (L1); PLP_DMA_LOC2EXT (0).
  static constexpr int ext2loc(dma_dir d) { return d == dma_dir::l2_to_l1 ? 1 : 0; }
};
using pulp_runtime_dma = basic_pulp_runtime_dma<>;
static_assert(dma_engine<pulp_runtime_dma>);

/// What a fork publishes to the team (one per cluster, in memory every core reads: the
/// cluster's L1, CTILE_L1_DATA).
struct pulp_runtime_fork_descriptor {
  void (*fn)(const void*, int) = nullptr;  ///< nullptr: the program has ended
  const void* arg = nullptr;
  int team = 0;
};

/// The cluster's team. pulp-runtime starts every cluster core on one entry function (SPMD);
/// serve() turns that into fork/join: core 0 runs the program, the other cores sleep at the
/// cluster's hardware barrier until a fork publishes a body, run it, and meet core 0 at the
/// barrier again. fork() and cores() outside a fork belong to core 0.
class pulp_runtime_cluster {
 public:
  using fork_descriptor = pulp_runtime_fork_descriptor;

  /// The cluster entry, on every core: core 0 runs `program()` and returns its value; every
  /// other core serves forks until core 0's program returns, then returns 0.
  template <class Program>
  static int serve(Program&& program) {
    const int id = static_cast<int>(ctile_prt_core_id());
    fork_descriptor& d = descriptor();
    if (id == 0) {
      d.team = ctile_prt_cluster_cores();
      const int r = program();
      d.fn = nullptr;
      synch_barrier();  // releases the other cores for good
      return r;
    }
    for (;;) {
      synch_barrier();  // a fork (or the end) is published
      if (d.fn == nullptr) return 0;
      if (id < d.team) d.fn(d.arg, id);
      synch_barrier();  // join
    }
  }

  /// Runs body(core) on cores 0..n-1 (n <= 0 or above the cluster's size: every core) and
  /// returns when all have returned. Core 0 runs its share itself.
  template <class F>
  void fork(int n, const F& body) {
    fork_descriptor& d = descriptor();
    const int all = ctile_prt_cluster_cores();
    const int team = n <= 0 || n > all ? all : n;
    if (team < all) ctile_prt_team_barrier_setup((1u << team) - 1u);
    d.fn = [](const void* a, int core) { (*static_cast<const F*>(a))(core); };
    d.arg = &body;
    d.team = team;
    synch_barrier();  // release
    body(0);
    synch_barrier();  // join
    d.team = all;
  }
  template <class F>
  void fork(const F& body) {
    fork(0, body);
  }
  /// Inside a body: waits for every core of the team (the cluster's barrier when the team is
  /// the whole cluster, else hardware barrier 1 set up for the team by fork()).
  void barrier() {
    if (descriptor().team == ctile_prt_cluster_cores()) {
      synch_barrier();
    } else {
      ctile_prt_team_barrier();
    }
  }
  [[nodiscard]] int core_id() const { return static_cast<int>(ctile_prt_core_id()); }
  [[nodiscard]] int cores() const { return descriptor().team; }

  static fork_descriptor& descriptor() { return descriptor_; }

 private:
  CTILE_L1_DATA_IN(".fork") static inline fork_descriptor descriptor_{};
};
static_assert(cluster<pulp_runtime_cluster>);

/// L1 from the runtime's cluster allocator (pi_l1_malloc on cluster 0): nullptr when the L1
/// heap, which also holds the cluster stacks, has not that much left.
inline std::uint8_t* pulp_runtime_l1_alloc(std::uint32_t bytes) {
  return static_cast<std::uint8_t*>(pi_l1_malloc(0, static_cast<int>(bytes)));
}

/// Core 0's cycle counter (the core's performance counter of cycles; it counts while the core
/// sleeps at a barrier too). start() zeroes it.
struct pulp_runtime_clock {
  static void start() { ctile_prt_perf_start(); }
  static std::uint32_t now() { return ctile_prt_cycles(); }
};

/// No L3, for a plan that keeps everything in L2. The executor needs an l3_memory; this one is
/// never called by such a plan, which require_l2_only<E>() proves at compile time; a call would
/// be a bug and stops the core. A plan that needs L3 runs with hal::udma_hyper_l3.
struct pulp_runtime_no_l3 {
  struct read_handle {};
  struct write_handle {};
  void read(void*, std::uint32_t, std::uint32_t, read_handle&) { __builtin_trap(); }
  void write(std::uint32_t, void*, std::uint32_t, write_handle&) { __builtin_trap(); }
  void wait(read_handle&) {}
  void wait(write_handle&) {}
};
static_assert(l3_memory<pulp_runtime_no_l3>);

namespace detail {
/// Instantiated with the L3 bytes a plan needs; refuses any but 0 (the number shows in the
/// compiler's "required from" note).
template <long long L3Bytes>
struct plan_l3_bytes {
  static_assert(L3Bytes == 0,
                "This plan keeps data in L3 (the bytes are this template's argument), but "
                "the L3 given is pulp_runtime_no_l3: run it with hal::udma_hyper_l3 (the "
                "HyperRAM through the uDMA HyperBus peripheral, ctile/hal/udma_hyper.hpp).");
  static constexpr bool ok = true;
};
}  // namespace detail

/// A compile-time check for executor `E` run with pulp_runtime_no_l3: its plan needs no L3.
template <class E>
constexpr bool require_l2_only() {
  return detail::plan_l3_bytes<static_cast<long long>(E::required_l3_bytes)>::ok;
}

}  // namespace ctile::hal
