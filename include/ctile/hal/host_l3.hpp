// l3_memory on the host: an array standing for HyperRAM, registered in a sim_memory so that
// L3<->L2 transfers are asynchronous, checked and counted like DMA commands.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "host_memory.hpp"
#include "l3_memory.hpp"

namespace ctile::hal {

class host_l3 {
 public:
  struct read_handle {
    std::uint32_t id = 0;
  };
  struct write_handle {
    std::uint32_t id = 0;
  };

  /// Allocates `bytes` of zeroed L3 in `mem`.
  host_l3(sim_memory& mem, std::size_t bytes, std::string name = "L3")
      : mem_(&mem), data_(mem.arena(mem_level::l3, bytes, std::move(name))) {}

  /// The L3 contents, for loading and inspecting data outside the runtime.
  [[nodiscard]] std::span<std::byte> data() const { return data_; }
  [[nodiscard]] std::size_t size() const { return data_.size(); }

  void read(void* l2, std::uint32_t addr, std::uint32_t bytes, read_handle& h) {
    h.id = mem_->start_l3(false, at(addr), l2, bytes);
  }
  void write(std::uint32_t addr, void* l2, std::uint32_t bytes, write_handle& h) {
    h.id = mem_->start_l3(true, at(addr), l2, bytes);
  }
  void wait(read_handle& h) {
    mem_->wait(h.id);
    h.id = 0;
  }
  void wait(write_handle& h) {
    mem_->wait(h.id);
    h.id = 0;
  }

 private:
  // Addresses past the end stay out of the registered region, so the checker reports them.
  [[nodiscard]] void* at(std::uint32_t addr) const {
    return reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(data_.data()) + addr);
  }
  sim_memory* mem_;
  std::span<std::byte> data_;
};

static_assert(l3_memory<host_l3>);

}  // namespace ctile::hal
