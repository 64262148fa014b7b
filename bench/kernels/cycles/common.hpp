// Shared by the cycle programs: data, timing of one kernel call on core 0 of 1, the check.
#pragma once

#include <cstdint>
#include <ctile/kernels/kernels.hpp>

#include "platform.hpp"

namespace bench {

using namespace ctile;
using namespace ctile::kernels;

template <class T>
void fill(T* p, int n, lcg& g) {
  for (int i = 0; i < n; ++i) p[i] = static_cast<T>(g.next());
}

/// The kernel variant of a tile of kind `k` with 8-bit unsigned operands (bias, batchnorm,
/// out_chw: 0 or 1), as variant_of states a layer's.
constexpr kernel_variant tile_variant(kernel_kind k, int bias, int batchnorm, int out_chw = 0) {
  return {static_cast<int>(k), bias, batchnorm, out_chw, 0, 0};
}

/// Times one call of kernel variant `V` (its kind set) on `a` (one core), then compares `n`
/// output bytes with `want`. The variant is stated at compile time as the executor states a
/// layer's (run_kernel_as<variant_of(L, P)>), so the call is the one a network's tile makes
/// and the program carries that kernel alone, not every kind and option set.
template <kernel_variant V>
int timed(const char* name, std::uint64_t macs, const tile_args& a, const std::uint8_t* got,
          const std::uint8_t* want, int n) {
  static_assert(V.kind >= 0, "a cycle program times one kernel kind");
  enable_counters();
  const counters c0 = read_counters();
  run_as<V>(static_cast<kernel_kind>(V.kind), a, a.core);
  const counters c1 = read_counters();
  bool ok = true;
  for (int i = 0; i < n; ++i) ok = ok && got[i] == want[i];
  report(name, macs, c0, c1, ok);
  return ok ? 0 : 1;
}

/// The proven range of t for a weighted layer from its data (what a planner computes).
inline t_range range_of(const std::int8_t* w, int cout, int taps, const std::int32_t* bias,
                        const std::int32_t* kappa, const std::int32_t* lambda) {
  t_range all{0, 0};
  for (int c = 0; c < cout; ++c) {
    std::int64_t pos = 0, neg = 0;
    for (int i = 0; i < taps; ++i) (w[c * taps + i] > 0 ? pos : neg) += w[c * taps + i];
    std::int64_t lo = 255 * neg + (bias ? bias[c] : 0), hi = 255 * pos + (bias ? bias[c] : 0);
    if (kappa) {
      const std::int64_t x = kappa[c] * lo + lambda[c], y = kappa[c] * hi + lambda[c];
      lo = x < y ? x : y, hi = x < y ? y : x;
    }
    if (c == 0 || lo < all.lo) all.lo = lo;
    if (c == 0 || hi > all.hi) all.hi = hi;
  }
  return all;
}

}  // namespace bench
