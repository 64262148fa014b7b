// The seam between importing a network and running it: an engine takes layers, their data and
// an input, and returns every layer's output (HWC, index 0 the input). ctile-verify runs
// the tiled runtime by default, the reference on request, and prints which one ran.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "ctile/layers/layer.hpp"
#include "ctile/network/params.hpp"
#include "ctile/reference/reference.hpp"

namespace ctile::onnx {

using layer_outputs = std::vector<reference::values>;

struct engine {
  std::string name;
  std::function<layer_outputs(std::span<const layer>, std::span<const layer_params>,
                              std::span<const std::int32_t>)>
      run;
};

/// The naive bit-exact reference (ctile::reference::run).
engine reference_engine();

struct platform_options;

/// The tiled runtime on the host: the network planned at run time for the platform (the same
/// planner as at compile time), run by the executor on the simulated memory levels and DMA,
/// whose checker must stay silent. Throws std::runtime_error when the network does not fit.
engine tiled_engine(const platform_options& o);

/// The engine used by ctile-verify: the tiled runtime on GAP-8's budgets.
engine default_engine();

}  // namespace ctile::onnx
