# ctile_generate_plan's dependencies, in a separate project: the first build solves; a rebuild
# does nothing; editing another source does not re-solve; touching the network without
# changing it re-exports but does not re-solve; changing the network re-solves.
#   cmake -DSRC=ctile-source -DCONSUMER=dir -DWORK=dir -DCXX=compiler -P deps.cmake
file(REMOVE_RECURSE ${WORK})
file(COPY ${CONSUMER}/ DESTINATION ${WORK}/src)
file(WRITE ${WORK}/src/net.hpp "#pragma once
#include <ctile/ctile.hpp>
using app_net = ctile::network<ctile::input(16, 16, 8), ctile::conv2d(16, 3).same().named(\"c1\")>;
")
function(run out_var)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed: ${ARGN}\n${out}\n${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()
function(build expect_export expect_solve what)
  run(out ${CMAKE_COMMAND} --build ${WORK}/b --target app)
  foreach(step export solve)
    if(step STREQUAL "export")
      set(pattern "Exporting the tiling problems")
    else()
      set(pattern "Solving the tiling")
    endif()
    string(FIND "${out}" "${pattern}" at)
    if(at EQUAL -1)
      set(ran OFF)
    else()
      set(ran ON)
    endif()
    if(NOT ran STREQUAL expect_${step})
      message(FATAL_ERROR "${what}: ${step} ran=${ran}, expected ${expect_${step}}\n${out}")
    endif()
  endforeach()
endfunction()
run(out ${CMAKE_COMMAND} -S ${WORK}/src -B ${WORK}/b -G Ninja -DCTILE_SOURCE=${SRC}
    -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=Release)
build(ON ON "first build")
run(out ${WORK}/b/app)
if(NOT out MATCHES "app ok: 2 layers")
  message(FATAL_ERROR "app: ${out}")
endif()
build(OFF OFF "rebuild")
file(TOUCH ${WORK}/src/main.cpp)
build(OFF OFF "another source edited")
file(TOUCH ${WORK}/src/net.hpp)
build(ON OFF "network touched, unchanged")
file(WRITE ${WORK}/src/net.hpp "#pragma once
#include <ctile/ctile.hpp>
using app_net = ctile::network<ctile::input(16, 16, 8), ctile::conv2d(32, 3).same().named(\"c1\")>;
")
build(ON ON "network edited")
run(out ${WORK}/b/app)
message("deps ok")
