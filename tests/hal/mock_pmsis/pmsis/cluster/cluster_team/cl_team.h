/* Stand-in for the GAP SDK's <pmsis/cluster/cluster_team/cl_team.h>: the team calls the HAL
 * uses (the critical sections are left out). As in the
 * SDK there is no extern "C" block here. On GAP-8 the SDK implements every one of these inline
 * (pmsis/implem/implem.h), so they are declared static inline, which also keeps them free of
 * linkage. Documented behaviour reproduced by the implementation:
 *  - pi_cl_team_fork(0, ...) reuses the team of the previous fork (or of the cluster task);
 *  - pi_cl_team_nb_cores() is the size of that last team, not the cluster's core count;
 *  - pi_cl_cluster_nb_cores() is the cluster's core count. */
#ifndef CTILE_MOCK_PMSIS_CL_TEAM_H
#define CTILE_MOCK_PMSIS_CL_TEAM_H

#include "pmsis/pmsis_types.h"

#ifndef PI_INLINE_CL_TEAM_0
#define PI_INLINE_CL_TEAM_0
#endif

static inline int pi_cl_cluster_nb_cores(void);
static inline void pi_cl_team_fork(int nb_cores, void (*entry)(void *), void *arg);
PI_INLINE_CL_TEAM_0 void pi_cl_team_barrier(void);
static inline int pi_cl_team_nb_cores(void);

#endif
