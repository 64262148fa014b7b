// Build-time tiling: platforms, the L2 -> L1 search, the cost model, the L3 cascade and the
// L2 layout.
#pragma once

#include "ctile/plan/cost_model.hpp"
#include "ctile/plan/layer_plan.hpp"
#include "ctile/plan/network_plan.hpp"
#include "ctile/plan/problem.hpp"
#include "ctile/plan/search.hpp"
#include "ctile/platform/gap8.hpp"
#include "ctile/platform/host.hpp"
#include "ctile/platform/platform.hpp"
