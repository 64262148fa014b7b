// HALs over the GAP SDK's PMSIS API. Compiled only when <pmsis.h> is available; then
// ctile::hal::has_pmsis is true. Every member inlines to the one PMSIS call it wraps.
// Freestanding: no heap, no exceptions, no libc.
#pragma once

#if __has_include(<pmsis.h>)
#include <pmsis.h>

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
template <dma_limits L = gap8_dma_limits>
class basic_pmsis_dma {
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

/// The cluster's team: pi_cl_team_fork / pi_cl_team_barrier / pi_core_id /
/// pi_cl_team_nb_cores. fork() must be called from the cluster's master core.
class pmsis_cluster {
 public:
  template <class F>
  void fork(int n, const F& body) {
    pi_cl_team_fork(
        n, [](void* arg) { (*static_cast<const F*>(arg))(static_cast<int>(pi_core_id())); },
        const_cast<void*>(static_cast<const void*>(&body)));
  }
  template <class F>
  void fork(const F& body) {
    fork(0, body);
  }
  void barrier() { pi_cl_team_barrier(); }
  [[nodiscard]] int core_id() const { return static_cast<int>(pi_core_id()); }
  [[nodiscard]] int cores() const { return static_cast<int>(pi_cl_team_nb_cores()); }
};
static_assert(cluster<pmsis_cluster>);

/// External RAM from the cluster: pi_cl_ram_read / pi_cl_ram_write and their waits, on an
/// opened RAM device.
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

}  // namespace ctile::hal

#else

namespace ctile::hal {
inline constexpr bool has_pmsis = false;
}  // namespace ctile::hal

#endif
