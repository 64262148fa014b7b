// Accumulator -> output: bias, batch-norm (kappa/lambda), exact requantization.
#pragma once

#include <cstdint>

#include "ctile/kernels/args.hpp"
#include "ctile/kernels/requant.hpp"

namespace ctile::kernels::atoms {

/// The output value of tile-local channel `co` for an int32 accumulator. Bias is applied when
/// `a.bias` is set, batch-norm when `a.kappa` is set (then `a.lambda` must be too). In 32 bits
/// (wrapping, exact when the plan proves t fits int32), else in 64 bits.
inline std::int32_t finish(const tile_args& a, int co, std::int32_t acc) {
  const requant_plan& q = a.quant;
  if (!q.t64) {
    std::uint32_t t = static_cast<std::uint32_t>(acc);
    if (a.bias != nullptr) t += static_cast<std::uint32_t>(a.bias[co]);
    if (a.kappa != nullptr)
      t = t * static_cast<std::uint32_t>(a.kappa[co]) + static_cast<std::uint32_t>(a.lambda[co]);
    return requantize(q, static_cast<std::int32_t>(t));
  }
  std::int64_t t = acc;
  if (a.bias != nullptr) t += a.bias[co];
  if (a.kappa != nullptr) t = std::int64_t{a.kappa[co]} * t + a.lambda[co];
  return requantize64(q, t);
}

}  // namespace ctile::kernels::atoms
