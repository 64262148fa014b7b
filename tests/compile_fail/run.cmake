# One compile-fail test: compiles SRC with CXX and FLAGS ('|'-separated) and passes when the
# compile fails with exactly one error and output matching the regex on SRC's first line
# (`// expect: REGEX`). A mistake in a declaration is one error, never a cascade.
# With CLANG set, the regex is on the second line (`// clang: REGEX`): clang prints template
# arguments differently.
file(STRINGS "${SRC}" lines LIMIT_COUNT 2)
if(CLANG)
  list(GET lines 1 first)
  string(REGEX REPLACE "^// clang: " "" expect "${first}")
else()
  list(GET lines 0 first)
  string(REGEX REPLACE "^// expect: " "" expect "${first}")
endif()
string(REPLACE "|" ";" flags "${FLAGS}")
execute_process(COMMAND "${CXX}" ${flags} "${SRC}" RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE out)
if(rc EQUAL 0)
  message(FATAL_ERROR "${SRC} compiled; it must not")
endif()
if(NOT out MATCHES "${expect}")
  message(FATAL_ERROR "the compiler's output does not match `${expect}`:\n${out}")
endif()
string(REPLACE ";" "," lines "${out}")
string(REGEX MATCHALL "[^\n]*: (fatal )?error: [^\n]*" errors "${lines}")
list(LENGTH errors count)
if(NOT count EQUAL 1)
  string(REPLACE ";" "\n" shown "${errors}")
  message(FATAL_ERROR "${count} errors, expected exactly one:\n${shown}")
endif()
message(STATUS "one error, as expected")
