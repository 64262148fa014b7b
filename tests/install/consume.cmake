# Script: build the consumer project against ctile (installed, or as a subdirectory) and run it.
file(REMOVE_RECURSE ${WORK})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed: ${ARGN}\n${out}\n${err}")
  endif()
  message("${out}")
endfunction()
if(MODE STREQUAL "find_package")
  run(${CMAKE_COMMAND} -S ${SRC} -B ${WORK}/lib -DCTILE_BUILD_TESTS=OFF -DCTILE_BUILD_CODEGEN=OFF
      -DCTILE_BUILD_EXAMPLES=OFF -DCMAKE_INSTALL_PREFIX=${WORK}/prefix -DCMAKE_CXX_COMPILER=${CXX})
  run(${CMAKE_COMMAND} --install ${WORK}/lib)
  run(${CMAKE_COMMAND} -S ${CONSUMER} -B ${WORK}/app -DCMAKE_PREFIX_PATH=${WORK}/prefix
      -DCMAKE_CXX_COMPILER=${CXX})
else()
  run(${CMAKE_COMMAND} -S ${CONSUMER} -B ${WORK}/app -DCTILE_SOURCE=${SRC}
      -DCMAKE_CXX_COMPILER=${CXX})
endif()
run(${CMAKE_COMMAND} --build ${WORK}/app)
run(${WORK}/app/consumer)
