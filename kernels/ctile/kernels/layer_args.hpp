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
  a.dh = l.dilation.h, a.dw = l.dilation.w;
  a.pad_t = l.pad.t, a.pad_b = l.pad.b, a.pad_l = l.pad.l, a.pad_r = l.pad.r;
  a.weights = p.weights.empty() ? nullptr : p.weights.data();
  a.bias = l.bias && !p.bias.empty() ? p.bias.data() : nullptr;
  a.kappa = l.batchnorm && !p.kappa.empty() ? p.kappa.data() : nullptr;
  a.lambda = l.batchnorm && !p.lambda.empty() ? p.lambda.data() : nullptr;
  a.quant = plan_for(l, p);
  a.scale0 = l.in_scale[0];
  a.scale1 = l.in_scale[1];
  a.in_signed = l.in_range.is_signed();
  a.in2_signed = l.kind == op::add && l.in2_range.is_signed();
  a.in_bytes = static_cast<std::uint8_t>(l.input_bytes_per_element(0));
  a.in2_bytes = static_cast<std::uint8_t>(l.kind == op::add ? l.input_bytes_per_element(1) : 1);
  a.out_bytes =
      static_cast<std::uint8_t>(l.output() == output_kind::u8 ? l.output_bytes_per_element() : 1);
  return a;
}

/// The input rows [iy0, iy1) and columns [ix0, ix1) of the layer that an output tile (rows
/// [oy0, oy1), columns [ox0, ox1)) reads, and the tile's own padding: the zero rows/columns
/// of the layer's padding that fall in the tile's window (non-zero on border tiles only).
struct input_window {
  int iy0 = 0, iy1 = 0, ix0 = 0, ix1 = 0;
  int pad_t = 0, pad_b = 0, pad_l = 0, pad_r = 0;
  friend constexpr bool operator==(const input_window&, const input_window&) = default;
};
constexpr input_window window_of(const layer& l, int oy0, int oy1, int ox0, int ox1) {
  const extent2 win = l.window();
  const int ry0 = oy0 * l.stride.h - l.pad.t;
  const int ry1 = (oy1 - 1) * l.stride.h - l.pad.t + win.h;
  const int rx0 = ox0 * l.stride.w - l.pad.l;
  const int rx1 = (ox1 - 1) * l.stride.w - l.pad.l + win.w;
  input_window w;
  w.iy0 = ry0 > 0 ? ry0 : 0;
  w.iy1 = ry1 < l.in.h ? ry1 : l.in.h;
  w.ix0 = rx0 > 0 ? rx0 : 0;
  w.ix1 = rx1 < l.in.w ? rx1 : l.in.w;
  w.pad_t = w.iy0 - ry0, w.pad_b = ry1 - w.iy1;
  w.pad_l = w.ix0 - rx0, w.pad_r = rx1 - w.ix1;
  return w;
}

}  // namespace ctile::kernels
