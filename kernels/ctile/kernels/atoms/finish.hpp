// Accumulator -> output: bias, batch-norm (kappa/lambda), exact requantization.
#pragma once

#include <cstdint>

#include "ctile/kernels/arch/isa.hpp"
#include "ctile/kernels/args.hpp"
#include "ctile/kernels/requant.hpp"

namespace ctile::kernels::atoms {

/// The per-output epilogue of a weighted kernel, copied out of the arguments once per call so
/// that its fields stay in registers while the kernel stores bytes. Bias is applied when
/// `bias` is set, batch-norm when `kappa` is set (then `lambda` must be too); t in 32 bits
/// (wrapping, exact when the plan proves t fits int32), else in 64 bits.
struct epilogue {
  const std::int32_t* bias;
  const std::int32_t* kappa;
  const std::int32_t* lambda;
  requant_plan q;

  explicit epilogue(const tile_args& a)
      : bias(a.bias), kappa(a.kappa), lambda(a.lambda), q(a.quant) {}

  [[gnu::always_inline]] std::int32_t operator()(int co, std::int32_t acc) const {
    const bool narrow = q.mode == requant_mode::shift32;
    if (!q.t64 && (narrow || q.mode == requant_mode::mulhi)) {  // the common cases, inline
      std::uint32_t t = static_cast<std::uint32_t>(acc);
      if (bias != nullptr) t += static_cast<std::uint32_t>(bias[co]);
      if (kappa != nullptr)
        t = t * static_cast<std::uint32_t>(kappa[co]) + static_cast<std::uint32_t>(lambda[co]);
      // clipu_r is one instruction on CORE-V (cv.clipur): clamp t to [0, t_hi], y to [0, hi].
      const auto c = static_cast<std::uint32_t>(isa::clipu_r(static_cast<std::int32_t>(t), q.t_hi));
      const auto y = static_cast<std::int32_t>(
          narrow ? (c * q.mul) >> q.shift
                 : static_cast<std::uint32_t>((std::uint64_t{c} * q.mul) >> 32) >> (q.shift - 32));
      return q.lo == 0 ? isa::clipu_r(y, q.hi) : isa::min(isa::max(y, q.lo), q.hi);
    }
    return slow(co, acc);
  }

  /// Every other plan (and t in 64 bits), out of line.
  [[gnu::noinline]] std::int32_t slow(int co, std::int32_t acc) const {
    if (!q.t64) {
      std::uint32_t t = static_cast<std::uint32_t>(acc);
      if (bias != nullptr) t += static_cast<std::uint32_t>(bias[co]);
      if (kappa != nullptr)
        t = t * static_cast<std::uint32_t>(kappa[co]) + static_cast<std::uint32_t>(lambda[co]);
      return requantize(q, static_cast<std::int32_t>(t));
    }
    std::int64_t t = acc;
    if (bias != nullptr) t += bias[co];
    if (kappa != nullptr) t = std::int64_t{kappa[co]} * t + lambda[co];
    return requantize64(q, t);
  }
};

/// The output value of tile-local channel `co` for an int32 accumulator.
inline std::int32_t finish(const tile_args& a, int co, std::int32_t acc) {
  return epilogue(a)(co, acc);
}

}  // namespace ctile::kernels::atoms
