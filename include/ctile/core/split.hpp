// How a layer's tile is divided among the cluster's cores. Chosen per layer by the planner,
// obeyed by the kernels.
#pragma once

#include <cstdint>

namespace ctile {

enum class split_kind : std::uint8_t {
  rows,      ///< each core computes a band of output rows (PULP-NN's default)
  cols,      ///< each core computes a band of output columns
  channels,  ///< each core computes a group of output channels
  grid,      ///< V sub-images (row bands) x K filter groups, V * K = cores
};

constexpr const char* split_name(split_kind k) {
  switch (k) {
    case split_kind::rows:
      return "rows";
    case split_kind::cols:
      return "cols";
    case split_kind::channels:
      return "channels";
    case split_kind::grid:
      return "grid";
  }
  return "?";
}

/// A split policy: for `grid`, `v` sub-images times `k` filter groups; ignored otherwise.
struct core_split {
  split_kind kind = split_kind::rows;
  int v = 1;
  int k = 1;
  friend constexpr bool operator==(const core_split&, const core_split&) = default;
};

/// The half-open range [begin, end) of `n` items that part `i` of `parts` gets: contiguous
/// bands of ceil(n / parts) items, the last ones possibly shorter or empty.
struct band {
  int begin = 0;
  int end = 0;
  [[nodiscard]] constexpr int size() const { return end > begin ? end - begin : 0; }
};
constexpr band band_of(int n, int parts, int i) {
  const int chunk = (n + parts - 1) / parts;
  const int b = i * chunk < n ? i * chunk : n;
  const int e = b + chunk < n ? b + chunk : n;
  return {b, e};
}

}  // namespace ctile
