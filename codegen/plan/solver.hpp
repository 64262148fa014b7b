// ctile-plan --solver z3|constexpr: the per-layer plans of ctile-solve's Z3 step or of the
// constexpr search, with each layer's objective value and solve time.
#pragma once

#include <span>

#include <ctile/layers/layer.hpp>
#include <ctile/platform/platform.hpp>

/// Prints the plans (a table, or JSON) and returns the exit status (0: every layer solved).
int solver_report(const char* name, std::span<const ctile::layer> layers, const ctile::platform& p,
                  bool z3, bool json);
