#!/bin/sh
# Re-measures the cost model's loop terms (ctile::cost::loop_cost_* in
# include/ctile/plan/cost_model.hpp): builds bench/runtime's rolled and unrolled variants of
# CIFAR-10, MobileNet-v1 1.0-128 and the residual network (its add and pools give the pool
# loop's line more than one tile count) for rv32imc, runs them under the cluster timing model and
# prints code_cost.py's table (paste it into the header) and how far the header is from it.
# Usage: bench/runtime/code_cost.sh [BUILD_DIR]   (default: build/code-cost)
set -e
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:-$root/build/code-cost}
cmake -S "$root/bench/runtime" -B "$bin" -G Ninja \
  --toolchain "$root/cmake/riscv32-gcc-picolibc.cmake" \
  -DCTILE_OVERHEAD_NETWORKS=cifar10_cnn,mobilenet_v1_100_128,resnet_small -DCTILE_OVERHEAD_VARIANTS=ON >/dev/null
cmake --build "$bin"
exec python3 "$root/bench/runtime/code_cost.py" --check "$root/include/ctile/plan/cost_model.hpp" \
  "$bin"/tile_overhead_*_rolled.elf "$bin"/tile_overhead_*_unrolled.elf
