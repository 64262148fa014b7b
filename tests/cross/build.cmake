# cmake -DSRC=... -DBIN=... -DTOOLCHAIN=... -P build.cmake: configures and builds a
# sub-project with a toolchain file (a CTest step of the cross tests).
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SRC} -B ${BIN} -G Ninja --toolchain ${TOOLCHAIN}
                        -DCMAKE_BUILD_TYPE=Release RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring ${SRC} with ${TOOLCHAIN} failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BIN} -j 2 RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building ${SRC} with ${TOOLCHAIN} failed")
endif()
