/* Stand-in for the GAP SDK's <pmsis.h> (GAP-8, pulp-os flow of gap_sdk 4.x), written for the
 * tests from the SDK's public headers: it declares, with the SDK's signatures and split into the
 * SDK's headers, what ctile's PMSIS HAL uses, and reproduces the behaviour the HAL depends on
 * (see pmsis/implem/implem.h). Like the real one it does NOT include <bsp/ram.h>.
 * The SDK defines most of these functions `static inline` over the hardware; here the inline
 * functions are kept and the hardware below them is a set of hooks a test defines. */
#ifndef CTILE_MOCK_PMSIS_H
#define CTILE_MOCK_PMSIS_H

/* As the SDK's pmsis.h: the team primitives marked PI_INLINE_CL_TEAM_0 are inline. */
#define PI_INLINE_CL_TEAM_0 static inline

#include <stddef.h>
#include <stdint.h>

#include "pmsis/pmsis_types.h"  // first: the types the others use

#include "pmsis/cluster/cluster_team/cl_team.h"
#include "pmsis/cluster/dma/cl_dma.h"
#include "pmsis/implem/implem.h"

#endif
