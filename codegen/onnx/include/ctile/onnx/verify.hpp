// Bit-exact verification of an imported network against DORY's golden outputs: a folder with
// `model_int.onnx`, `input.txt` and `out_layerK.txt`.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "ctile/core/geometry.hpp"
#include "ctile/onnx/engine.hpp"
#include "ctile/onnx/import.hpp"

namespace ctile::onnx {

/// Memory options shared with the planner (validated now; they will drive the tiled runtime).
struct platform_options {
  std::string platform = "gap8";
  std::int64_t l1 = 0;  ///< bytes of L1 for tiles; 0: the platform's default
  std::int64_t l2 = 0;  ///< bytes of L2; 0: the platform's default
};

/// Parses a byte count: a plain integer, or with a k/K/kB/KiB (x1024) or M/MiB suffix.
std::optional<std::int64_t> parse_bytes(const std::string& s);
/// Returns an error message, or an empty string when the options are usable.
std::string validate(const platform_options& p);

struct verify_options {
  platform_options platform;
  std::string dump_dir;  ///< non-empty: write every layer's output there as out_layerK.txt
  import_options import;
};

struct layer_check {
  int golden = -1;  ///< K
  int layer = -1;   ///< index in the imported network
  std::string kind;
  shape dims{};
  std::int64_t elements = 0;         ///< computed
  std::int64_t golden_elements = 0;  ///< in the file
  std::int64_t mismatches = 0;
  std::int64_t max_diff = 0;
  std::string layout;  ///< "HWC" or "CHW": the order the golden file matched in
  std::string note;
  [[nodiscard]] bool exact() const { return mismatches == 0 && elements == golden_elements; }
};

struct verify_report {
  std::string engine;
  std::vector<layer_check> rows;
  std::vector<std::string> notes;
  int exact = 0;
  int total = 0;
  [[nodiscard]] bool ok() const { return total > 0 && exact == total; }
};

/// Imports, runs and compares. Throws import_error / std::runtime_error on unusable input.
verify_report verify_folder(const std::string& dir, const verify_options& options,
                            const engine& e = default_engine());

/// Compares one layer output (HWC) with a golden vector, trying HWC then CHW order.
layer_check compare(const shape& s, const std::vector<std::int32_t>& got,
                    const std::vector<std::int64_t>& golden);

/// The table and the final `N/M layers bit-exact` line.
void print_report(std::ostream& os, const verify_report& r);

}  // namespace ctile::onnx
