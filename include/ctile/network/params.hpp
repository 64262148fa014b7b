// Constant data bound to a network: weights, bias, kappa, lambda per layer. Held by span, so
// the data can be constexpr arrays in a generated header or the user's own arrays in L2/L3.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "ctile/layers/layer.hpp"

namespace ctile {

/// One layer's constant data. Spans left empty for what the layer does not use.
struct layer_params {
  std::span<const std::int8_t>
      weights{};  ///< conv [Cout][Kh][Kw][Cin], dw [C][Kh][Kw], fc [Cout][H*W*C]
  std::span<const std::int32_t> bias{};    ///< [Cout]
  std::span<const std::int32_t> kappa{};   ///< [Cout]
  std::span<const std::int32_t> lambda{};  ///< [Cout]
};

/// What binding found wrong, if anything.
struct params_problem {
  enum class field : unsigned char { none, weights, bias, kappa, lambda } what = field::none;
  int layer = -1;
  std::int64_t expected = 0;
  std::int64_t got = 0;
  [[nodiscard]] constexpr bool ok() const { return what == field::none; }
};

constexpr const char* field_name(params_problem::field f) {
  switch (f) {
    case params_problem::field::weights:
      return "weights";
    case params_problem::field::bias:
      return "bias";
    case params_problem::field::kappa:
      return "kappa";
    case params_problem::field::lambda:
      return "lambda";
    default:
      return "none";
  }
}

/// Checks every layer's data against the sizes its (inferred) shape implies.
constexpr params_problem check_params(std::span<const layer> ls, std::span<const layer_params> ps) {
  using f = params_problem::field;
  for (std::size_t i = 0; i < ls.size(); ++i) {
    const layer& l = ls[i];
    const layer_params p = i < ps.size() ? ps[i] : layer_params{};
    const int li = static_cast<int>(i);
    const auto want = [&](f what, std::int64_t expected, std::size_t got) -> params_problem {
      if (static_cast<std::int64_t>(got) != expected)
        return {what, li, expected, static_cast<std::int64_t>(got)};
      return {};
    };
    const std::int64_t ch = l.channel_params();
    if (auto r = want(f::weights, l.weight_count(), p.weights.size()); !r.ok()) return r;
    if (auto r = want(f::bias, l.bias ? ch : 0, p.bias.size()); !r.ok()) return r;
    if (auto r = want(f::kappa, l.batchnorm ? ch : 0, p.kappa.size()); !r.ok()) return r;
    if (auto r = want(f::lambda, l.batchnorm ? ch : 0, p.lambda.size()); !r.ok()) return r;
  }
  return {};
}

namespace error {
template <int Layer, auto Name, params_problem::field Field, std::int64_t Expected,
          std::int64_t Got>
struct layer_data_has_the_wrong_size {
  static_assert(Layer < 0,
                "the data bound to a layer does not have the size its shape implies "
                "(Expected vs Got elements of Field)");
};
}  // namespace error

}  // namespace ctile
