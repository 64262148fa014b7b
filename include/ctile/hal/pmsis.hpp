// HALs over the GAP SDK's PMSIS API. Compiled only when <pmsis.h> is available; then
// ctile::hal::has_pmsis is true (and has_pmsis_ram when the SDK's <bsp/ram.h> is there too).
// Every member inlines to the PMSIS call it wraps. Freestanding: no heap, no exceptions, no libc.
//
// Include this header before <bsp/ram.h>: the SDK's <bsp/ram.h> has no extern "C" block, so a
// C++ file that includes it directly declares pi_cl_ram_copy (a C function of the SDK's BSP
// library) with C++ linkage, and the link fails. This header includes it inside extern "C"
// and then redeclares pi_cl_ram_copy with C linkage, which turns a wrong include order into a
// compile error ("conflicting declaration ... with 'C' linkage") instead of a link error.
// See docs/gap8.md for the build.
#pragma once

#if __has_include(<pmsis.h>)
#include <pmsis.h>
#if __has_include(<bsp/ram.h>)
extern "C" {
#include <bsp/ram.h>
}
extern "C" void pi_cl_ram_copy(struct pi_device* device, uint32_t pi_ram_addr, void* addr,
                               uint32_t size, int ext2loc, pi_cl_ram_req_t* req);
#define CTILE_HAL_PMSIS_RAM 1
#endif

#include <cstdint>

#include "cluster.hpp"
#include "dma_engine.hpp"
#include "dma_limits.hpp"
#include "l3_memory.hpp"

namespace ctile::hal {

inline constexpr bool has_pmsis = true;

namespace detail {
inline std::uint32_t pmsis_addr(const void* p) {
  return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(p));
}
constexpr pi_cl_dma_dir_e pmsis_dir(dma_dir d) {
  return d == dma_dir::l2_to_l1 ? PI_CL_DMA_DIR_EXT2LOC : PI_CL_DMA_DIR_LOC2EXT;
}
}  // namespace detail

/// The cluster DMA (MCHAN) through pi_cl_dma_cmd / pi_cl_dma_cmd_2d / pi_cl_dma_cmd_wait.
/// One command per handle: each command takes one of the DMA's counters until waited for.
/// The limits keep every command on the SDK's hardware path (gap8_pmsis_dma_limits).
template <dma_limits L = gap8_pmsis_dma_limits>
class basic_pmsis_dma {
  static_assert(L.max_command_bytes < (1u << 15) && L.max_line_bytes < (1u << 15) &&
                    L.max_stride < (1u << 15),
                "GAP-8's pi_cl_dma_cmd splits commands of 32,768 B and more (and 2-D strides of "
                "32,768 B and more) in software, unsafely when several cores use the DMA: the "
                "PMSIS DMA's limits must stay below 32,768 B.");

 public:
  static constexpr dma_limits limits = L;
  using handle = pi_cl_dma_cmd_t;

  void copy_1d(dma_dir d, void* l1, void* l2, std::uint32_t bytes, handle& h) {
    pi_cl_dma_cmd(detail::pmsis_addr(l2), detail::pmsis_addr(l1), bytes, detail::pmsis_dir(d), &h);
  }
  void copy_2d(dma_dir d, void* l1, void* l2, std::uint32_t bytes, std::uint32_t line_bytes,
               std::uint32_t l2_stride, handle& h) {
    pi_cl_dma_cmd_2d(detail::pmsis_addr(l2), detail::pmsis_addr(l1), bytes, l2_stride, line_bytes,
                     detail::pmsis_dir(d), &h);
  }
  void wait(handle& h) { pi_cl_dma_cmd_wait(&h); }
};
using pmsis_dma = basic_pmsis_dma<>;
static_assert(dma_engine<pmsis_dma>);

/// The cluster's team: pi_cl_team_fork / pi_cl_team_barrier / pi_core_id, sized by
/// pi_cl_cluster_nb_cores(). fork() must be called from the cluster's master core.
///
/// Every fork passes an explicit core count: the SDK's pi_cl_team_fork(0, ...) reuses the team
/// of the previous fork, and pi_cl_team_nb_cores() reports that last team, not the cluster.
/// So fork(0, body) runs on pi_cl_cluster_nb_cores() cores, and cores() is the team size
/// inside a body and the cluster's core count outside.
class pmsis_cluster {
 public:
  template <class F>
  void fork(int n, const F& body) {
    const int team = n > 0 ? n : pi_cl_cluster_nb_cores();
    team_ = team;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);  // the team size is stored before the dispatch
    pi_cl_team_fork(
        team, [](void* arg) { (*static_cast<const F*>(arg))(static_cast<int>(pi_core_id())); },
        const_cast<void*>(static_cast<const void*>(&body)));
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    team_ = 0;
  }
  template <class F>
  void fork(const F& body) {
    fork(0, body);
  }
  void barrier() { pi_cl_team_barrier(); }
  [[nodiscard]] int core_id() const { return static_cast<int>(pi_core_id()); }
  [[nodiscard]] int cores() const {
    const int team = *static_cast<const volatile int*>(&team_);
    return team != 0 ? team : pi_cl_cluster_nb_cores();
  }

 private:
  int team_ = 0;  ///< size of the team being run, 0 outside a fork
};
static_assert(cluster<pmsis_cluster>);

#ifdef CTILE_HAL_PMSIS_RAM
inline constexpr bool has_pmsis_ram = true;

/// External RAM from the cluster: pi_cl_ram_read / pi_cl_ram_write and their waits, on an
/// opened RAM device (<bsp/ram.h>).
class pmsis_l3 {
 public:
  struct read_handle {
    pi_cl_ram_req_t req;
  };
  struct write_handle {
    pi_cl_ram_req_t req;
  };

  explicit pmsis_l3(struct pi_device* ram) : ram_(ram) {}

  void read(void* l2, std::uint32_t addr, std::uint32_t bytes, read_handle& h) {
    pi_cl_ram_read(ram_, addr, l2, bytes, &h.req);
  }
  void write(std::uint32_t addr, void* l2, std::uint32_t bytes, write_handle& h) {
    pi_cl_ram_write(ram_, addr, l2, bytes, &h.req);
  }
  void wait(read_handle& h) { pi_cl_ram_read_wait(&h.req); }
  void wait(write_handle& h) { pi_cl_ram_write_wait(&h.req); }

 private:
  struct pi_device* ram_;
};
static_assert(l3_memory<pmsis_l3>);
#else
inline constexpr bool has_pmsis_ram = false;
#endif

}  // namespace ctile::hal

#else

namespace ctile::hal {
inline constexpr bool has_pmsis = false;
inline constexpr bool has_pmsis_ram = false;
}  // namespace ctile::hal

#endif
