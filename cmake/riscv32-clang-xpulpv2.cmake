# GAP-8 / PULP cluster cores (RI5CY, XpulpV2) with clang-19 for plain rv32imc, picolibc headers and
# the bare-metal libstdc++ headers of arm-none-eabi, and the kernels' XpulpV2 backend
# (CTILE_KERNELS_XPULPV2). Hosted executables are linked by the GNU linker through the picolibc
# specs (as riscv32-clang-corev.cmake does); freestanding programs bring their own script.
#   cmake -S app -B build --toolchain cmake/riscv32-clang-xpulpv2.cmake
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv32)
set(CMAKE_C_COMPILER clang-19)
set(CMAKE_CXX_COMPILER clang++-19)
set(CMAKE_ASM_COMPILER clang-19)
set(CMAKE_C_COMPILER_TARGET riscv32-unknown-elf)
set(CMAKE_CXX_COMPILER_TARGET riscv32-unknown-elf)
set(CMAKE_ASM_COMPILER_TARGET riscv32-unknown-elf)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(CTILE_KERNELS_XPULPV2 ON CACHE BOOL "the kernels' XpulpV2 backend")
set(CTILE_RV_ARCH "-march=rv32imc -mabi=ilp32")
set(CTILE_PICOLIBC "/usr/lib/picolibc/riscv64-unknown-elf" CACHE PATH "picolibc for RISC-V")
set(CTILE_NEWLIB_CXX "/usr/include/newlib/c++/12.2.1" CACHE PATH "Bare-metal libstdc++ headers")
set(CMAKE_C_FLAGS_INIT "${CTILE_RV_ARCH} -isystem ${CTILE_PICOLIBC}/include")
set(CMAKE_ASM_FLAGS_INIT "${CTILE_RV_ARCH}")
set(CMAKE_CXX_FLAGS_INIT
    "${CTILE_RV_ARCH} -DCTILE_KERNELS_XPULPV2 -nostdinc++ -isystem ${CTILE_PICOLIBC}/include -isystem ${CTILE_NEWLIB_CXX} -isystem ${CTILE_NEWLIB_CXX}/arm-none-eabi -fno-exceptions -fno-rtti -fno-threadsafe-statics")
set(CMAKE_EXE_LINKER_FLAGS_INIT
    "--specs=picolibc.specs --oslib=semihost --crt0=semihost -Wl,--defsym=__flash=0x80000000 -Wl,--defsym=__flash_size=0x200000 -Wl,--defsym=__ram=0x80200000 -Wl,--defsym=__ram_size=0x200000")
set(CMAKE_CXX_LINK_EXECUTABLE
    "riscv64-unknown-elf-gcc ${CTILE_RV_ARCH} <LINK_FLAGS> <CMAKE_CXX_LINK_FLAGS> <OBJECTS> -o <TARGET> <LINK_LIBRARIES>")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
