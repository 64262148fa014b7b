// libFuzzer target: any byte string given to the importer either imports (and then generates a
// header) or fails with ctile::onnx::import_error. Anything else (a crash, a sanitizer report,
// another exception escaping) is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ctile/onnx/header.hpp"
#include "ctile/onnx/import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto net = ctile::onnx::import_onnx_bytes({reinterpret_cast<const char*>(data), size});
    ctile::onnx::header_options h;
    h.name = "fuzzed";
    (void)ctile::onnx::generate_header(net, h);
  } catch (const ctile::onnx::import_error&) {
    // A clean refusal.
  }
  return 0;
}
