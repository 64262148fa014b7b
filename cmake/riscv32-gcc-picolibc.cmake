# RV32IMC bare metal with GCC (Debian's riscv64-unknown-elf, whose rv32im/ilp32 multilib serves
# rv32imc) and picolibc, running under QEMU (`-M virt -bios none -kernel prog.elf
# -semihosting-config enable=on,target=native`): flash at 0x80000000, RAM at 0x80200000,
# stdio and exit through semihosting. No libstdc++ exists for this target in Debian: C++
# headers come from the bare-metal libstdc++ of arm-none-eabi (header-only use; no exceptions,
# no RTTI), and executables are linked through the C driver.
#   cmake -S app -B build --toolchain cmake/riscv32-gcc-picolibc.cmake
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv32)
set(CMAKE_C_COMPILER riscv64-unknown-elf-gcc)
set(CMAKE_CXX_COMPILER riscv64-unknown-elf-g++)
set(CMAKE_ASM_COMPILER riscv64-unknown-elf-gcc)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(CTILE_RV_ARCH "-march=rv32imc -mabi=ilp32")
set(CTILE_NEWLIB_CXX "/usr/include/newlib/c++/12.2.1" CACHE PATH "Bare-metal libstdc++ headers")
set(CMAKE_C_FLAGS_INIT "${CTILE_RV_ARCH} --specs=picolibc.specs")
set(CMAKE_ASM_FLAGS_INIT "${CTILE_RV_ARCH}")
set(CMAKE_CXX_FLAGS_INIT
    "${CTILE_RV_ARCH} --specs=picolibc.specs -isystem ${CTILE_NEWLIB_CXX} -isystem ${CTILE_NEWLIB_CXX}/arm-none-eabi -fno-exceptions -fno-rtti -fno-threadsafe-statics")
set(CMAKE_EXE_LINKER_FLAGS_INIT
    "--specs=picolibc.specs --oslib=semihost --crt0=semihost -Wl,--defsym=__flash=0x80000000 -Wl,--defsym=__flash_size=0x200000 -Wl,--defsym=__ram=0x80200000 -Wl,--defsym=__ram_size=0x200000")
set(CMAKE_CXX_LINK_EXECUTABLE
    "riscv64-unknown-elf-gcc ${CTILE_RV_ARCH} <LINK_FLAGS> <CMAKE_CXX_LINK_FLAGS> <OBJECTS> -o <TARGET> <LINK_LIBRARIES>")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
