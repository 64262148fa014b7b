// dma_engine on the host: commands go to a sim_memory, which copies at wait time or later and
// checks every command and access (see host_memory.hpp).
#pragma once

#include <cstdint>

#include "dma_engine.hpp"
#include "dma_limits.hpp"
#include "host_memory.hpp"

namespace ctile::hal {

template <dma_limits L = gap8_dma_limits>
class basic_host_dma {
 public:
  static constexpr dma_limits limits = L;
  struct handle {
    std::uint32_t id = 0;  ///< transfer id in the sim_memory; 0 when nothing is in flight
  };

  explicit basic_host_dma(sim_memory& mem) : mem_(&mem) {}

  void copy_1d(dma_dir d, void* l1, void* l2, std::uint32_t bytes, handle& h) {
    h.id = mem_->start_dma(d, l1, l2, bytes, 0, 0, L);
  }
  void copy_2d(dma_dir d, void* l1, void* l2, std::uint32_t bytes, std::uint32_t line_bytes,
               std::uint32_t l2_stride, handle& h) {
    h.id = mem_->start_dma(d, l1, l2, bytes, line_bytes, l2_stride, L);
  }
  void wait(handle& h) {
    mem_->wait(h.id);
    h.id = 0;
  }
  [[nodiscard]] sim_memory& memory() const { return *mem_; }

 private:
  sim_memory* mem_;
};

using host_dma = basic_host_dma<>;
static_assert(dma_engine<host_dma>);

}  // namespace ctile::hal
