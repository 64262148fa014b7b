/* The pulp-runtime calls that ctile/hal/pulp_runtime.hpp uses and that the runtime defines as
 * static inline functions of its C headers (which do not compile as C++): one external
 * function per call. Compile this file as C against the runtime's headers (its include
 * folders and chip flags, as the runtime's make flow sets them) and link it into the
 * firmware. */
#include <pulp.h>
#include <stdint.h>

int ctile_prt_dma_memcpy(uint32_t ext, uint32_t loc, uint32_t size, int ext2loc) {
  return plp_dma_memcpy(ext, loc, (unsigned short)size, ext2loc);
}

int ctile_prt_dma_memcpy_2d(uint32_t ext, uint32_t loc, uint32_t size, uint32_t stride,
                            uint32_t length, int ext2loc) {
  return plp_dma_memcpy_2d(ext, loc, (unsigned short)size, (unsigned short)stride,
                           (unsigned short)length, ext2loc);
}

void ctile_prt_dma_wait(uint32_t counter) {
  plp_dma_wait(counter);
}

uint32_t ctile_prt_core_id(void) {
  return hal_core_id();
}

int ctile_prt_cluster_cores(void) {
  return get_core_num();
}

void ctile_prt_team_barrier_setup(uint32_t mask) {
  eu_bar_setup(eu_bar_addr(1), mask);
}

void ctile_prt_team_barrier(void) {
  eu_bar_trig_wait_clr(eu_bar_addr(1));
}

void ctile_prt_perf_start(void) {
  perf_start();
  perf_reset();
}

uint32_t ctile_prt_cycles(void) {
  return cpu_perf_get(CSR_PCER_CYCLES);
}

int ctile_prt_cluster_run(int (*entry)(void)) {
  if (hal_is_fc()) {
    cluster_start(0, entry);
    return cluster_wait(0);
  }
  return entry();
}
