/* Stand-in for the GAP SDK's <bsp/ram.h> (gap_sdk 4.x, rtos/pmsis/bsp): the cluster-side RAM
 * requests. As in the SDK:
 *  - <pmsis.h> does not include this header; it includes <pmsis.h>;
 *  - there is NO extern "C" block: included as is from C++, pi_cl_ram_copy gets C++ linkage
 *    and the inline pi_cl_ram_read/_write reference a mangled name the SDK's C library does not
 *    define. An includer must wrap it in extern "C" (ctile/hal/pmsis.hpp does);
 *  - pi_cl_ram_copy is a function of the SDK's library (here: defined by the test), the rest is
 *    inline. */
#ifndef CTILE_MOCK_BSP_RAM_H
#define CTILE_MOCK_BSP_RAM_H

#include "pmsis.h"

typedef struct pi_cl_ram_req_s pi_cl_ram_req_t;

struct pi_cl_ram_req_s {
  struct pi_device *device;
  void *addr;
  uint32_t pi_ram_addr;
  uint32_t size;
  int32_t stride;
  uint32_t length;
  pi_task_t event;
  struct pi_cl_ram_req_s *next;
  uint8_t done;
  unsigned char cid;
  unsigned char ext2loc;
  unsigned char is_2d;
};

void pi_cl_ram_copy(struct pi_device *device, uint32_t pi_ram_addr, void *addr, uint32_t size,
                    int ext2loc, pi_cl_ram_req_t *req);

static inline void pi_cl_ram_copy_wait(pi_cl_ram_req_t *req) {
  cl_wait_task(&(req->done));
}

static inline void pi_cl_ram_read(struct pi_device *device, uint32_t pi_ram_addr, void *addr,
                                  uint32_t size, pi_cl_ram_req_t *req) {
  pi_cl_ram_copy(device, pi_ram_addr, addr, size, 1, req);
}

static inline void pi_cl_ram_read_wait(pi_cl_ram_req_t *req) {
  pi_cl_ram_copy_wait(req);
}

static inline void pi_cl_ram_write(struct pi_device *device, uint32_t pi_ram_addr, void *addr,
                                   uint32_t size, pi_cl_ram_req_t *req) {
  pi_cl_ram_copy(device, pi_ram_addr, addr, size, 0, req);
}

static inline void pi_cl_ram_write_wait(pi_cl_ram_req_t *req) {
  pi_cl_ram_copy_wait(req);
}

#endif
