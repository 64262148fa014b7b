// Declaring a network from a constexpr array of layers (for generated, repetitive nets), and
// numbered layer names.
#pragma once

#include <array>
#include <cstddef>
#include <utility>

#include <ctile/ctile.hpp>

namespace ctile::examples {

namespace detail {
template <auto Layers, std::size_t... I>
network<Layers[I]...> network_from_impl(std::index_sequence<I...>);
}  // namespace detail

/// network<Layers[0], Layers[1], ...> for a constexpr std::array of layers.
template <auto Layers>
using network_from =
    decltype(detail::network_from_impl<Layers>(std::make_index_sequence<Layers.size()>{}));

/// "prefix" followed by the decimal digits of n (e.g. "dw3").
template <std::size_t N>
constexpr name_t numbered(const char (&prefix)[N], int n) {
  char buf[max_name] = {};
  std::size_t i = 0;
  for (; i + 1 < N && prefix[i] != '\0'; ++i) buf[i] = prefix[i];
  char digits[12] = {};
  int d = 0;
  do {
    digits[d++] = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n > 0);
  while (d > 0 && i + 1 < max_name) buf[i++] = digits[--d];
  return name_t(buf, i);
}

/// A builder that appends layers to a fixed-capacity array.
template <std::size_t Cap>
struct layer_list {
  std::array<layer, Cap> items{};
  std::size_t n = 0;
  constexpr layer_list& operator<<(const layer& l) {
    items[n++] = l;
    return *this;
  }
};

/// The first `N` layers of a builder.
template <std::size_t N, std::size_t Cap>
constexpr std::array<layer, N> take(const layer_list<Cap>& l) {
  std::array<layer, N> r{};
  for (std::size_t i = 0; i < N; ++i) r[i] = l.items[i];
  return r;
}

}  // namespace ctile::examples
