/* Stand-in for the GAP SDK's <pmsis/pmsis_types.h>: the device handle and the task type that
 * other PMSIS headers embed (pi_cl_ram_req_t holds a pi_task_t). Field lists are reduced to what
 * a cluster-side user can observe; the HAL only passes pointers to them. */
#ifndef CTILE_MOCK_PMSIS_TYPES_H
#define CTILE_MOCK_PMSIS_TYPES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pi_device {
  struct pi_device_api *api;
  void *config;
  void *data;
};
typedef struct pi_device pi_device_t;

typedef struct pi_task {
  struct pi_task *next;
  int id;
  uint32_t arg[4];
  volatile int8_t done;
} pi_task_t;

#ifdef __cplusplus
}
#endif

#endif
