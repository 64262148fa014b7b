// The range of t (the value requantization divides) a layer can produce, from its dims alone
// (worst case over all weights and inputs) or from its constant data, and the exact
// requantization plan that follows. constexpr: a planner calls it at compile time on the
// generated constants, a runtime loader at run time.
#pragma once

#include <cstdint>

#include "ctile/kernels/requant.hpp"
#include "ctile/layers/layer.hpp"
#include "ctile/network/params.hpp"

namespace ctile::kernels {

namespace detail {

constexpr std::int64_t i32_min = -2147483647 - 1;
constexpr std::int64_t i32_max = 2147483647;

/// Products input x s8 weight summed over a layer's taps (per output value).
constexpr std::int64_t taps_of(const layer& l) {
  switch (l.kind) {
    case op::conv:
      return std::int64_t{l.kernel.h} * l.kernel.w * l.in.c;
    case op::depthwise:
      return std::int64_t{l.kernel.h} * l.kernel.w;
    case op::linear:
      return l.in.elements();
    default:
      return 0;
  }
}

/// t = kappa * acc + lambda for acc in [a.lo, a.hi].
constexpr t_range affine(t_range a, std::int64_t kappa, std::int64_t lambda) {
  const std::int64_t x = kappa * a.lo + lambda;
  const std::int64_t y = kappa * a.hi + lambda;
  return x <= y ? t_range{x, y} : t_range{y, x};
}

constexpr t_range hull(t_range a, t_range b) {
  return {a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
}

constexpr t_range rescaled(const rescale& r, value_range in, int lo, int hi) {
  const std::int64_t x = apply(r, in.lo, lo, hi);
  const std::int64_t y = apply(r, in.hi, lo, hi);
  return x <= y ? t_range{x, y} : t_range{y, x};
}

/// The sum of w * x over weights whose positive ones add up to `pos` and negative ones to
/// `neg`, for inputs x in `in`.
constexpr t_range weighted(std::int64_t pos, std::int64_t neg, value_range in) {
  return {pos * in.lo + neg * in.hi, pos * in.hi + neg * in.lo};
}

}  // namespace detail

/// Worst-case range of t from the layer's dims only: any weights, bias, kappa, lambda.
constexpr t_range worst_t_range(const layer& l) {
  using namespace detail;
  switch (l.kind) {
    case op::conv:
    case op::depthwise:
    case op::linear: {
      const std::int64_t k = taps_of(l);
      // Every tap: any weight in -128..127 times any input in l.in_range.
      const t_range tap = hull(weighted(127, 0, l.in_range), weighted(0, -128, l.in_range));
      t_range acc{tap.lo * k, tap.hi * k};
      if (l.bias) acc = {acc.lo + i32_min, acc.hi + i32_max};
      if (!l.batchnorm) return acc;
      const std::int64_t mag = (acc.hi > -acc.lo ? acc.hi : -acc.lo);
      return {-(mag << 31) + i32_min, (mag << 31) + i32_max};
    }
    case op::avgpool: {
      const std::int64_t k = std::int64_t{l.kernel.h} * l.kernel.w;  // padding adds zeros
      return {k * (l.in_range.lo < 0 ? l.in_range.lo : 0),
              k * (l.in_range.hi > 0 ? l.in_range.hi : 0)};
    }
    case op::add: {
      const t_range a = rescaled(l.in_scale[0], l.in_range, l.quant.lo, l.quant.hi);
      const t_range b = rescaled(l.in_scale[1], l.in2_range, l.quant.lo, l.quant.hi);
      return {a.lo + b.lo, a.hi + b.hi};
    }
    default:
      return {0, 255};
  }
}

/// Range of t from the layer's data (weights, bias, kappa, lambda) where given, the worst
/// case for what is missing. Exact per channel, then the hull over channels.
constexpr t_range t_range_of(const layer& l, const layer_params& p) {
  using namespace detail;
  if (!l.has_weights() || p.weights.empty()) return worst_t_range(l);
  const std::int64_t k = l.kind == op::depthwise ? std::int64_t{l.kernel.h} * l.kernel.w
                                                 : static_cast<std::int64_t>(taps_of(l));
  const t_range worst = worst_t_range(l);
  t_range all{};
  for (int c = 0; c < l.out.c; ++c) {
    std::int64_t pos = 0, neg = 0;
    for (std::int64_t i = 0; i < k; ++i) {
      const std::int64_t w = p.weights[static_cast<std::size_t>(c * k + i)];
      (w > 0 ? pos : neg) += w;
    }
    t_range acc = weighted(pos, neg, l.in_range);
    const auto cu = static_cast<std::size_t>(c);
    if (l.bias) {
      if (p.bias.size() > cu)
        acc = {acc.lo + p.bias[cu], acc.hi + p.bias[cu]};
      else
        acc = {acc.lo + i32_min, acc.hi + i32_max};
    }
    t_range t = acc;
    if (l.batchnorm) {
      if (p.kappa.size() > cu && p.lambda.size() > cu)
        t = affine(acc, p.kappa[cu], p.lambda[cu]);
      else
        t = worst;
    }
    all = c == 0 ? t : hull(all, t);
  }
  return all;
}

/// Whether a layer's output is requantized (else its output is raw).
constexpr bool requantizes(const layer& l) {
  return l.requantize && l.kind != op::maxpool && l.kind != op::input;
}

/// The requantization plan of a layer whose t stays in `t` (raw output when the layer does not
/// requantize), for callers that gather t's range themselves (e.g. channel block by block).
constexpr requant_plan plan_for_range(const layer& l, const t_range& t) {
  return requantizes(l) ? plan_requant(l.quant, t) : raw_output();
}

/// The requantization plan of a layer (raw output when the layer does not requantize).
constexpr requant_plan plan_for(const layer& l, const layer_params& p = {}) {
  return requantizes(l) ? plan_requant(l.quant, t_range_of(l, p)) : raw_output();
}

}  // namespace ctile::kernels
