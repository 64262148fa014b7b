// Shapes, kernel extents, strides and padding: the plain values every layer is described with.
#pragma once

#include <cstdint>

namespace ctile {

/// A tensor shape in HWC order (activations are channels-last everywhere in ctile).
struct shape {
  int h = 0;
  int w = 0;
  int c = 0;
  [[nodiscard]] constexpr std::int64_t elements() const { return std::int64_t{h} * w * c; }
  friend constexpr bool operator==(const shape&, const shape&) = default;
};

/// Two spatial extents: a kernel size, a stride.
struct extent2 {
  int h = 1;
  int w = 1;
  friend constexpr bool operator==(const extent2&, const extent2&) = default;
};

/// Zero padding on each side of the input, possibly asymmetric.
struct padding {
  int t = 0;
  int b = 0;
  int l = 0;
  int r = 0;
  friend constexpr bool operator==(const padding&, const padding&) = default;
  /// The same padding on every side.
  static constexpr padding all(int p) { return {p, p, p, p}; }
};

/// The input extent a kernel of `k` taps spans at dilation `d`: (k - 1) * d + 1.
constexpr int dilated_extent(int k, int d) {
  return (k - 1) * d + 1;
}

/// Output extent of a sliding window: floor((in + pads - k) / s) + 1, or 0 when the window
/// does not fit even once.
constexpr int window_out(int in, int pad_lo, int pad_hi, int k, int s) {
  const int span = in + pad_lo + pad_hi - k;
  if (span < 0 || s <= 0) return 0;
  return span / s + 1;
}

}  // namespace ctile
