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

/// Is `s` a valid C++ identifier (and not a keyword we would collide with)?
bool is_identifier(const std::string& s);

}  // namespace ctile::onnx
