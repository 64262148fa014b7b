// The shape of a receptive field read by the row-wise matrix atoms: `rows` rows of `words`
// words, `pitch` bytes apart. Plain words in a fixed layout: the CORE-V assembly reads them
// from memory by offset.
#pragma once

#include <cstdint>

namespace ctile::kernels {

struct rows_geometry {
  std::int32_t skip;   ///< bytes from the end of a row to the start of the next: pitch - 4 words
  std::int32_t back;   ///< rows * pitch: how far a column pointer moves over all rows
  std::int32_t words;  ///< words per row, >= 1
  std::int32_t rows_minus_1;
  std::int32_t k;  ///< bytes per filter: rows * 4 * words (filters are contiguous over rows)

  [[nodiscard]] constexpr int rows() const { return rows_minus_1 + 1; }
  [[nodiscard]] constexpr std::int32_t pitch() const { return skip + 4 * words; }
};

constexpr rows_geometry rows_geometry_of(std::int32_t pitch, int rows, int words) {
  return {pitch - 4 * words, pitch * rows, words, rows - 1, rows * 4 * words};
}

static_assert(sizeof(rows_geometry) == 20, "the assembly reads rows_geometry as five words.");

}  // namespace ctile::kernels
