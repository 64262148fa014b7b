/* Stand-in for GAP-8's PMSIS implementation headers (gap_sdk 4.x, pulp-os: pmsis/implem/dma.h,
 * rt/implem/cluster.h, pmsis/implem/implem.h). The public functions are static inline as there,
 * with GAP-8's behaviour; only the hardware below them (MCHAN, event unit, core registers) is
 * replaced by `ctile_mock_*` hooks that a test defines.
 *
 * Behaviour reproduced (from the SDK's GAP-8 implementation, MCHAN v6):
 *  - pi_cl_dma_cmd passes its 32-bit size to an internal function whose size parameter is an
 *    `unsigned short`: 65,536 B arrive as 0. Below 1 << 15 B the command goes to the hardware;
 *    from 32,768 B on the SDK splits it in software (interrupt-driven, with one pending list
 *    shared by all cores, not safe when several cores program the DMA).
 *  - pi_cl_dma_cmd_2d passes the line length as an `unsigned short`; a stride below 1 << 15
 *    goes to the hardware, a larger one to the same software emulation.
 *  - pi_cl_team_fork(0, ...) keeps the previous team; a non-zero count sets a new team (and its
 *    barrier). pi_cl_team_nb_cores() is the size of that team (the highest core of the barrier
 *    mask, plus one), pi_cl_cluster_nb_cores() the cluster's core count. */
#ifndef CTILE_MOCK_PMSIS_IMPLEM_H
#define CTILE_MOCK_PMSIS_IMPLEM_H

#include <stdint.h>

#include "pmsis/cluster/cluster_team/cl_team.h"
#include "pmsis/cluster/dma/cl_dma.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- The hardware, defined by the test. ---- */
/* MCHAN: a hardware command (the size field as the SDK fills it); returns the counter. */
int ctile_mock_mchan_push(int ext2loc, unsigned int size, unsigned int loc, unsigned int ext,
                          int is_2d, unsigned int stride, unsigned int length);
/* The SDK's software split / 2-D emulation was entered (what the HAL must never cause). */
void ctile_mock_dma_software_path(unsigned int ext, unsigned int loc, unsigned int size,
                                  unsigned int stride, unsigned int length, int ext2loc);
void ctile_mock_mchan_wait(int counter);
/* Event unit: team configuration (dispatch team and barrier 0 masks) and its barrier mask. */
void ctile_mock_eu_team_config(uint32_t core_mask);
uint32_t ctile_mock_eu_barrier_mask(void);
/* Dispatch: wakes the team's cores on entry(arg); the master runs it too; returns at the join. */
void ctile_mock_eu_dispatch(void (*entry)(void *), void *arg);
void ctile_mock_eu_barrier(void);
/* Sleeps until the next cluster-call event (a request served by the fabric controller). */
void ctile_mock_eu_wait_cluster_call_event(void);
uint32_t ctile_mock_core_id(void);
uint32_t ctile_mock_cluster_core_count(void);

/* ---- Cluster DMA ---- */
struct pi_cl_dma_cmd_s {
  int id;
  uint32_t cmd;
  uint32_t size;
  uint32_t stride;
  uint32_t length;
  uint32_t loc_addr;
  uint32_t ext_addr;
  struct pi_cl_dma_cmd_s *next;
};

static inline void __cl_dma_memcpy(unsigned int ext, unsigned int loc, unsigned short size,
                                   pi_cl_dma_dir_e dir, int merge, pi_cl_dma_cmd_t *copy) {
  (void)merge;
  if (size < (1u << 15)) {
    copy->id = ctile_mock_mchan_push(dir == PI_CL_DMA_DIR_EXT2LOC, size, loc, ext, 0, 0, 0);
    copy->length = 0;
  } else {
    copy->length = 1u << 15;
    ctile_mock_dma_software_path(ext, loc, size, 1u << 15, 1u << 15, dir == PI_CL_DMA_DIR_EXT2LOC);
  }
}

static inline void __cl_dma_memcpy_2d(unsigned int ext, unsigned int loc, unsigned int size,
                                      unsigned int stride, unsigned short length,
                                      pi_cl_dma_dir_e dir, int merge, pi_cl_dma_cmd_t *copy) {
  (void)merge;
  if (stride < (1u << 15)) {
    copy->id =
        ctile_mock_mchan_push(dir == PI_CL_DMA_DIR_EXT2LOC, size, loc, ext, 1, stride, length);
    copy->length = 0;
  } else {
    copy->length = length;
    ctile_mock_dma_software_path(ext, loc, size, stride, length, dir == PI_CL_DMA_DIR_EXT2LOC);
  }
}

static inline void __cl_dma_wait(pi_cl_dma_cmd_t *copy) {
  if (copy->length == 0) ctile_mock_mchan_wait(copy->id);
}

static inline void pi_cl_dma_cmd(uint32_t ext, uint32_t loc, uint32_t size, pi_cl_dma_dir_e dir,
                                 pi_cl_dma_cmd_t *cmd) {
  __cl_dma_memcpy(ext, loc, size, dir, 0, cmd);
}

static inline void pi_cl_dma_cmd_2d(uint32_t ext, uint32_t loc, uint32_t size, uint32_t stride,
                                    uint32_t length, pi_cl_dma_dir_e dir, pi_cl_dma_cmd_t *cmd) {
  __cl_dma_memcpy_2d(ext, loc, size, stride, length, dir, 0, cmd);
}

static inline void pi_cl_dma_cmd_wait(pi_cl_dma_cmd_t *cmd) {
  __cl_dma_wait(cmd);
}

#ifdef __cplusplus
}
#endif

/* ---- Cores and team (C++ linkage is irrelevant: everything is inline) ---- */
static inline uint32_t pi_core_id(void) {
  return ctile_mock_core_id();
}

static inline int pi_cl_cluster_nb_cores(void) {
  return (int)ctile_mock_cluster_core_count();
}

static inline int pi_cl_team_nb_cores(void) {
  const uint32_t mask = ctile_mock_eu_barrier_mask();
  return mask == 0 ? 0 : 32 - __builtin_clz(mask);
}

static inline void pi_cl_team_fork(int nb_cores, void (*entry)(void *), void *arg) {
  if (nb_cores) ctile_mock_eu_team_config((1u << nb_cores) - 1u);
  ctile_mock_eu_dispatch(entry, arg);
}

PI_INLINE_CL_TEAM_0 void pi_cl_team_barrier(void) {
  ctile_mock_eu_barrier();
}

/* Waits for a request served by the fabric controller (the RAM requests use it). */
static inline void cl_wait_task(unsigned char *done) {
  while (*(volatile unsigned char *)done == 0) ctile_mock_eu_wait_cluster_call_event();
}

#endif
