# Script: build the consumer project against ctile (installed, or as a subdirectory) and run it.
#   MODE=find_package: configure ctile with its default options and `cmake --install` it, with
#     no build step (a header-only library installs without one), then build the consumer from
#     the install tree for the host;
#   MODE=cross: the consumer from the install tree PREFIX (left by MODE=find_package) for
#     rv32imc with the installed toolchain file, run under QEMU (RUNNER); no host include folder
#     may reach the target's compile;
#   MODE=add_subdirectory: the consumer with ctile's sources as a subdirectory.
file(REMOVE_RECURSE ${WORK})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed: ${ARGN}\n${out}\n${err}")
  endif()
  message("${out}${err}")
endfunction()
if(MODE STREQUAL "find_package")
  run(${CMAKE_COMMAND} -S ${SRC} -B ${WORK}/lib -G Ninja -DCMAKE_INSTALL_PREFIX=${WORK}/prefix
      -DCMAKE_CXX_COMPILER=${CXX} -DCTILE_SHARED_DIR=${SHARED})
  run(${CMAKE_COMMAND} --install ${WORK}/lib)
  foreach(f lib/cmake/ctile/riscv32-gcc-picolibc.cmake lib/cmake/ctile/riscv32-clang-corev.cmake
            lib/cmake/ctile/ctile_generate_plan.cmake include/ctile/host/run.hpp
            include/ctile/schedule/status.hpp include/ctile/solve/export.hpp)
    if(NOT EXISTS ${WORK}/prefix/${f})
      message(FATAL_ERROR "not installed: ${f}")
    endif()
  endforeach()
  run(${CMAKE_COMMAND} -S ${CONSUMER} -B ${WORK}/app -G Ninja -DCMAKE_PREFIX_PATH=${WORK}/prefix
      -DCMAKE_CXX_COMPILER=${CXX})
elseif(MODE STREQUAL "cross")
  run(${CMAKE_COMMAND} -S ${CONSUMER} -B ${WORK}/app -G Ninja -DCMAKE_PREFIX_PATH=${PREFIX}
      --toolchain ${PREFIX}/lib/cmake/ctile/riscv32-gcc-picolibc.cmake
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
  file(READ ${WORK}/app/compile_commands.json commands)
  if(commands MATCHES "(-isystem|-I) ?/usr/(local/)?include[ \"]")
    message(FATAL_ERROR "a host include folder reaches the cross compile:\n${commands}")
  endif()
else()
  run(${CMAKE_COMMAND} -S ${CONSUMER} -B ${WORK}/app -G Ninja -DCTILE_SOURCE=${SRC}
      -DCMAKE_CXX_COMPILER=${CXX})
endif()
run(${CMAKE_COMMAND} --build ${WORK}/app)
if(MODE STREQUAL "cross")
  run(${RUNNER} -M virt -nographic -bios none -kernel ${WORK}/app/consumer
      -semihosting-config enable=on,target=native)
else()
  run(${WORK}/app/consumer)
endif()
