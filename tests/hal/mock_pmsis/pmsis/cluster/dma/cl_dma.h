/* Stand-in for the GAP SDK's <pmsis/cluster/dma/cl_dma.h>: the cluster DMA API, with the SDK's
 * declarations (32-bit size, stride and length at this level; see pmsis/implem/implem.h for the
 * narrower types of GAP-8's implementation below it). */
#ifndef CTILE_MOCK_PMSIS_CL_DMA_H
#define CTILE_MOCK_PMSIS_CL_DMA_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  PI_CL_DMA_DIR_LOC2EXT = 0, /* cluster memory to external memory */
  PI_CL_DMA_DIR_EXT2LOC = 1  /* external memory to cluster memory */
} pi_cl_dma_dir_e;

typedef struct pi_cl_dma_cmd_s pi_cl_dma_cmd_t;

static inline void pi_cl_dma_cmd(uint32_t ext, uint32_t loc, uint32_t size, pi_cl_dma_dir_e dir,
                                 pi_cl_dma_cmd_t *cmd);
static inline void pi_cl_dma_cmd_2d(uint32_t ext, uint32_t loc, uint32_t size, uint32_t stride,
                                    uint32_t length, pi_cl_dma_dir_e dir, pi_cl_dma_cmd_t *cmd);
static inline void pi_cl_dma_cmd_wait(pi_cl_dma_cmd_t *cmd);

#ifdef __cplusplus
}
#endif

#endif
