// The plan report of ctile-plan: planning a network given at run time (same constexpr code as
// plan_of) and printing it as a table or as JSON.
#pragma once

#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include <ctile/ctile.hpp>
#include <ctile/plan/plan.hpp>

namespace ctile::plan_report {

/// A network's plan with a run-time number of layers.
struct dynamic_plan {
  std::vector<layer> layers;
  std::vector<layer_plan> plans;
  std::vector<layer_l2> l2;
  network_summary summary;
  platform target;
  objective goal = objective::model;
};

/// Plans `layers` (already inferred) on `p`.
dynamic_plan plan(std::span<const layer> layers, const platform& p, objective o);

/// The per-layer table and the network summary.
void print_table(std::FILE* out, const std::string& name, const dynamic_plan& d);

/// The same as JSON.
void print_json(std::FILE* out, const std::string& name, const dynamic_plan& d);

}  // namespace ctile::plan_report
