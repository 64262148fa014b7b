// The oracle: naive loops with the exact integer semantics, one layer at a time. Kept simple
// on purpose; every optimized path in ctile is tested against it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "ctile/layers/layer.hpp"
#include "ctile/network/params.hpp"

namespace ctile::reference {

/// A layer output as plain integers (u8 activations or int32 logits), HWC order.
using values = std::vector<std::int32_t>;

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

/// Runs one layer. `in2` is the second input of an add (empty otherwise).
inline values run_layer(const layer& l, const layer_params& p, std::span<const std::int32_t> in,
                        std::span<const std::int32_t> in2 = {}) {
  using detail::hwc;
  values out(static_cast<std::size_t>(l.out.elements()), 0);
  const shape& is = l.in;
  const shape& os = l.out;
  switch (l.kind) {
    case op::input:
      out.assign(in.begin(), in.end());
      break;
    case op::conv:
    case op::depthwise:
      for (int oy = 0; oy < os.h; ++oy)
        for (int ox = 0; ox < os.w; ++ox)
          for (int co = 0; co < os.c; ++co) {
            std::int64_t acc = 0;
            for (int ky = 0; ky < l.kernel.h; ++ky)
              for (int kx = 0; kx < l.kernel.w; ++kx) {
                const int iy = oy * l.stride.h - l.pad.t + ky;
                const int ix = ox * l.stride.w - l.pad.l + kx;
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
            std::int32_t mx = 0;  // inputs are >= 0; padding never wins a max
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
  return out;
}

/// Runs a whole network; returns every layer's output (index 0 holds the input).
inline std::vector<values> run(std::span<const layer> ls, std::span<const layer_params> ps,
                               std::span<const std::int32_t> input) {
  std::vector<values> outs(ls.size());
  for (std::size_t i = 0; i < ls.size(); ++i) {
    const layer& l = ls[i];
    if (l.kind == op::input) {
      outs[i].assign(input.begin(), input.end());
      continue;
    }
    const values& a = outs[static_cast<std::size_t>(l.src[0])];
    const values empty;
    const values& b = l.src[1] >= 0 ? outs[static_cast<std::size_t>(l.src[1])] : empty;
    outs[i] = run_layer(l, i < ps.size() ? ps[i] : layer_params{}, a, b);
  }
  return outs;
}

/// Convenience for u8 inputs.
inline std::vector<values> run(std::span<const layer> ls, std::span<const layer_params> ps,
                               std::span<const std::uint8_t> input) {
  const values in(input.begin(), input.end());
  return run(ls, ps, std::span<const std::int32_t>(in));
}

}  // namespace ctile::reference
