// HALs for a bare-metal single core (QEMU runs, or any MCU without a cluster DMA): copies are
// synchronous loops (no libc calls), the cluster is one core, L3 is an array in memory.
// Freestanding: no heap, no exceptions, no libc.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cluster.hpp"
#include "dma_engine.hpp"
#include "dma_limits.hpp"
#include "l3_memory.hpp"

namespace ctile::hal {

namespace detail {
/// Copies n bytes, words when both ends are word-aligned. The empty asm statements hide the
/// pointers' evolution from the optimiser so that it does not turn the loops into memcpy calls.
inline void copy_bytes(void* dst, const void* src, std::uint32_t n) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  using word [[gnu::may_alias]] = std::uint32_t;
  if (((reinterpret_cast<std::uintptr_t>(d) | reinterpret_cast<std::uintptr_t>(s)) & 3u) == 0) {
    for (; n >= 4; n -= 4) {
      *reinterpret_cast<word*>(d) = *reinterpret_cast<const word*>(s);
      d += 4;
      s += 4;
      __asm__("" : "+r"(d), "+r"(s));
    }
  }
  for (; n > 0; --n) {
    *d++ = *s++;
    __asm__("" : "+r"(d), "+r"(s));
  }
}
}  // namespace detail

/// dma_engine whose commands complete before they return; wait() does nothing. 2D commands
/// copy line by line.
template <dma_limits L = gap8_dma_limits>
class basic_baremetal_dma {
 public:
  static constexpr dma_limits limits = L;
  struct handle {};

  void copy_1d(dma_dir d, void* l1, void* l2, std::uint32_t bytes, handle&) {
    if (d == dma_dir::l2_to_l1) {
      detail::copy_bytes(l1, l2, bytes);
    } else {
      detail::copy_bytes(l2, l1, bytes);
    }
  }
  void copy_2d(dma_dir d, void* l1, void* l2, std::uint32_t bytes, std::uint32_t line_bytes,
               std::uint32_t l2_stride, handle&) {
    auto* a = static_cast<unsigned char*>(l1);
    auto* b = static_cast<unsigned char*>(l2);
    for (std::uint32_t done = 0; done < bytes; done += line_bytes) {
      if (d == dma_dir::l2_to_l1) {
        detail::copy_bytes(a, b, line_bytes);
      } else {
        detail::copy_bytes(b, a, line_bytes);
      }
      a += line_bytes;
      b += l2_stride;
    }
  }
  void wait(handle&) {}
};
using baremetal_dma = basic_baremetal_dma<>;
static_assert(dma_engine<baremetal_dma>);

/// A cluster of one core: fork(n, body) runs body(0) once whatever n is, cores() is 1 and
/// barrier() returns at once. Kernels that divide work by cores() do all of it on core 0.
class baremetal_cluster {
 public:
  template <class F>
  void fork(int, F&& body) {
    body(0);
  }
  template <class F>
  void fork(F&& body) {
    body(0);
  }
  void barrier() {}
  [[nodiscard]] int core_id() const { return 0; }
  [[nodiscard]] int cores() const { return 1; }
};
static_assert(cluster<baremetal_cluster>);

/// l3_memory over an array in memory; transfers complete before they return. Addresses are
/// not checked here (the host simulation checks them).
class baremetal_l3 {
 public:
  struct read_handle {};
  struct write_handle {};

  baremetal_l3(void* base, std::uint32_t bytes)
      : base_(static_cast<unsigned char*>(base)), size_(bytes) {}

  void read(void* l2, std::uint32_t addr, std::uint32_t bytes, read_handle&) {
    detail::copy_bytes(l2, base_ + addr, bytes);
  }
  void write(std::uint32_t addr, void* l2, std::uint32_t bytes, write_handle&) {
    detail::copy_bytes(base_ + addr, l2, bytes);
  }
  void wait(read_handle&) {}
  void wait(write_handle&) {}
  [[nodiscard]] std::uint32_t size() const { return size_; }

 private:
  unsigned char* base_;
  std::uint32_t size_;
};
static_assert(l3_memory<baremetal_l3>);

}  // namespace ctile::hal
