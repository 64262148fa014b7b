# GAP-8 builds against the GAP SDK (gap_sdk 4.x, pulp-os flow) with a C++20 compiler that is not
# the SDK's (Debian's riscv64-unknown-elf-g++ 12 or clang-19): the SDK's headers, defines and
# runtime libraries, as the SDK's rules (tools/rules/pulp_rules.mk) set them. See docs/gap8.md.
#
#   include(ctile_gap_sdk)          # reads GAP_SDK_HOME (cache or environment)
#   ctile_gap_sdk_target(app [CHIP_VERSION 3] [PLATFORM board|gvsoc] [BOARD ai_deck]
#                            [PERMISSIVE] [NO_LINK])
#
# CTILE_GAP_SDK_FOUND tells whether the SDK's GAP-8 headers were found; when they were not (no
# GAP_SDK_HOME), ctile_gap_sdk_target() only prints that the SDK build is skipped.
#   CHIP_VERSION  GAP-8 revision: 1, 2, or 3 (GAP8_V3: GAPuino v3, AI-deck; the default)
#   PLATFORM      board (default) or gvsoc: the SDK's memory-map script and __PLATFORM_*__
#   BOARD         folder of the BSP library under lib/gap/ (the SDK's BOARD_NAME; default gapuino)
#   PERMISSIVE    -fpermissive (GCC) for SDK releases whose headers have C-only conversions
#   NO_LINK       compile flags only (for object libraries)
# The install folders default to the SDK's: $TARGET_INSTALL_DIR / $INSTALL_DIR when the SDK's
# configuration script was sourced, else GAP_SDK_HOME/install/GAP8_V<n> and
# GAP_SDK_HOME/install/workstation (cache: CTILE_GAP_SDK_TARGET_INSTALL_DIR, _INSTALL_DIR).
include_guard(GLOBAL)

if(NOT GAP_SDK_HOME AND DEFINED ENV{GAP_SDK_HOME})
  set(GAP_SDK_HOME "$ENV{GAP_SDK_HOME}")
endif()
set(GAP_SDK_HOME "${GAP_SDK_HOME}" CACHE PATH "GAP SDK checkout (gap_sdk), built for GAP-8")
set(CTILE_GAP_SDK_FOUND FALSE)
if(GAP_SDK_HOME)
  set(_ctile_tid "$ENV{TARGET_INSTALL_DIR}")
  set(_ctile_id "$ENV{INSTALL_DIR}")
  if(NOT _ctile_tid)
    set(_ctile_tid "${GAP_SDK_HOME}/install/GAP8_V3")
  endif()
  if(NOT _ctile_id)
    set(_ctile_id "${GAP_SDK_HOME}/install/workstation")
  endif()
  set(CTILE_GAP_SDK_TARGET_INSTALL_DIR "${_ctile_tid}" CACHE PATH "The SDK's TARGET_INSTALL_DIR")
  set(CTILE_GAP_SDK_INSTALL_DIR "${_ctile_id}" CACHE PATH "The SDK's INSTALL_DIR")
  if(EXISTS "${CTILE_GAP_SDK_TARGET_INSTALL_DIR}/include/pmsis.h")
    set(CTILE_GAP_SDK_FOUND TRUE)
    message(STATUS "ctile: GAP SDK at ${GAP_SDK_HOME} (${CTILE_GAP_SDK_TARGET_INSTALL_DIR})")
  else()
    message(STATUS "ctile: no pmsis.h under ${CTILE_GAP_SDK_TARGET_INSTALL_DIR}/include (build "
                   "the SDK for GAP-8 first): the GAP SDK build is skipped")
  endif()
else()
  message(STATUS "ctile: GAP_SDK_HOME is not set: the GAP SDK build is skipped")
endif()

function(ctile_gap_sdk_target target)
  cmake_parse_arguments(G "PERMISSIVE;NO_LINK" "CHIP_VERSION;PLATFORM;BOARD" "" ${ARGN})
  if(NOT CTILE_GAP_SDK_FOUND)
    message(STATUS "ctile: ${target}: GAP SDK not found, skipped")
    return()
  endif()
  if(NOT G_CHIP_VERSION)
    set(G_CHIP_VERSION 3)
  endif()
  if(NOT G_PLATFORM)
    set(G_PLATFORM board)
  endif()
  if(NOT G_BOARD)
    set(G_BOARD gapuino)
  endif()
  set(tid "${CTILE_GAP_SDK_TARGET_INSTALL_DIR}")
  set(id "${CTILE_GAP_SDK_INSTALL_DIR}")
  # The chip's configuration header, forced in first, and the link script, per revision.
  if(G_CHIP_VERSION EQUAL 1)
    set(chip_conf gap)
    set(link_script link.gap8.ld)
  elseif(G_CHIP_VERSION EQUAL 2)
    set(chip_conf gap_rev1)
    set(link_script link.gap8_rev1.ld)
  elseif(G_CHIP_VERSION EQUAL 3)
    set(chip_conf gap8_revc)
    set(link_script link.gap8_rev2.ld)
  else()
    message(FATAL_ERROR "ctile_gap_sdk_target(${target}): CHIP_VERSION is 1, 2 or 3, not "
                        "${G_CHIP_VERSION}")
  endif()
  if(G_PLATFORM STREQUAL "gvsoc")
    set(platform_def __PLATFORM_GVSOC__)
    set(platform_script gvsoc.conf.ld)
  elseif(G_PLATFORM STREQUAL "board")
    set(platform_def __PLATFORM_BOARD__ __RT_IODEV__=2)
    set(platform_script gapuino.conf.ld)
  else()
    message(FATAL_ERROR "ctile_gap_sdk_target(${target}): PLATFORM is board or gvsoc, not "
                        "${G_PLATFORM}")
  endif()
  # The SDK's defines for GAP-8 (RISCV_FLAGS, GAP_FLAGS, PULP_CFLAGS of its rules);
  # PLP_NO_BUILTIN: the SDK's headers use register accesses instead of __builtin_pulp_*,
  # which only the SDK's own GCC has.
  target_compile_definitions(${target} PRIVATE
    __riscv__ __GAP__ __GAP8__ CHIP_VERSION=${G_CHIP_VERSION} __pulp__ CONFIG_GAP __PULP_OS__
    RT_FC_STACK_SIZE=2048 PLP_NO_BUILTIN ${platform_def})
  target_include_directories(${target} SYSTEM PRIVATE
    ${tid}/include ${tid}/include/io ${id}/include)
  # -march: RV32IMC with Zicsr (the SDK's inline csrr/csrw); the cores' XpulpV2 instructions
  # come from ctile's kernels backend, not from the compiler.
  target_compile_options(${target} PRIVATE
    -march=rv32imc_zicsr -mabi=ilp32 "SHELL:-include ${tid}/include/rt/chips/${chip_conf}/config.h"
    $<$<COMPILE_LANGUAGE:CXX>:-fno-exceptions -fno-rtti -fno-threadsafe-statics>
    -fdata-sections -ffunction-sections)
  if(G_PERMISSIVE)
    target_compile_options(${target} PRIVATE
      $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-fpermissive>)
  endif()
  if(G_NO_LINK)
    return()
  endif()
  # The runtime's configuration object, as the SDK's rules build it with every application.
  get_property(langs GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT "C" IN_LIST langs)
    message(FATAL_ERROR "ctile_gap_sdk_target(${target}): enable C in project() (the SDK's "
                        "rtos/pulp/pulp-os/kernel/conf.c is compiled with the application)")
  endif()
  target_sources(${target} PRIVATE ${GAP_SDK_HOME}/rtos/pulp/pulp-os/kernel/conf.c)
  # The SDK's runtime (pulp-os), I/O and BSP libraries, its link scripts, no other start files.
  target_link_options(${target} PRIVATE
    -march=rv32imc_zicsr -mabi=ilp32 -nostartfiles -nostdlib -Wl,--gc-sections
    -T${id}/ld/${link_script} -T${id}/ld/${platform_script})
  target_link_libraries(${target} PRIVATE
    -L${tid}/lib/gap/${G_BOARD} -lpibsp -L${tid}/lib/gap -lrt -lrtio -lrt -lgcc)
endfunction()
