// What the loop nests run on: a DMA engine, a cluster, and a checker that watches kernel
// accesses (nothing on the MCU; the simulated memory's checker on the host).
#pragma once

#include <cstddef>

#include "ctile/hal/cluster.hpp"
#include "ctile/hal/dma_engine.hpp"
#include "ctile/kernels/args.hpp"
#include "ctile/kernels/kernels.hpp"

namespace ctile::schedule {

/// No checks: every call compiles to nothing.
struct no_checks {
  struct guard {};
  static constexpr guard reading(const void*, std::size_t) { return {}; }
  static constexpr guard writing(void*, std::size_t) { return {}; }
  static constexpr void check_tile(kernels::kernel_kind, const kernels::tile_args&, int) {}
};

/// Runs the tile kernels. A bench that counts the loop nest's own instructions puts a type
/// whose run() does nothing in its place.
struct tile_kernels {
  static void run(kernels::kernel_kind k, const kernels::tile_args& a, int core) {
    kernels::run(k, a, core);
  }
  /// Only the variants `V` allows (see kernels::kernel_variant).
  template <kernels::kernel_variant V>
  static void run_as(kernels::kernel_kind k, const kernels::tile_args& a, int core) {
    kernels::run_as<V>(k, a, core);
  }
};

/// The DMA, the cluster, and a checker. `Checks` provides reading/writing (scoped guards held
/// while a kernel touches a buffer) and check_tile (validates a kernel's arguments).
template <hal::dma_engine Dma, hal::cluster Cluster, class Checks = no_checks,
          class Kernels = tile_kernels>
struct exec_env {
  using dma_type = Dma;
  Dma& dma;
  Cluster& cluster;
  Checks checks{};
  int core_count = 8;

  [[nodiscard]] int cores() const { return core_count; }
  auto reading(const void* p, std::size_t n) { return checks.reading(p, n); }
  auto writing(void* p, std::size_t n) { return checks.writing(p, n); }
  void check_tile(kernels::kernel_kind k, const kernels::tile_args& a, int scratch) {
    checks.check_tile(k, a, scratch);
  }
  /// Runs core `core`'s part of a tile's kernel (the cores of a fork share `a`, as they share
  /// one argument block on the cluster).
  void run_kernel(kernels::kernel_kind k, const kernels::tile_args& a, int core) {
    Kernels::run(k, a, core);
  }
  /// The same from a loop nest that knows variant `V` of its tiles at compile time (see
  /// kernels::kernel_variant); kernels without variants (a bench's or a test's stand-in) run
  /// as run_kernel.
  template <kernels::kernel_variant V>
  void run_kernel_as(kernels::kernel_kind k, const kernels::tile_args& a, int core) {
    if constexpr (requires { Kernels::template run_as<V>(k, a, core); })
      Kernels::template run_as<V>(k, a, core);
    else
      Kernels::run(k, a, core);
  }
};

}  // namespace ctile::schedule
