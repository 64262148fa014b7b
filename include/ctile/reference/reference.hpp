// The oracle: naive loops with the exact integer semantics (reference/layer.hpp), and
// host conveniences that return every layer's output.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "ctile/reference/layer.hpp"

namespace ctile::reference {

/// A layer output as plain integers (u8 activations or int32 logits), HWC order.
using values = std::vector<std::int32_t>;

/// Runs one layer. `in2` is the second input of an add (empty otherwise).
inline values run_layer(const layer& l, const layer_params& p, std::span<const std::int32_t> in,
                        std::span<const std::int32_t> in2 = {}) {
  values out(static_cast<std::size_t>(l.out.elements()), 0);
  run_layer_into(l, p, in, in2, out);
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

/// Per layer, how many output values saturation changed (`layer::saturating`, for layers
/// whose unclipped range exceeded the container): each such layer runs again without the
/// clip on the same inputs, and the values outside the container are counted. `outs` is
/// `run`'s result for the same network.
inline std::vector<std::int64_t> saturation_counts(std::span<const layer> ls,
                                                   std::span<const layer_params> ps,
                                                   const std::vector<values>& outs) {
  std::vector<std::int64_t> n(ls.size(), 0);
  for (std::size_t i = 0; i < ls.size() && i < outs.size(); ++i) {
    if (!ls[i].saturated) continue;
    layer wide = ls[i];
    wide.quant.lo = no_clip.lo, wide.quant.hi = no_clip.hi;
    const values empty;
    const values& b = wide.src[1] >= 0 ? outs[static_cast<std::size_t>(wide.src[1])] : empty;
    const values y = run_layer(wide, i < ps.size() ? ps[i] : layer_params{},
                               outs[static_cast<std::size_t>(wide.src[0])], b);
    for (const std::int32_t v : y) n[i] += ls[i].quant.clip().contains(v) ? 0 : 1;
  }
  return n;
}

/// Convenience for u8 inputs.
inline std::vector<values> run(std::span<const layer> ls, std::span<const layer_params> ps,
                               std::span<const std::uint8_t> input) {
  const values in(input.begin(), input.end());
  return run(ls, ps, std::span<const std::int32_t>(in));
}

}  // namespace ctile::reference
