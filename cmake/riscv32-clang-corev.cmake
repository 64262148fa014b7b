# CV32E40P (CORE-V: xcvsimd, xcvmac, xcvalu, xcvmem, xcvbi) with clang-19, picolibc headers and
# the bare-metal libstdc++ headers of arm-none-eabi. The kernels select their CORE-V backend
# (inline assembly, hardware loops through .insn). QEMU cannot execute these instructions:
# such builds are inspected (llvm-objdump-19 --mattr=+xcvsimd,+xcvmac,+xcvmem,+xcvalu,+xcvbi)
# or run on a model of the core. lld cannot read picolibc's linker script, so hosted
# executables are linked by the GNU linker through the picolibc specs (same layout as
# riscv32-gcc-picolibc.cmake); freestanding programs bring their own script and use lld.
#   cmake -S app -B build --toolchain cmake/riscv32-clang-corev.cmake
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv32)
set(CMAKE_C_COMPILER clang-19)
set(CMAKE_CXX_COMPILER clang++-19)
set(CMAKE_ASM_COMPILER clang-19)
set(CMAKE_C_COMPILER_TARGET riscv32-unknown-elf)
set(CMAKE_CXX_COMPILER_TARGET riscv32-unknown-elf)
set(CMAKE_ASM_COMPILER_TARGET riscv32-unknown-elf)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(CTILE_RV_ARCH "-march=rv32imc_xcvsimd_xcvmac_xcvalu_xcvmem_xcvbi -mabi=ilp32")
set(CTILE_PICOLIBC "/usr/lib/picolibc/riscv64-unknown-elf" CACHE PATH "picolibc for RISC-V")
set(CTILE_NEWLIB_CXX "/usr/include/newlib/c++/12.2.1" CACHE PATH "Bare-metal libstdc++ headers")
set(CMAKE_C_FLAGS_INIT "${CTILE_RV_ARCH} -isystem ${CTILE_PICOLIBC}/include")
set(CMAKE_ASM_FLAGS_INIT "${CTILE_RV_ARCH}")
set(CMAKE_CXX_FLAGS_INIT
    "${CTILE_RV_ARCH} -nostdinc++ -isystem ${CTILE_PICOLIBC}/include -isystem ${CTILE_NEWLIB_CXX} -isystem ${CTILE_NEWLIB_CXX}/arm-none-eabi -fno-exceptions -fno-rtti -fno-threadsafe-statics")
set(CMAKE_EXE_LINKER_FLAGS_INIT
    "--specs=picolibc.specs --oslib=semihost --crt0=semihost -Wl,--defsym=__flash=0x80000000 -Wl,--defsym=__flash_size=0x200000 -Wl,--defsym=__ram=0x80200000 -Wl,--defsym=__ram_size=0x200000")
set(CMAKE_CXX_LINK_EXECUTABLE
    "riscv64-unknown-elf-gcc -march=rv32imc -mabi=ilp32 <LINK_FLAGS> <CMAKE_CXX_LINK_FLAGS> <OBJECTS> -o <TARGET> <LINK_LIBRARIES>")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
