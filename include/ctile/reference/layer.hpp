// The oracle, allocation-free: naive loops with the exact integer semantics, one layer at a
// time. Kept simple on purpose; every optimized path in ctile is tested against it. Values are
// plain integers: signed or sub-byte activations as their values (-2..1, not bit patterns),
// and tensors wider than 8 bits (an unclipped residual sum) carried faithfully.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "ctile/layers/layer.hpp"
#include "ctile/network/params.hpp"

namespace ctile::reference {

namespace detail {

constexpr std::size_t hwc(const shape& s, int y, int x, int c) {
  return (static_cast<std::size_t>(y) * static_cast<std::size_t>(s.w) +
          static_cast<std::size_t>(x)) *
             static_cast<std::size_t>(s.c) +
         static_cast<std::size_t>(c);
}

/// Accumulator -> output value for a conv/depthwise/linear output channel.
constexpr std::int32_t finish(const layer& l, const layer_params& p, int co, std::int64_t acc) {
  const auto c = static_cast<std::size_t>(co);
  if (l.bias) acc += p.bias[c];
  if (!l.requantize) return static_cast<std::int32_t>(acc);
  const std::int64_t t = l.batchnorm ? batchnorm(acc, p.kappa[c], p.lambda[c]) : acc;
  return apply(l.quant, t);
}

}  // namespace detail

/// Runs one layer into `out` (l.out.elements() values). `in2` is the second input of an add
/// (empty otherwise). Allocation-free, so it also runs on a bare-metal target.
constexpr void run_layer_into(const layer& l, const layer_params& p,
                              std::span<const std::int32_t> in, std::span<const std::int32_t> in2,
                              std::span<std::int32_t> out) {
  using detail::hwc;
  for (auto& v : out) v = 0;
  const shape& is = l.in;
  const shape& os = l.out;
  switch (l.kind) {
    case op::input:
      for (std::size_t k = 0; k < out.size() && k < in.size(); ++k) out[k] = in[k];
      break;
    case op::conv:
    case op::depthwise:
      for (int oy = 0; oy < os.h; ++oy)
        for (int ox = 0; ox < os.w; ++ox)
          for (int co = 0; co < os.c; ++co) {
            std::int64_t acc = 0;
            for (int ky = 0; ky < l.kernel.h; ++ky)
              for (int kx = 0; kx < l.kernel.w; ++kx) {
                const int iy = oy * l.stride.h - l.pad.t + ky * l.dilation.h;
                const int ix = ox * l.stride.w - l.pad.l + kx * l.dilation.w;
                if (iy < 0 || iy >= is.h || ix < 0 || ix >= is.w) continue;  // zero padding
                if (l.kind == op::depthwise) {
                  const auto wi = (static_cast<std::size_t>(co) * l.kernel.h + ky) *
                                      static_cast<std::size_t>(l.kernel.w) +
                                  static_cast<std::size_t>(kx);
                  acc += std::int64_t{in[hwc(is, iy, ix, co)]} * p.weights[wi];
                } else {
                  for (int ci = 0; ci < is.c; ++ci) {
                    const auto wi = ((static_cast<std::size_t>(co) * l.kernel.h + ky) *
                                         static_cast<std::size_t>(l.kernel.w) +
                                     static_cast<std::size_t>(kx)) *
                                        static_cast<std::size_t>(is.c) +
                                    static_cast<std::size_t>(ci);
                    acc += std::int64_t{in[hwc(is, iy, ix, ci)]} * p.weights[wi];
                  }
                }
              }
            out[hwc(os, oy, ox, co)] = detail::finish(l, p, co, acc);
          }
      break;
    case op::linear: {
      const auto n = static_cast<std::size_t>(is.elements());
      for (int co = 0; co < os.c; ++co) {
        std::int64_t acc = 0;
        for (std::size_t k = 0; k < n; ++k)
          acc += std::int64_t{in[k]} * p.weights[static_cast<std::size_t>(co) * n + k];
        out[static_cast<std::size_t>(co)] = detail::finish(l, p, co, acc);
      }
      break;
    }
    case op::maxpool:
    case op::avgpool:
      for (int oy = 0; oy < os.h; ++oy)
        for (int ox = 0; ox < os.w; ++ox)
          for (int c = 0; c < os.c; ++c) {
            std::int64_t acc = 0;
            std::int32_t mx = -2147483647 - 1;  // padding never wins a max (skipped below)
            for (int ky = 0; ky < l.kernel.h; ++ky)
              for (int kx = 0; kx < l.kernel.w; ++kx) {
                const int iy = oy * l.stride.h - l.pad.t + ky;
                const int ix = ox * l.stride.w - l.pad.l + kx;
                if (iy < 0 || iy >= is.h || ix < 0 || ix >= is.w) continue;
                const std::int32_t v = in[hwc(is, iy, ix, c)];
                acc += v;
                mx = v > mx ? v : mx;
              }
            out[hwc(os, oy, ox, c)] = l.kind == op::maxpool ? mx : apply(l.quant, acc);
          }
      break;
    case op::add:
      for (std::size_t k = 0; k < out.size(); ++k) {
        const std::int64_t s = apply(l.in_scale[0], in[k], l.quant.lo, l.quant.hi) +
                               apply(l.in_scale[1], in2[k], l.quant.lo, l.quant.hi);
        out[k] = apply(l.quant, s);
      }
      break;
  }
}

}  // namespace ctile::reference
