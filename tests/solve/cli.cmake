# ctile-solve on bad input: a non-zero exit, a clear message, and no header left behind.
#   cmake -DSOLVE=ctile-solve -DGOOD=problems.json -DWORK=dir -P cli.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
function(expect_failure name code regex input)
  set(out ${WORK}/${name}.hpp)
  file(WRITE ${out} "// a stale header from an earlier run\n")
  execute_process(COMMAND ${SOLVE} ${input} -o ${out} ${ARGN}
                  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  if(NOT rc EQUAL ${code})
    message(FATAL_ERROR "${name}: exit status ${rc}, expected ${code}\n${err}")
  endif()
  if(NOT err MATCHES "${regex}")
    message(FATAL_ERROR "${name}: message does not match '${regex}':\n${err}")
  endif()
  if(EXISTS ${out})
    message(FATAL_ERROR "${name}: a header was left at ${out}")
  endif()
endfunction()

file(READ ${GOOD} good)
# Malformed JSON: truncated.
string(LENGTH "${good}" n)
math(EXPR half "${n} / 2")
string(SUBSTRING "${good}" 0 ${half} truncated)
file(WRITE ${WORK}/truncated.json "${truncated}")
expect_failure(truncated 2 "malformed JSON at byte [0-9]+" ${WORK}/truncated.json)
# Valid JSON, not a problem set.
file(WRITE ${WORK}/other.json "{\"format\": \"something/else\"}")
expect_failure(other 2 "format is \"something/else\"" ${WORK}/other.json)
# A missing file.
expect_failure(missing 2 "cannot read" ${WORK}/no-such-file.json)
# An L1 budget no tiling fits: every layer's message names the smallest budget that works.
string(REGEX REPLACE "\"l1_budget\": [0-9]+" "\"l1_budget\": 100" tight "${good}")
file(WRITE ${WORK}/tight.json "${tight}")
expect_failure(unsat 1 "layer 1 'conv1' \\(conv\\): no tiling fits the L1 budget of 100 bytes; the smallest L1 budget that would work is [0-9]+ bytes.*no header written" ${WORK}/tight.json)

# A timeout (1 ms is far below what a conv layer's problem takes): an error, no header.
expect_failure(timeout 1 "Z3 gave no answer within 1 ms.*no header written" ${GOOD} --timeout 1)
# With the stated fallback: the constexpr search's plan, said on stderr and in the header.
execute_process(COMMAND ${SOLVE} ${GOOD} -o ${WORK}/fallback.hpp --timeout 1 --fallback search
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
file(READ ${WORK}/fallback.hpp fallback)
if(NOT rc EQUAL 0 OR NOT err MATCHES "using the constexpr search's plan" OR
   NOT fallback MATCHES "constexpr search's plan")
  message(FATAL_ERROR "fallback: exit ${rc}\n${err}")
endif()

# The joint problem: an L2 no placement fits names the layer and the smallest budget, and
# leaves no header; a timeout without a fallback leaves none either; with --fallback search the
# header has the per-layer plans only (plan_of then runs the greedy L3 cascade).
string(REGEX REPLACE "\"l2_bytes\": [0-9]+" "\"l2_bytes\": 106496" small_l2 "${good}")
file(WRITE ${WORK}/small_l2.json "${small_l2}")
expect_failure(joint_unsat 1 "no placement of weights and outputs fits the L2 budget of 8192 bytes; the smallest L2 budget that would work is [0-9]+ bytes \\(layer [0-9]+ '[a-z0-9]+' \\([a-z]+\\) needs at least [0-9]+ bytes of L2 with any placement.*no header written" ${WORK}/small_l2.json --joint --timeout 120000)
# Z3 enforces a timeout from a timer thread: on a starved machine a 1 ms budget can still see
# the problem solved. Either outcome must be a whole header or none, never a partial one.
file(WRITE ${WORK}/joint_timeout.hpp "// a stale header from an earlier run\n")
execute_process(COMMAND ${SOLVE} ${GOOD} -o ${WORK}/joint_timeout.hpp --joint --timeout 1
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(err MATCHES "Z3 gave no answer within 1 ms")
  if(NOT rc EQUAL 1 OR NOT err MATCHES "greedy L3 cascade.*no header written"
     OR EXISTS ${WORK}/joint_timeout.hpp)
    message(FATAL_ERROR "joint timeout: exit ${rc}, header left or message wrong\n${err}")
  endif()
else()
  file(READ ${WORK}/joint_timeout.hpp solved)
  if(NOT rc EQUAL 0 OR NOT solved MATCHES "imported_l3 l3")
    message(FATAL_ERROR "joint timeout: exit ${rc}\n${err}")
  endif()
endif()
execute_process(COMMAND ${SOLVE} ${GOOD} -o ${WORK}/joint_fallback.hpp --joint --timeout 1
                        --fallback search
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
file(READ ${WORK}/joint_fallback.hpp joint_fallback)
if(err MATCHES "Z3 gave no answer within 1 ms")
  if(NOT rc EQUAL 0
     OR NOT err MATCHES "falling back to the per-layer plans and the greedy L3 cascade"
     OR joint_fallback MATCHES "imported_l3")
    message(FATAL_ERROR "joint fallback: exit ${rc}\n${err}")
  endif()
elseif(NOT rc EQUAL 0 OR NOT joint_fallback MATCHES "imported_l3 l3")
  message(FATAL_ERROR "joint fallback (solved): exit ${rc}\n${err}")
endif()
execute_process(COMMAND ${SOLVE} ${GOOD} -o ${WORK}/joint.hpp --joint --timeout 120000 RESULT_VARIABLE rc
                ERROR_VARIABLE err OUTPUT_QUIET)
file(READ ${WORK}/joint.hpp joint_header)
if(NOT rc EQUAL 0 OR NOT joint_header MATCHES "static constexpr imported_l3 l3\\[size\\]")
  message(FATAL_ERROR "joint: exit ${rc}\n${err}")
endif()

# The good file solves and writes a header.
execute_process(COMMAND ${SOLVE} ${GOOD} -o ${WORK}/good.hpp --json RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT EXISTS ${WORK}/good.hpp)
  message(FATAL_ERROR "good: exit status ${rc}\n${err}")
endif()
if(NOT out MATCHES "\"status\": \"optimal\"" OR NOT out MATCHES "\"z3_seconds\"")
  message(FATAL_ERROR "good: --json output lacks the per-layer status and times:\n${out}")
endif()
message("cli ok")
