// Import of integer-quantized ONNX graphs (NEMO and Quantlab exports) into ctile layers.
//
// The importer walks the graph in order and recognizes layers by what the nodes compute, not
// by their exact sequence: an anchor (Conv, Gemm, MatMul, MaxPool, AveragePool,
// GlobalAveragePool, residual Add) opens a layer, and the elementwise nodes that follow it
// (Mul, Add, Sub, Div, Floor, Cast, Clip, Relu with one constant operand) are folded
// symbolically into one exact integer requantization
//
//   y = clip(floor((kappa[c] * (acc + bias[c]) + lambda[c]) * m / d), lo, hi)
//
// Pad nodes fold into the next window, Flatten/Reshape/Shape/Gather/Unsqueeze/Constant are
// shape plumbing, and Gather/Sigmoid/Softmax/LogSoftmax after the last layer form a host-side
// epilogue. Anything else is an error naming the node, its op and the reason.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "ctile/layers/layer.hpp"
#include "ctile/network/params.hpp"

namespace ctile::onnx {

/// What went wrong, and where: the node (its name, or `#index` and its first output when it
/// has none), its op type, and the reason. what() reads as one sentence with all three.
class import_error : public std::runtime_error {
 public:
  import_error(std::string node, std::string op, std::string reason);
  [[nodiscard]] const std::string& node() const { return node_; }
  [[nodiscard]] const std::string& op() const { return op_; }
  [[nodiscard]] const std::string& reason() const { return reason_; }

 private:
  std::string node_, op_, reason_;
};

struct import_options {
  /// Keep terminal Sigmoid/Softmax/LogSoftmax as a host-side epilogue (true) or drop them
  /// (they are reported in `notes` either way).
  bool keep_epilogue = true;
  /// Files larger than this are refused.
  std::size_t max_file_bytes = std::size_t{1} << 30;
  /// The network input's range when it is not 0..255 (a signed or sub-byte input: from the
  /// export's configuration, see read_export_config).
  std::optional<value_range> input_range;
  /// Residual adds and average pools the graph leaves unclipped are carried with the range
  /// their inputs prove (false), or saturated to their 8-bit container as DORY does (true).
  bool saturate = false;
};

/// The input range an export's configuration JSON declares (`"input_bits": B` with
/// `"input_signed": true|false`, as DORY's config files), or nullopt if it declares none.
/// Throws std::runtime_error naming the file when it cannot be read or the values are bad.
std::optional<value_range> read_export_config(const std::string& path);

/// The one `config*.json` in `dir`, if there is exactly one; an empty string otherwise.
std::string find_export_config(const std::string& dir);

/// One host-side step after the last layer (not run by the network itself).
enum class epilogue_kind : std::uint8_t { gather, sigmoid, softmax, log_softmax };
const char* epilogue_name(epilogue_kind k);

struct epilogue_step {
  epilogue_kind kind = epilogue_kind::gather;
  std::string node;        ///< the ONNX node it comes from
  std::int64_t index = 0;  ///< gather: the element taken
};

/// A graph output: which layer produces it and the host steps applied after that layer.
struct graph_output {
  std::string tensor;
  int layer = -1;
  std::vector<epilogue_step> steps;
};

/// The constant data of one layer, owned (layer_params spans point into it).
struct layer_data {
  std::vector<std::int8_t> weights;  ///< conv [Cout][Kh][Kw][Cin], dw [C][Kh][Kw], fc [Cout][HWC]
  std::vector<std::int32_t> bias, kappa, lambda;
};

/// The result of an import: layers in graph order (shapes inferred), their data, and how each
/// layer maps back to the graph and to DORY's golden files.
struct imported_network {
  std::vector<layer> layers;       ///< layers[0] is the input
  std::vector<layer_data> data;    ///< one entry per layer
  std::vector<int> golden;         ///< per layer: K of out_layerK (anchor order), -1 for the input
  std::vector<std::string> nodes;  ///< per layer: the anchor node
  std::vector<graph_output> outputs;
  std::vector<std::string> notes;  ///< what was folded, dropped or kept, for the user
  std::string input_tensor;
  int opset = 0;

  /// Spans over `data`, one per layer (valid while this object lives and is not modified).
  [[nodiscard]] std::vector<layer_params> params() const;
  /// The layer whose output is out_layerK, or -1.
  [[nodiscard]] int layer_of_golden(int k) const;
  /// Number of golden-mapped layers.
  [[nodiscard]] int golden_count() const;
};

/// Reads and imports an ONNX file. Throws import_error (and nothing else) on bad input.
imported_network import_onnx(const std::string& path, const import_options& options = {});
/// Imports an ONNX model held in memory.
imported_network import_onnx_bytes(std::string_view bytes, const import_options& options = {});

/// Applies a graph output's epilogue on the host to its layer's raw output.
std::vector<double> apply_epilogue(const graph_output& out, std::span<const std::int32_t> values);

}  // namespace ctile::onnx
