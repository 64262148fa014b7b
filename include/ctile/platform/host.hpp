// The host: the runtime's portable back end runs tile loops on a PC. Memories are large, DMA
// limits are those of GAP-8 so that host runs exercise the same command splitting.
#pragma once

#include "ctile/platform/platform.hpp"

namespace ctile {

/// A host "cluster" of 8 simulated cores with 1 MiB L1, 64 MiB L2 and no L3.
inline constexpr platform host = platform{}
                                     .named("host")
                                     .with_l1(1024 * 1024)
                                     .with_stacks(0, 0)
                                     .with_l2(64 * 1024 * 1024)
                                     .with_code_reserve(0)
                                     .with_l3(0);

}  // namespace ctile
