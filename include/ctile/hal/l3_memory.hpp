// The external memory (HyperRAM) as a concept: asynchronous reads into L2, writes from L2.
#pragma once

#include <concepts>
#include <cstdint>
#include <type_traits>

namespace ctile::hal {

/// An L3 memory `M` addressed by 32-bit offsets:
///
///   typename M::read_handle r;  m.read(l2_dst, l3_addr, bytes, r);   m.wait(r);
///   typename M::write_handle w; m.write(l3_addr, l2_src, bytes, w);  m.wait(w);
///
/// Handles are written by the start call and must stay in place until waited for (PMSIS
/// queues the request record itself).
template <class M>
concept l3_memory = std::default_initializable<typename M::read_handle> &&
    std::default_initializable<typename M::write_handle> &&
    requires(M& m, typename M::read_handle& r, typename M::write_handle& w, void* l2,
             std::uint32_t addr, std::uint32_t n) {
  { m.read(l2, addr, n, r) } -> std::same_as<void>;
  { m.write(addr, l2, n, w) } -> std::same_as<void>;
  { m.wait(r) } -> std::same_as<void>;
  { m.wait(w) } -> std::same_as<void>;
};

}  // namespace ctile::hal
