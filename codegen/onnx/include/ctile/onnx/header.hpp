// Generation of a C++ header from an imported network: the network type, its constant data and
// a params value binding the data to the layers.
#pragma once

#include <string>

#include "ctile/onnx/import.hpp"

namespace ctile::onnx {

struct header_options {
  std::string name = "net";  ///< a C++ identifier: `using NAME = ctile::network<...>`
  std::string ns;            ///< optional namespace around everything
  /// Place weights for L3: every weight array gets `CTILE_L3_WEIGHTS` in front of it, which
  /// defaults to `[[gnu::section(l3_section)]]` (a user-chosen section that the linker script
  /// maps to L3 / flash), and `NAME_weights_in_l3` is true.
  bool l3 = false;
  std::string l3_section = ".l3.weights";
  std::string source;  ///< shown in the header comment (e.g. the ONNX file name)
};

/// Returns the header's text. Throws std::invalid_argument for a bad name.
std::string generate_header(const imported_network& net, const header_options& options);

/// Returns a second header holding the test data of a DORY folder as constant arrays, for
/// targets without a file system: `NAME_input` (DORY's input.txt, 0..255, in the file's order)
/// and, for every layer with a golden `out_layerK.txt` in `dory_dir`, `NAME_out_layerK` in the
/// file's order (HWC or CHW), uint8 when every value is in 0..255, else int32; the table
/// `NAME_golden_tensors` lists them with their layer. Golden files that are absent are left out
/// (and named in the header's comment). Throws std::runtime_error naming the file when the
/// input is missing, holds the wrong number of values or a value outside 0..255, or a golden
/// value does not fit 32 bits; std::invalid_argument for a bad name.
std::string generate_test_data(const imported_network& net, const header_options& options,
                               const std::string& dory_dir);

/// Is `s` a valid C++ identifier (and not a keyword we would collide with)?
bool is_identifier(const std::string& s);

}  // namespace ctile::onnx
