// network<...>: a sequence of layers as a type. Shapes are inferred and checked when the type
// is used; a wrong declaration stops the build with an error that names the layer.
#pragma once

#include <array>
#include <boost/hana/for_each.hpp>
#include <boost/hana/range.hpp>
#include <cstddef>
#include <span>

#include "ctile/layers/layer.hpp"
#include "ctile/network/diagnostic.hpp"
#include "ctile/network/infer.hpp"
#include "ctile/network/params.hpp"

namespace ctile {

template <layer... Declared>
struct network {
  static constexpr std::size_t size = sizeof...(Declared);
  static_assert(size >= 2, "a network needs an input layer and at least one layer after it");

 private:
  struct inferred {
    std::array<layer, size> layers;
    diagnostic problem;
  };
  static consteval inferred run_inference() {
    inferred r{{Declared...}, {}};
    r.problem = infer(r.layers);
    return r;
  }
  static constexpr inferred result = run_inference();
  // A declaration's problem is one error (error_reported); what reads the network afterwards
  // (plan_of, executor, verify_params) checks `valid` and adds none.
  static_assert(error_reported<result.problem>);

 public:
  /// Whether shape inference accepted the declaration.
  static constexpr bool valid = result.problem.ok();
  /// Every layer, with sources and shapes filled in.
  static constexpr std::array<layer, size> layers = result.layers;
  /// The data a network needs, one entry per layer (empty entries for layers without data).
  using params = std::array<layer_params, size>;

  template <std::size_t I>
  static constexpr const layer& at = layers[I];
  static constexpr shape input_shape = layers[0].out;
  static constexpr shape output_shape = layers[size - 1].out;

  /// Index of the layer called `n` (or -1).
  static constexpr int index_of(name_t n) {
    for (std::size_t i = 0; i < size; ++i)
      if (layers[i].name == n) return static_cast<int>(i);
    return -1;
  }

  static constexpr std::int64_t total_macs() {
    std::int64_t m = 0;
    for (const auto& l : layers) m += l.macs();
    return m;
  }
  static constexpr std::int64_t total_weight_bytes() {
    std::int64_t b = 0;
    for (const auto& l : layers) {
      b += l.weight_count();
      b += std::int64_t{4} * l.channel_params() * ((l.bias ? 1 : 0) + (l.batchnorm ? 2 : 0));
    }
    return b;
  }

  /// Checks bound data at run time (or at compile time, for constexpr data).
  static constexpr params_problem check(const params& p) { return check_params(layers, p); }
};

namespace detail {
template <class Net, const typename Net::params& P>
consteval auto params_error_for() {
  if constexpr (Net::valid) {
    constexpr params_problem r = Net::check(P);
    if constexpr (!r.ok()) {
      constexpr name_t n = Net::layers[r.layer].name;
      return static_cast<error::layer_data_has_the_wrong_size<
          r.layer, fixed_string<n.size() + 1>{n}, r.what, r.expected, r.got>*>(nullptr);
    } else {
      return static_cast<no_error*>(nullptr);
    }
  } else {
    return static_cast<no_error*>(nullptr);
  }
}
}  // namespace detail

/// Compile-time check of constexpr data: stops the build naming the layer and the sizes. The
/// error type's assertion is the one error; this is true either way (use it as
/// `static_assert(verify_params<Net, data>())`; Net::check(data).ok() is the plain test).
template <class Net, const typename Net::params& P>
consteval bool verify_params() {
  return sizeof(std::remove_pointer_t<decltype(detail::params_error_for<Net, P>())>) > 0;
}

template <class T>
concept network_type = requires {
  { T::size } -> std::convertible_to<std::size_t>;
  T::layers;
};

/// Calls f(index) once per layer, with the index as a compile-time constant
/// (std::integral_constant-like: `decltype(i)::value`, usable as `Net::layers[i]`).
template <network_type Net, class F>
constexpr void for_each_layer(F&& f) {
  boost::hana::for_each(
      boost::hana::make_range(boost::hana::size_c<0>, boost::hana::size_c<Net::size>), f);
}

}  // namespace ctile
