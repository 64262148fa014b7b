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

/// Whether the windows of the outputs [o0, o0 + n) of an axis (input `in`, window `e`, stride
/// `s`, padding `pad_lo` before) together span at least one input element: with padding as
/// large as the window, the first or last outputs may read padding only.
constexpr bool outputs_reach_input(int in, int e, int s, int pad_lo, int o0, int n) {
  const int first = o0 * s - pad_lo;                   // first input element of the first window
  const int last = (o0 + n - 1) * s - pad_lo + e - 1;  // last element of the last window
  return n > 0 && last >= 0 && first <= in - 1;
}

/// Whether every tile of an axis of `out` outputs cut in tiles of `t` reads at least one input
/// element (a tile wholly in padding has no input to load). The windows move monotonically, so
/// the first and last tiles decide.
constexpr bool tiles_reach_input(int in, int out, int e, int s, int pad_lo, int t) {
  if (t <= 0 || out <= 0) return false;
  if (t > out) t = out;
  const int last0 = (out - 1) / t * t;
  return outputs_reach_input(in, e, s, pad_lo, 0, t) &&
         outputs_reach_input(in, e, s, pad_lo, last0, out - last0);
}

}  // namespace ctile
