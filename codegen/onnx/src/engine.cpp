#include "ctile/onnx/engine.hpp"

namespace ctile::onnx {

engine reference_engine() {
  return {"reference (ctile::reference, naive loops)",
          [](std::span<const layer> ls, std::span<const layer_params> ps,
             std::span<const std::int32_t> in) { return reference::run(ls, ps, in); }};
}

engine default_engine() {
  // The tiled host runtime (simulated DMA) is not available yet: use the reference.
  return reference_engine();
}

}  // namespace ctile::onnx
