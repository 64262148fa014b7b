# GAP-8 / PULP cluster cores (RI5CY, XpulpV2) with Debian's GCC: the RV32IMC bare-metal setup of
# riscv32-gcc-picolibc.cmake, and the kernels' XpulpV2 backend (CTILE_KERNELS_XPULPV2: the PULP v2
# instructions emitted as .insn words). QEMU cannot run these instructions; the tests run such
# builds on the instruction-set simulator tests/cross/xpulpv2_iss.py.
#   cmake -S app -B build --toolchain cmake/riscv32-gcc-xpulpv2.cmake
include(${CMAKE_CURRENT_LIST_DIR}/riscv32-gcc-picolibc.cmake)
set(CTILE_KERNELS_XPULPV2 ON CACHE BOOL "the kernels' XpulpV2 backend")
string(APPEND CMAKE_CXX_FLAGS_INIT " -DCTILE_KERNELS_XPULPV2")
