// From a ctile::layer to kernel arguments: which kernel runs it, and the arguments of the
// whole layer as a single tile (the runtime narrows them per tile; tests start from here).
#pragma once

#include "ctile/kernels/args.hpp"
#include "ctile/kernels/ranges.hpp"
#include "ctile/layers/layer.hpp"
#include "ctile/network/params.hpp"

namespace ctile::kernels {

/// The kernel that runs a layer (input layers have none: conv is returned and never used).
constexpr kernel_kind kind_of(const layer& l) {
  switch (l.kind) {
    case op::conv:
      return l.kernel.h == 1 && l.kernel.w == 1 && l.pad == padding{} ? kernel_kind::pointwise
                                                                      : kernel_kind::conv;
    case op::depthwise:
      return kernel_kind::depthwise;
    case op::linear:
      return kernel_kind::linear;
    case op::maxpool:
      return kernel_kind::maxpool;
    case op::avgpool:
      return kernel_kind::avgpool;
    case op::add:
      return kernel_kind::add;
    default:
      return kernel_kind::conv;
  }
}

/// The layer as one tile: dims, window, padding, parameter pointers (null when absent) and
/// the exact requantization plan from the layer's data. Activation pointers, scratch and
/// the core fields are left for the caller.
constexpr tile_args layer_args(const layer& l, const layer_params& p) {
  tile_args a;
  a.h_in = l.in.h, a.w_in = l.in.w, a.c_in = l.in.c;
  a.h_out = l.out.h, a.w_out = l.out.w, a.c_out = l.out.c;
  a.kh = l.kernel.h, a.kw = l.kernel.w;
  a.sh = l.stride.h, a.sw = l.stride.w;
  a.pad_t = l.pad.t, a.pad_b = l.pad.b, a.pad_l = l.pad.l, a.pad_r = l.pad.r;
  a.weights = p.weights.empty() ? nullptr : p.weights.data();
  a.bias = l.bias && !p.bias.empty() ? p.bias.data() : nullptr;
  a.kappa = l.batchnorm && !p.kappa.empty() ? p.kappa.data() : nullptr;
  a.lambda = l.batchnorm && !p.lambda.empty() ? p.lambda.data() : nullptr;
  a.quant = plan_for(l, p);
  a.scale0 = l.in_scale[0];
  a.scale1 = l.in_scale[1];
  return a;
}

}  // namespace ctile::kernels
