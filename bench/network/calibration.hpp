// The cost model's figures for the tiles of the freestanding cycle programs
// (bench/kernels/cycles): the same layer geometry, one core, one tile, through the planner's
// own cost functions (ctile::cost::core_cycles). bench_network prints them next to the
// simulated cycles recorded in bench/README.md; tests/bench compares them with the cycles of
// the programs run on the instruction-set simulator.
#pragma once

#include <array>
#include <cstdint>
#include <ctile/ctile.hpp>
#include <ctile/plan/cost_model.hpp>
#include <ctile/platform/gap8.hpp>

namespace ctile::bench {

struct kernel_tile {
  const char* program;  ///< the `kernel=` name the cycle program prints
  std::int64_t macs;
  std::int64_t model_cycles;
};

namespace detail {
inline constexpr platform one_core = gap8.with_cores(1);

template <class Net>
constexpr kernel_tile tile_of(const char* name, int r, int w, int c) {
  const layer& l = Net::layers[Net::size - 1];
  const tiling_problem P = make_problem(l, one_core);
  return {name, l.macs(), cost::core_cycles(P, r, w, c)};
}

// The programs' tiles: see bench/kernels/cycles/*.cpp and bench/README.md.
using conv3x3_tile =
    network<input(26, 6, 32), conv2d(32, 3).bn().requantized(1, 1 << 14).named("conv3x3")>;
using pointwise_tile =
    network<input(24, 4, 32), pointwise(32).bn().requantized(1, 1 << 12).named("pointwise")>;
using pointwise_c64_tile =
    network<input(24, 4, 64), pointwise(32).bn().requantized(1, 1 << 13).named("pointwise")>;
using pointwise_c256_tile =
    network<input(24, 4, 256), pointwise(32).bn().requantized(1, 1 << 15).named("pointwise")>;
using depthwise_tile =
    network<input(26, 6, 32), depthwise(3).with_bias().requantized(3, 1000).named("dw")>;
using linear_tile = network<input(1, 1, 1024), linear(32).with_bias().requantized(5, 4096)>;
using maxpool_tile = network<input(24, 8, 32), maxpool(2)>;
using avgpool_tile = network<input(24, 8, 32), avgpool(2).requantized(1, 2)>;
using add_tile = network<input(24, 8, 32), add(0, 0)>;
// The wide programs' tiles (wide.cpp): the layer reads (or, the add, writes) a 16-bit tensor,
// here the unclipped sum of the input with itself (0..510).
inline constexpr layer wide_sum = add(0, 0).requantized(1, 1).unclipped();
using wide_conv3x3_tile =
    network<input(10, 6, 16), wide_sum, conv2d(16, 3).bn().requantized(1, 1 << 14)>;
using wide_pointwise_tile =
    network<input(8, 4, 32), wide_sum, pointwise(16).bn().requantized(1, 1 << 13)>;
using wide_depthwise_tile =
    network<input(10, 6, 16), wide_sum, depthwise(3).with_bias().requantized(3, 1000)>;
using wide_linear_tile =
    network<input(1, 1, 512), wide_sum, linear(16).with_bias().requantized(5, 4096)>;
using wide_avgpool_tile =
    network<input(8, 8, 16), wide_sum, avgpool(2).requantized(1, 4).unclipped()>;
using wide_add_tile = network<input(8, 8, 16), wide_sum>;
using wide_maxpool_tile = network<input(8, 8, 16), wide_sum, maxpool(2)>;
}  // namespace detail

/// The model's cycles for each cycle program's tile.
constexpr std::array<kernel_tile, 16> model_kernel_tiles() {
  using namespace detail;
  return {tile_of<conv3x3_tile>("conv3x3", 24, 4, 32),
          tile_of<pointwise_tile>("pointwise", 24, 4, 32),
          tile_of<pointwise_c64_tile>("pointwise_c64", 24, 4, 32),
          tile_of<pointwise_c256_tile>("pointwise_c256", 24, 4, 32),
          tile_of<depthwise_tile>("depthwise3x3", 24, 4, 32),
          tile_of<linear_tile>("linear", 1, 1, 32),
          tile_of<maxpool_tile>("maxpool2x2", 12, 4, 32),
          tile_of<avgpool_tile>("avgpool2x2", 12, 4, 32),
          tile_of<add_tile>("add", 24, 8, 32),
          tile_of<wide_conv3x3_tile>("wide_conv3x3", 8, 4, 16),
          tile_of<wide_pointwise_tile>("wide_pointwise", 8, 4, 16),
          tile_of<wide_depthwise_tile>("wide_depthwise3x3", 8, 4, 16),
          tile_of<wide_linear_tile>("wide_linear", 1, 1, 16),
          tile_of<wide_avgpool_tile>("wide_avgpool2x2", 4, 4, 16),
          tile_of<wide_add_tile>("wide_add", 8, 8, 16),
          tile_of<wide_maxpool_tile>("wide_maxpool2x2", 4, 4, 16)};
}

}  // namespace ctile::bench
