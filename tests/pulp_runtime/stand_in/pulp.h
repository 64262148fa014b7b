/* A stand-in for pulp-runtime's <pulp.h>, declaring the calls ctile's pulp-runtime HAL and its
 * glue (include/ctile/hal/pulp_runtime_glue.c) use, with the runtime's signatures and
 * constants (include/pulp.h, include/hal/dma/mchan_v7.h, include/hal/eu/eu_v3.h,
 * include/hal/riscv/riscv_v5.h, include/bench/bench.h, include/archi/riscv/pcer_v2.h), so that
 * the HAL and the glue compile, and their calls can be observed, where the runtime is not
 * installed. The runtime defines most of these as static inline functions; here they are
 * external functions that a test defines. Unlike the runtime's header, this one also compiles
 * as C++ (for the test that defines them). */
#ifndef CTILE_STAND_IN_PULP_H
#define CTILE_STAND_IN_PULP_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* include/hal/dma/mchan_v7.h (a 32-bit external address: ARCHI_HAS_MCHAN_64 unset) */
#define PLP_DMA_LOC2EXT 0
#define PLP_DMA_EXT2LOC 1
typedef unsigned int mchan_ext_t;
int plp_dma_memcpy(mchan_ext_t ext, unsigned int loc, unsigned short size, int ext2loc);
int plp_dma_memcpy_2d(mchan_ext_t ext, unsigned int loc, unsigned short size, unsigned short stride,
                      unsigned short length, int ext2loc);
void plp_dma_wait(unsigned int counter);

/* include/hal/riscv/riscv_v5.h, include/pulp.h */
unsigned int hal_core_id();
unsigned int hal_is_fc();
int get_core_num();

/* include/hal/eu/eu_v3.h */
unsigned int eu_bar_addr(int barId);
void eu_bar_setup(unsigned int barAddr, unsigned int coreMask);
unsigned int eu_bar_trig_wait_clr(unsigned int barAddr);

/* include/archi/riscv/pcer_v2.h, include/bench/bench.h, include/hal/riscv/riscv_v5.h */
#define CSR_PCER_CYCLES 0
void perf_start(void);
void perf_reset(void);
unsigned int cpu_perf_get(const unsigned int counterId);

/* include/pulp.h (external functions there too) */
void cluster_start(int cid, int (*entry)());
int cluster_wait(int cid);
void synch_barrier();
void *pi_l1_malloc(int cid, int size);

#ifdef __cplusplus
}
#endif

#endif
