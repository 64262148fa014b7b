// The seam between importing a network and running it: an engine takes layers, their data and
// an input, and returns every layer's output (HWC, index 0 the input). ctile-verify runs
// whichever engine `default_engine()` gives and prints its name.
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

/// The engine used by ctile-verify: the tiled runtime with simulated DMA when it is built in,
/// the reference otherwise.
engine default_engine();

}  // namespace ctile::onnx
