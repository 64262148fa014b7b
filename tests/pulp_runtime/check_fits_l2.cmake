# cmake -DSIZE=riscv64-unknown-elf-size -DLIB=libpulp_<net>_program.a -P check_fits_l2.cmake:
# a pulp-runtime image's C++ program (code, data, and its L2 arena among the zero-initialised
# data) and 32 KiB for pulp-runtime itself must fit pulp-open's 512 KiB of L2. The program's
# hot tables (section .ctile.l1) are counted although they go to L1.
execute_process(COMMAND ${SIZE} -t ${LIB} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${SIZE} ${LIB} failed")
endif()
if(NOT out MATCHES "\n *([0-9]+)[ \t]+([0-9]+)[ \t]+([0-9]+)[ \t]+([0-9]+)[ \t]+[0-9a-f]+[ \t]+\\(TOTALS\\)")
  message(FATAL_ERROR "no totals in:\n${out}")
endif()
set(total ${CMAKE_MATCH_4})
math(EXPR with_runtime "${total} + 32768")
message("${LIB}: text ${CMAKE_MATCH_1} data ${CMAKE_MATCH_2} bss ${CMAKE_MATCH_3}; with the runtime ${with_runtime} of 524288 B")
if(with_runtime GREATER 524288)
  message(FATAL_ERROR "the program and the runtime take ${with_runtime} B, over pulp-open's 512 KiB of L2: raise the image's code reserve (examples/firmware/CMakeLists.txt)")
endif()
