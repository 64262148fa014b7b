// Every kernel, and one entry point that runs a kernel kind on a tile for one core.
#pragma once

#include "ctile/kernels/add.hpp"
#include "ctile/kernels/args.hpp"
#include "ctile/kernels/conv.hpp"
#include "ctile/kernels/depthwise.hpp"
#include "ctile/kernels/pool.hpp"
#include "ctile/kernels/requant.hpp"
#include "ctile/kernels/wide.hpp"

namespace ctile::kernels {

/// What a caller knows at compile time of the tiles it runs: the kernel kind (-1: chosen per
/// call), whether the layer has a bias and batch-norm arrays, whether its output is
/// channel-major, whether its inputs are signed, whether an operand is a 16-bit tensor (each 0
/// or 1; -1: read from the arguments).
/// Only the kernel variants such a caller can reach are instantiated: a loop nest that knows
/// its layer at compile time does not make the program carry (and the compiler build) every
/// convolution variant. The arguments must agree with what is stated (a bias pointer exactly
/// when `bias` is 1, kappa and lambda exactly when `batchnorm` is 1, and so on).
struct kernel_variant {
  int kind = -1;
  int bias = -1, batchnorm = -1, out_chw = -1, in_signed = -1, wide = -1;
  /// The convolution option set (2: bias, 1: batch-norm), or -1 when either is not known.
  [[nodiscard]] constexpr int options() const {
    return bias < 0 || batchnorm < 0 ? -1 : 2 * bias + batchnorm;
  }
};

/// Runs kernel kind `K` (variant `V`) on core `core`'s part of the tile described by `a`.
template <kernel_kind K, kernel_variant V = kernel_variant{}>
inline void run_kind(const tile_args& a, int core) {
  if constexpr (K == kernel_kind::conv) {
    conv_hwc<V.options(), V.out_chw, V.in_signed>(a, core);
  } else if constexpr (K == kernel_kind::pointwise) {
    pointwise_hwc<V.options(), V.out_chw, V.in_signed>(a, core);
  } else if constexpr (K == kernel_kind::depthwise) {
    depthwise_chw(a, core);
  } else if constexpr (K == kernel_kind::linear) {
    linear(a, core);
  } else if constexpr (K == kernel_kind::maxpool) {
    maxpool_hwc(a, core);
  } else if constexpr (K == kernel_kind::avgpool) {
    avgpool_hwc(a, core);
  } else {
    static_assert(K == kernel_kind::add);
    add_hwc(a, core);
  }
}

/// Runs kernel `k` on core `core`'s part of the tile described by `a` (whose own `core` is
/// not read): the cores of a fork share one `a`. With `V.kind` set, `k` must be that kind and
/// only it is reached.
template <kernel_variant V>
inline void run_as(kernel_kind k, const tile_args& a, int core) {
  // A 16-bit operand (tile_args::wide): the portable kernels of wide.hpp, whatever the build's
  // 8-bit kernels are; a caller that states 8-bit operands does not instantiate them.
  if constexpr (V.wide != 0) {
    if (V.wide == 1 || a.wide()) {
      wide::run(k, a, core);
      return;
    }
  }
  if constexpr (V.wide == 1) {
    return;
  } else if constexpr (V.kind >= 0) {
    (void)k;
    run_kind<static_cast<kernel_kind>(V.kind), V>(a, core);
  } else {
    switch (k) {
      case kernel_kind::conv:
        return run_kind<kernel_kind::conv, V>(a, core);
      case kernel_kind::pointwise:
        return run_kind<kernel_kind::pointwise, V>(a, core);
      case kernel_kind::depthwise:
        return run_kind<kernel_kind::depthwise, V>(a, core);
      case kernel_kind::linear:
        return run_kind<kernel_kind::linear, V>(a, core);
      case kernel_kind::maxpool:
        return run_kind<kernel_kind::maxpool, V>(a, core);
      case kernel_kind::avgpool:
        return run_kind<kernel_kind::avgpool, V>(a, core);
      case kernel_kind::add:
        return run_kind<kernel_kind::add, V>(a, core);
    }
  }
}

/// Runs kernel `k` on core `core`'s part of the tile described by `a` (whose own `core` is
/// not read): the cores of a fork share one `a`. Every variant is reachable.
inline void run(kernel_kind k, const tile_args& a, int core) {
  run_as<kernel_variant{}>(k, a, core);
}
/// Runs kernel `k` on core `a.core`'s part of the tile described by `a`.
inline void run(kernel_kind k, const tile_args& a) {
  run(k, a, a.core);
}

}  // namespace ctile::kernels
