# cmake -DCXX=... -DNM=... -DFLAGS=a|b|... -DSRC=... -DOBJ=... -P pmsis_cross.cmake: compiles the
# PMSIS HAL's cross translation unit and reads its symbols: the SDK's C function pi_cl_ram_copy
# must be referenced with C linkage (unmangled), and the SDK's software DMA path must not be
# referenced at all (every command of the program has a constant size on the hardware path).
string(REPLACE "|" ";" flags "${FLAGS}")
execute_process(COMMAND ${CXX} ${flags} -c ${SRC} -o ${OBJ} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compiling ${SRC} with ${CXX} failed")
endif()
execute_process(COMMAND ${NM} ${OBJ} OUTPUT_VARIABLE syms RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} ${OBJ} failed")
endif()
if(NOT syms MATCHES "U pi_cl_ram_copy\n")
  message(FATAL_ERROR "pi_cl_ram_copy is not referenced with C linkage:\n${syms}")
endif()
if(syms MATCHES "_Z[^\n]*pi_cl_ram_copy")
  message(FATAL_ERROR "pi_cl_ram_copy is referenced with C++ linkage:\n${syms}")
endif()
if(syms MATCHES "ctile_mock_dma_software_path")
  message(FATAL_ERROR "a command can reach the SDK's software DMA path:\n${syms}")
endif()
message(STATUS "${CXX}: pmsis HAL compiled; pi_cl_ram_copy has C linkage; no software DMA path")
