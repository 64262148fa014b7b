// What one command of a cluster DMA may describe. Values, not code paths: every DMA engine
// publishes its limits as `E::limits`, and transfers are split to them at compile time.
#pragma once

#include <cstdint>

namespace ctile::hal {

/// Direction of a cluster DMA command. L1 is the cluster's local memory (TCDM), L2 the SoC
/// memory; 2D (strided) access exists only on the L2 side, the L1 side is always contiguous.
enum class dma_dir : std::uint8_t {
  l2_to_l1,  ///< PMSIS: PI_CL_DMA_DIR_EXT2LOC
  l1_to_l2,  ///< PMSIS: PI_CL_DMA_DIR_LOC2EXT
};

constexpr const char* dma_dir_name(dma_dir d) {
  return d == dma_dir::l2_to_l1 ? "L2->L1" : "L1->L2";
}

struct dma_limits {
  /// Largest command the schedule issues (bytes). GAP-8's MCHAN has a 16-bit length field, but
  /// one report says the silicon honours only 15 bits of it, so the default keeps every
  /// command at or below 32 KiB. A platform that wants the strictly-15-bit reading sets 32767.
  std::uint32_t max_command_bytes = 32 * 1024;
  /// Largest value the hardware length field can hold (MCHAN: 16 bits).
  std::uint32_t length_field_max = 65535;
  /// Largest line length of a 2D command (MCHAN: 15-bit field).
  std::uint32_t max_line_bytes = 32767;
  /// Largest L2-side stride of a 2D command (MCHAN: 15-bit field).
  std::uint32_t max_stride = 32767;
  /// Commands that may be in flight at once (MCHAN: 16 counters, one per command).
  std::uint32_t counters = 16;
  /// Whether the engine has 2D commands at all; without them 2D transfers become 1D lines.
  bool has_2d = true;

  /// Whether the values describe a usable engine.
  [[nodiscard]] constexpr bool valid() const {
    return max_command_bytes > 0 && max_command_bytes <= length_field_max && counters > 0 &&
           (!has_2d || (max_line_bytes > 0 && max_stride > 0));
  }
  friend constexpr bool operator==(const dma_limits&, const dma_limits&) = default;
};

/// GAP-8 cluster DMA (MCHAN v6) with the default safe maximum of 32 KiB per command.
inline constexpr dma_limits gap8_dma_limits{};

/// GAP-8's cluster DMA through the GAP SDK's PMSIS calls. GAP-8's pi_cl_dma_cmd hands a command
/// to the hardware only below 32,768 B (1 << 15); from 32,768 B on it splits it in software
/// with an interrupt-driven pending list shared by all cores (unsafe when several cores program
/// the DMA), and its `unsigned short` size turns 65,536 B into 0. pi_cl_dma_cmd_2d does the
/// same for strides of 32,768 B and more. So 1-D commands stay at or below 32,767 B, and 2-D
/// lines and strides below 32,768 B (the defaults), and the software path is never entered.
inline constexpr dma_limits gap8_pmsis_dma_limits{.max_command_bytes = 32767};
static_assert(gap8_pmsis_dma_limits.max_command_bytes < (1u << 15) &&
              gap8_pmsis_dma_limits.max_line_bytes < (1u << 15) &&
              gap8_pmsis_dma_limits.max_stride < (1u << 15));

}  // namespace ctile::hal
