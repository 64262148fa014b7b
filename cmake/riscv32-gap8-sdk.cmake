# GAP-8 with the GAP SDK's runtime and a C++20 compiler that is not the SDK's: Debian's
# riscv64-unknown-elf-gcc 12 (default) or clang-19 (-DCTILE_GAP8_CLANG=ON). C++ headers come from
# the bare-metal libstdc++ of arm-none-eabi (header-only use: no exceptions, no RTTI), C headers
# from the SDK's include/io first, then picolibc's. Use with cmake/ctile_gap_sdk.cmake; see
# docs/gap8.md.
#   cmake -S examples/gap8_sdk -B build/gap8 --toolchain cmake/riscv32-gap8-sdk.cmake \
#         -DGAP_SDK_HOME=$GAP_SDK_HOME
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv32)
option(CTILE_GAP8_CLANG "Build with clang-19 instead of riscv64-unknown-elf-gcc 12" OFF)
if(CTILE_GAP8_CLANG)
  set(CMAKE_C_COMPILER clang-19)
  set(CMAKE_CXX_COMPILER clang++-19)
  set(CMAKE_C_COMPILER_TARGET riscv32-unknown-elf)
  set(CMAKE_CXX_COMPILER_TARGET riscv32-unknown-elf)
  set(CMAKE_ASM_COMPILER_TARGET riscv32-unknown-elf)
  set(cxx_extra "-nostdinc++")
else()
  set(CMAKE_C_COMPILER riscv64-unknown-elf-gcc)
  set(CMAKE_CXX_COMPILER riscv64-unknown-elf-g++)
  set(cxx_extra "")
endif()
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CTILE_NEWLIB_CXX "/usr/include/newlib/c++/12.2.1" CACHE PATH "Bare-metal libstdc++ headers")
set(CTILE_PICOLIBC "/usr/lib/picolibc/riscv64-unknown-elf" CACHE PATH "picolibc for RISC-V")
set(CMAKE_C_FLAGS_INIT "-march=rv32imc_zicsr -mabi=ilp32 -idirafter ${CTILE_PICOLIBC}/include")
set(CMAKE_CXX_FLAGS_INIT
    "-march=rv32imc_zicsr -mabi=ilp32 ${cxx_extra} -isystem ${CTILE_NEWLIB_CXX} -isystem ${CTILE_NEWLIB_CXX}/arm-none-eabi -idirafter ${CTILE_PICOLIBC}/include")
# Executables are linked by the GNU driver (lld cannot read every GNU link script).
set(CMAKE_CXX_LINK_EXECUTABLE
    "riscv64-unknown-elf-gcc <FLAGS> <LINK_FLAGS> <CMAKE_CXX_LINK_FLAGS> <OBJECTS> -o <TARGET> <LINK_LIBRARIES>")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
