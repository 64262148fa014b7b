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

/// Runs kernel `k` on core `core`'s part of the tile described by `a` (whose own `core` is
/// not read): the cores of a fork share one `a`. A tile with a 16-bit operand (tile_args::wide)
/// runs the portable kernels of wide.hpp.
inline void run(kernel_kind k, const tile_args& a, int core) {
  // A 16-bit operand: the portable wide kernels, whatever the build's 8-bit kernels are.
  if (a.wide()) {
    wide::run(k, a, core);
    return;
  }
  switch (k) {
    case kernel_kind::conv:
      conv_hwc(a, core);
      return;
    case kernel_kind::pointwise:
      pointwise_hwc(a, core);
      return;
    case kernel_kind::depthwise:
      depthwise_chw(a, core);
      return;
    case kernel_kind::linear:
      linear(a, core);
      return;
    case kernel_kind::maxpool:
      maxpool_hwc(a, core);
      return;
    case kernel_kind::avgpool:
      avgpool_hwc(a, core);
      return;
    case kernel_kind::add:
      add_hwc(a, core);
      return;
  }
}
/// Runs kernel `k` on core `a.core`'s part of the tile described by `a`.
inline void run(kernel_kind k, const tile_args& a) {
  run(k, a, a.core);
}

}  // namespace ctile::kernels
