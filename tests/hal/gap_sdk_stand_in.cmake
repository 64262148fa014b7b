# cmake -DROOT=<ctile> -DBIN=<dir> -DCLANG=ON|OFF -P gap_sdk_stand_in.cmake: lays out a GAP SDK
# install tree made of the stand-in headers (mock_pmsis/, an empty chip configuration header)
# and builds examples/gap8_sdk against it with cmake/riscv32-gap8-sdk.cmake and
# cmake/ctile_gap_sdk.cmake (compile only: the stand-ins have no runtime libraries). This runs
# the SDK build's flags (defines, forced chip header, -march, include order) through GCC 12 or
# clang-19 with -Werror on ctile's code.
set(sdk ${BIN}/sdk)
file(REMOVE_RECURSE ${sdk})
file(COPY ${ROOT}/tests/hal/mock_pmsis/ DESTINATION ${sdk}/install/GAP8_V3/include)
file(WRITE ${sdk}/install/GAP8_V3/include/rt/chips/gap8_revc/config.h "/* GAP8_V3 */\n")
file(MAKE_DIRECTORY ${sdk}/install/GAP8_V3/include/io ${sdk}/install/workstation/include)
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env --unset=TARGET_INSTALL_DIR --unset=INSTALL_DIR
          ${CMAKE_COMMAND} -S ${ROOT}/examples/gap8_sdk -B ${BIN}/build -G Ninja
          --toolchain ${ROOT}/cmake/riscv32-gap8-sdk.cmake -DGAP_SDK_HOME=${sdk}
          -DCTILE_GAP8_LINK=OFF -DCTILE_GAP8_CLANG=${CLANG}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring examples/gap8_sdk against the stand-in SDK failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BIN}/build RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building examples/gap8_sdk against the stand-in SDK failed")
endif()
