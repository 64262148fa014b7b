// The boards the cluster firmware runs on. A board names its DMA and cluster HALs, its L3,
// where the tile buffers live, its cycle counter, the platform it plans for, and how the
// program starts on it.
//
// - baremetal (CTILE_FW_BOARD_BAREMETAL): one rv32imc core (QEMU virt): synchronous DMA, a
//   cluster of one core, L3 an array in RAM, cycles from mcycle. Plans for pulp-open with an
//   8 MiB L3, so that the networks that need L3 run too.
// - pulp_runtime (CTILE_FW_BOARD_PULP_RUNTIME): the 8 cores of the PULP cluster under
//   pulp-runtime: the mchan DMA, fork/join over the runtime's start of every core, L1 from the
//   runtime's allocator, cycles from core 0's performance counter, L3 the HyperRAM through
//   ctile's uDMA HyperBus driver (udma_hyper.hpp) when the plan needs L3. Plans for pulp_open.
#pragma once

#include <cstdint>
#include <ctile/platform/pulp_open.hpp>

#if defined(CTILE_FW_BOARD_PULP_RUNTIME)
#include <ctile/hal/pulp_runtime.hpp>
#include <ctile/hal/udma_hyper.hpp>
#include <type_traits>
#else
#include <ctile/hal/baremetal.hpp>
#endif

namespace ctile::firmware {

#if defined(CTILE_FW_BOARD_PULP_RUNTIME)

struct board {
  // pulp_open, with the L2 this image keeps for its code when the build says
  // (CTILE_FW_CODE_RESERVE, bytes: examples/firmware/CMakeLists.txt).
#if defined(CTILE_FW_CODE_RESERVE)
  static constexpr platform plat = pulp_open.with_code_reserve(CTILE_FW_CODE_RESERVE);
#else
  static constexpr platform plat = pulp_open;
#endif
  using dma = hal::pulp_runtime_dma;
  using cluster = hal::pulp_runtime_cluster;
  using clock = hal::pulp_runtime_clock;
  template <class E>
  static constexpr bool supports() {
    return E::required_l3_bytes <= hal::pulp_open_hyper_limits.memory_bytes;
  }
  template <int Bytes>
  static std::uint8_t* l1() {
    return hal::pulp_runtime_l1_alloc(static_cast<std::uint32_t>(Bytes));
  }
  /// The HyperRAM when the plan needs L3 (its driver set up here, on core 0), else none.
  template <class E>
  struct l3_memory {
    static constexpr bool needed = E::required_l3_bytes > 0;
    std::conditional_t<needed, hal::udma_hyper_l3, hal::pulp_runtime_no_l3> mem;
    l3_memory() {
      if constexpr (needed) {
        mem.init();
      } else {
        static_assert(hal::require_l2_only<E>());
      }
    }
    auto& memory() { return mem; }
  };
  /// pulp-runtime starts every cluster core on one entry; core 0 runs the program.
  template <int (*Program)()>
  static int start() {
    return ctile_prt_cluster_run(
        [] { return hal::pulp_runtime_cluster::serve([] { return Program(); }); });
  }
};

#else

struct board {
  static constexpr platform plat =
      pulp_open.with_l3(8 * 1024 * 1024).named("pulp_open with 8 MiB L3");
  using dma = hal::baremetal_dma;
  using cluster = hal::baremetal_cluster;
  /// mcycle (CSR 0xB00), read with csrrs rd, 0xB00, x0 spelled as an I-type word so that the
  /// rv32imc build needs no Zicsr in -march.
  struct clock {
    static void start() {}
    static std::uint32_t now() {
      std::uint32_t v;
      __asm__ volatile(".insn i 0x73, 2, %0, x0, -1280" : "=r"(v));
      return v;
    }
  };
  template <class E>
  static constexpr bool supports() {
    return true;
  }
  template <int Bytes>
  static std::uint8_t* l1() {
    alignas(8) static std::uint8_t buffer[Bytes];
    return buffer;
  }
  template <class E>
  struct l3_memory {
    static constexpr std::uint32_t bytes = E::required_l3_bytes > 0
                                               ? static_cast<std::uint32_t>(E::required_l3_bytes)
                                               : 4u;
    alignas(8) static inline std::uint8_t storage[bytes];
    hal::baremetal_l3 mem{storage, bytes};
    hal::baremetal_l3& memory() { return mem; }
  };
  template <int (*Program)()>
  static int start() {
    return Program();
  }
};

#endif

}  // namespace ctile::firmware
