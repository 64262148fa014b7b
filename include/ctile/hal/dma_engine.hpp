// The cluster DMA as a concept: start a 1D or 2D copy between L2 and L1, wait for it.
#pragma once

#include <concepts>
#include <cstdint>
#include <type_traits>

#include "dma_limits.hpp"

namespace ctile::hal {

/// An engine `E` moves bytes between L2 and L1 asynchronously, one command at a time:
///
///   typename E::handle h;                          // completion record of one command
///   e.copy_1d(dir, l1, l2, bytes, h);              // contiguous on both sides
///   e.copy_2d(dir, l1, l2, bytes, line_bytes, l2_stride, h);
///       // `bytes / line_bytes` lines; line i is at l2 + i * l2_stride in L2 and
///       // l1 + i * line_bytes in L1 (L1 is always contiguous)
///   e.wait(h);                                     // returns once that command completed
///
/// The handle is written by the start call and must stay in place until it is waited for
/// (PMSIS keeps the command record there). Every core of a cluster fork may start commands
/// (GAP-8's cluster DMA has a command queue per core), each into handles of its own; a command
/// may be waited for by another core once the fork has returned. Every command must respect
/// `E::limits`, a constant `dma_limits`; ctile/schedule/dma_split.hpp splits larger transfers at
/// compile time.
template <class E>
concept dma_engine = std::same_as<std::remove_cvref_t<decltype(E::limits)>, dma_limits> &&
    std::default_initializable<typename E::handle> &&
    requires(E& e, typename E::handle& h, void* l1, void* l2, std::uint32_t n, dma_dir d) {
  requires E::limits.valid();
  { e.copy_1d(d, l1, l2, n, h) } -> std::same_as<void>;
  { e.copy_2d(d, l1, l2, n, n, n, h) } -> std::same_as<void>;
  { e.wait(h) } -> std::same_as<void>;
};

}  // namespace ctile::hal
