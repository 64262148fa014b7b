# cmake -DSRC=... -DBIN=... -DTOOLCHAIN=... -P build.cmake: configures and builds a
# sub-project with a toolchain file (a CTest step of the cross tests). -DDEFINES=A=1|B=2
# passes cache entries to the sub-project ('|' between entries).
set(extra)
if(DEFINED DEFINES)
  string(REPLACE "|" ";" defs "${DEFINES}")
  foreach(d ${defs})
    list(APPEND extra "-D${d}")
  endforeach()
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SRC} -B ${BIN} -G Ninja --toolchain ${TOOLCHAIN}
                        -DCMAKE_BUILD_TYPE=Release ${extra} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring ${SRC} with ${TOOLCHAIN} failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BIN} -j 2 RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building ${SRC} with ${TOOLCHAIN} failed")
endif()
