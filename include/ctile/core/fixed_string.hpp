// A string usable as a template argument: layer names in network declarations and diagnostics.
#pragma once

#include <cstddef>

namespace ctile {

/// Longest layer name we keep (longer names are cut; diagnostics still name the layer index).
inline constexpr std::size_t max_name = 40;

/// A fixed-capacity, structural string: a value that can be a template argument.
struct name_t {
  char text[max_name] = {};

  constexpr name_t() = default;
  template <std::size_t N>
  constexpr name_t(const char (&s)[N]) {  // NOLINT: implicit from a literal on purpose
    assign(s, N);
  }
  constexpr name_t(const char* s, std::size_t n) { assign(s, n); }

  [[nodiscard]] constexpr std::size_t size() const {
    std::size_t n = 0;
    while (n < max_name && text[n] != '\0') ++n;
    return n;
  }
  [[nodiscard]] constexpr bool empty() const { return text[0] == '\0'; }
  [[nodiscard]] constexpr const char* c_str() const { return text; }

  friend constexpr bool operator==(const name_t& a, const name_t& b) {
    for (std::size_t i = 0; i < max_name; ++i) {
      if (a.text[i] != b.text[i]) return false;
      if (a.text[i] == '\0') return true;
    }
    return true;
  }

 private:
  // Only the characters are written: the rest stays as the member initializer left it (zero),
  // which GCC then leaves out when it prints the name in a diagnostic (no "\000" padding).
  constexpr void assign(const char* s, std::size_t n) {
    for (std::size_t i = 0; i + 1 < max_name && i < n && s[i] != '\0'; ++i) text[i] = s[i];
  }
};

/// A string literal as a template argument, sized to fit (used in diagnostics and lookups).
template <std::size_t N>
struct fixed_string {
  char text[N] = {};
  constexpr fixed_string(const char (&s)[N]) {  // NOLINT: implicit from a literal on purpose
    for (std::size_t i = 0; i < N; ++i) text[i] = s[i];
  }
  /// Built from a name_t of length N - 1 (used to print names compactly in diagnostics).
  constexpr fixed_string(const name_t& n) {  // NOLINT
    for (std::size_t i = 0; i + 1 < N; ++i) text[i] = n.text[i];
  }
  [[nodiscard]] constexpr name_t name() const { return name_t(text, N); }
};

}  // namespace ctile
