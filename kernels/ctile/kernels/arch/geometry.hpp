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

/// The steps of the 4 x 4 single-row atom: pixels `ps` bytes apart, filters `k` = 4 words
/// bytes apart, and the steps back from the fourth pixel / filter to the next word of the
/// first (the CORE-V loop walks one pointer over the 4 pixels and one over the 4 filters).
struct quad_steps {
  long ps, k;
  long ba, bw;  ///< 4 - 3 ps, 4 - 3 k
  int words;    ///< per row, >= 1
};

constexpr quad_steps quad_steps_of(long ps, int words) {
  return {ps, 4L * words, 4 - 3 * ps, 4 - 12L * words, words};
}

/// Where a 4 x 4 block's outputs go and how they are requantized (kinds 0..2 of
/// atoms::fast_requant): the CORE-V block reads these from memory once its loop has freed the
/// registers.
struct quad_out {
  std::int32_t t_hi;
  std::uint32_t mul;
  std::int32_t shift, hi;
  long oc;          ///< bytes from one pixel's outputs to the next pixel's
  std::uint8_t* o;  ///< pixel 0's output of the block's first channel
  const std::int32_t *bias, *kappa, *lambda;  ///< the block's first channel (any when unused)
  long cs = 1;  ///< bytes from one channel's outputs to the next channel's (HWC: 1)
};

/// Everything the CORE-V run of 4 x 4 blocks over one group of 4 pixels reads, as plain words
/// on the stack (the loop leaves no register for pointers to them): the steps of quad_steps,
/// the requantization of quad_out, and the pointers the run moves from block to block.
struct quad_run {
  const std::uint8_t* a;  ///< pixel 0
  long ps, k, ba, bw;     ///< as in quad_steps
  std::int32_t words_minus_1;
  std::int32_t blocks;
  std::int32_t t_hi;  ///< kind 0: min(t_hi >> shift, hi) (see quad_out)
  std::uint32_t mul;
  std::int32_t shift, hi;
  long oc;  ///< the packed stores' step: HWC, pixel to pixel; channel-major, channel to channel
  long ob;  ///< the last store's step: HWC, 4 - 3 oc (to the next block's pixel 0); else oc
  const std::int8_t* w;  ///< the block's filter 0 (moved on by 4 k per block)
  std::uint8_t* o;       ///< pixel 0's output of the block's channel 0 (moved on by 4)
  const std::int32_t *bias, *kappa, *lambda;  ///< the block's channel 0 (moved on by 4)
};

static_assert(sizeof(rows_geometry) == 20, "the assembly reads rows_geometry as five words.");

}  // namespace ctile::kernels
