// The host HALs: simulated memory levels with a checker, DMA, L3 and cluster.
#pragma once

#include "host_cluster.hpp"
#include "host_dma.hpp"
#include "host_l3.hpp"
#include "host_memory.hpp"
