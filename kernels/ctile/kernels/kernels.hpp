// Every kernel, and one entry point that runs a kernel kind on a tile for one core.
#pragma once

#include "ctile/kernels/add.hpp"
#include "ctile/kernels/args.hpp"
#include "ctile/kernels/conv.hpp"
#include "ctile/kernels/depthwise.hpp"
#include "ctile/kernels/pool.hpp"
#include "ctile/kernels/requant.hpp"

namespace ctile::kernels {

/// Runs kernel `k` on this core's part of the tile described by `a`.
inline void run(kernel_kind k, const tile_args& a) {
  switch (k) {
    case kernel_kind::conv:
      conv_hwc(a);
      return;
    case kernel_kind::pointwise:
      pointwise_hwc(a);
      return;
    case kernel_kind::depthwise:
      depthwise_chw(a);
      return;
    case kernel_kind::linear:
      linear(a);
      return;
    case kernel_kind::maxpool:
      maxpool_hwc(a);
      return;
    case kernel_kind::avgpool:
      avgpool_hwc(a);
      return;
    case kernel_kind::add:
      add_hwc(a);
      return;
  }
}

}  // namespace ctile::kernels
