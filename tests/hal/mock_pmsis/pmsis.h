/* A stand-in for the GAP SDK's <pmsis.h>, declaring the cluster calls ctile's PMSIS HAL uses
 * with the SDK's signatures, so that the HAL compiles (and its calls can be recorded) where the
 * SDK is not installed. The SDK defines these as static inline functions; here they are
 * external functions that a test defines. */
#ifndef CTILE_MOCK_PMSIS_H
#define CTILE_MOCK_PMSIS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  PI_CL_DMA_DIR_LOC2EXT = 0,
  PI_CL_DMA_DIR_EXT2LOC = 1,
} pi_cl_dma_dir_e;

typedef struct pi_cl_dma_cmd_s {
  int id;
  struct pi_cl_dma_cmd_s *next;
} pi_cl_dma_cmd_t;

void pi_cl_dma_cmd(uint32_t ext, uint32_t loc, uint32_t size, pi_cl_dma_dir_e dir,
                   pi_cl_dma_cmd_t *cmd);
void pi_cl_dma_cmd_2d(uint32_t ext, uint32_t loc, uint32_t size, uint32_t stride,
                      uint32_t length, pi_cl_dma_dir_e dir, pi_cl_dma_cmd_t *cmd);
void pi_cl_dma_cmd_wait(pi_cl_dma_cmd_t *cmd);

void pi_cl_team_fork(int nb_cores, void (*entry)(void *), void *arg);
void pi_cl_team_barrier(void);
int pi_cl_team_nb_cores(void);
uint32_t pi_core_id(void);

struct pi_device {
  void *api;
  void *config;
  void *data;
};

typedef struct pi_cl_ram_req_s {
  struct pi_device *device;
  void *addr;
  uint32_t pi_ram_addr;
  uint32_t size;
  int32_t stride;
  uint32_t length;
  struct pi_cl_ram_req_s *next;
  uint8_t done;
  unsigned char cid;
  unsigned char ext2loc;
  unsigned char is_2d;
} pi_cl_ram_req_t;

void pi_cl_ram_read(struct pi_device *device, uint32_t pi_ram_addr, void *addr, uint32_t size,
                    pi_cl_ram_req_t *req);
void pi_cl_ram_write(struct pi_device *device, uint32_t pi_ram_addr, void *addr, uint32_t size,
                     pi_cl_ram_req_t *req);
void pi_cl_ram_read_wait(pi_cl_ram_req_t *req);
void pi_cl_ram_write_wait(pi_cl_ram_req_t *req);

#ifdef __cplusplus
}
#endif

#endif
