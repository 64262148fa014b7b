#!/bin/sh
# Runs the CORE-V cycle programs (bench/kernels/cycles) on the CV32E40P RTL simulated with
# Verilator and prints one line per program.
#
#   bench/kernels/rtl/run.sh <cv32e40p checkout>
#
# <cv32e40p checkout> is a CV32E40P v1.8.x source tree (rtl/, rtl/include/, bhv/). The core is
# built as cv32e40p_top with COREV_PULP=1, FPU=0 (tb.cpp: 1 MiB RAM at 0, grant in the request
# cycle, response in the next one, boot address 0x80).
# Environment: BUILD (default build/rtl), VERILATOR (default verilator), JOBS (default 2).
set -eu

if [ $# -lt 1 ]; then
  echo "usage: $0 <cv32e40p checkout>" >&2
  exit 2
fi
SRC=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
BUILD=${BUILD:-$ROOT/build/rtl}
VERILATOR=${VERILATOR:-verilator}
JOBS=${JOBS:-2}
mkdir -p "$BUILD"
BUILD=$(cd "$BUILD" && pwd)

# The cycle programs, built with the clang CORE-V toolchain.
if [ ! -f "$BUILD/cycles-corev/build.ninja" ]; then
  cmake -S "$ROOT/bench/kernels/cycles" -B "$BUILD/cycles-corev" -G Ninja \
    --toolchain "$ROOT/cmake/riscv32-clang-corev.cmake" > "$BUILD/cycles-corev.log"
fi
cmake --build "$BUILD/cycles-corev" -j "$JOBS" >> "$BUILD/cycles-corev.log"

# RTL file list: packages first, then the core without the FPU wrapper (FPU=0).
ID_STAGE="$SRC/rtl/cv32e40p_id_stage.sv"
FILES="$SRC/rtl/include/cv32e40p_apu_core_pkg.sv"
[ -f "$SRC/rtl/include/cv32e40p_fpu_pkg.sv" ] && FILES="$FILES $SRC/rtl/include/cv32e40p_fpu_pkg.sv"
FILES="$FILES $SRC/rtl/include/cv32e40p_pkg.sv"
for f in "$SRC"/rtl/cv32e40p_*.sv; do
  case "$(basename "$f")" in
    cv32e40p_fp_wrapper.sv | cv32e40p_id_stage.sv | cv32e40p_register_file_latch.sv) ;;
    *) FILES="$FILES $f" ;;
  esac
done
FILES="$FILES $ID_STAGE $SRC/bhv/cv32e40p_sim_clock_gate.sv"
# cv32e40p_top names the FPU wrapper in its FPU=1 branch; with FPU=0 an empty one suffices.
cat > "$BUILD/fp_wrapper_unused.sv" << 'SV'
module cv32e40p_fp_wrapper #(parameter FPU_ADDMUL_LAT = 0, parameter FPU_OTHERS_LAT = 0) (
    input logic clk_i, input logic rst_ni, input logic apu_req_i, output logic apu_gnt_o,
    input logic apu_operands_i, input logic apu_op_i, input logic apu_flags_i,
    output logic apu_rvalid_o, output logic apu_rdata_o, output logic apu_rflags_o);
  assign apu_gnt_o = 1'b0;
  assign apu_rvalid_o = 1'b0;
  assign apu_rdata_o = 1'b0;
  assign apu_rflags_o = 1'b0;
endmodule
SV
FILES="$FILES $BUILD/fp_wrapper_unused.sv"

OBJ="$BUILD/obj"
# shellcheck disable=SC2086
"$VERILATOR" --cc --exe --build -j "$JOBS" -O3 --x-assign fast --x-initial fast --no-timing \
  -Wno-fatal -Wno-lint -Wno-style -Wno-MULTIDRIVEN -Wno-UNOPTFLAT -Wno-COMBDLY \
  -Wno-BLKANDNBLK -Wno-PINMISSING --top-module cv32e40p_top -GCOREV_PULP=1 -GFPU=0 \
  -CFLAGS "-O2 -std=c++17" --Mdir "$OBJ" -o Vtb $FILES "$HERE/tb.cpp" > "$BUILD/verilator.log"

STATUS=0
for k in conv3x3 pointwise pointwise_c64 pointwise_c256 depthwise3x3 depthwise3x3_shift linear maxpool \
  avgpool add wide_conv3x3 wide_pointwise wide_depthwise3x3 wide_linear wide_avgpool wide_add \
  wide_maxpool; do
  if ! "$OBJ/Vtb" "$BUILD/cycles-corev/cycles_$k.elf" 100000000; then
    STATUS=1
  fi
done
exit $STATUS
