// Bit-exact verification of an imported network against DORY's golden outputs: a folder with
// `model_int.onnx`, `input.txt` and `out_layerK.txt`.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "ctile/core/geometry.hpp"
#include "ctile/onnx/engine.hpp"
#include "ctile/onnx/import.hpp"
#include "ctile/platform/platform.hpp"

namespace ctile::onnx {

/// Memory options shared with the planner (validated now; they will drive the tiled runtime).
struct platform_options {
  std::string platform = "gap8";
  std::int64_t l1 = 0;        ///< bytes of L1, core stacks included; 0: the platform's default
  std::int64_t l2 = 0;        ///< bytes of L2; 0: the platform's default
  std::int64_t l1_tiles = 0;  ///< bytes of L1 left for tiles (L1 = this + the stacks); 0: unset
  int stack_master = -1;      ///< stack bytes of core 0; -1: the platform's
  int stack_worker = -1;      ///< stack bytes of each other core; -1: the platform's
};

/// Parses a byte count: a plain integer, or with a k/K/kB/KiB (x1024) or M/MiB suffix.
std::optional<std::int64_t> parse_bytes(const std::string& s);
/// Returns an error message, or an empty string when the options are usable.
std::string validate(const platform_options& p);
/// The platform the options describe (the named one with its L1 / L2 replaced).
platform platform_of(const platform_options& o);

struct verify_options {
  platform_options platform;
  std::string dump_dir;  ///< non-empty: write every layer's output there as out_layerK.txt
  import_options import;
};

struct layer_check {
  int vector = -1;   ///< test vector K (input_K.txt), -1 for a folder with one input.txt
  int golden = -1;   ///< the layer's anchor number (its out_layerK.txt in DORY's numbering)
  int layer = -1;    ///< index in the imported network
  std::string file;  ///< the golden file this layer was compared with ("" if none)
  std::string kind;
  shape dims{};
  std::int64_t elements = 0;         ///< computed
  std::int64_t golden_elements = 0;  ///< in the file
  std::int64_t mismatches = 0;
  std::int64_t max_diff = 0;
  std::string layout;  ///< "HWC" or "CHW": the order the golden file matched in
  std::string note;
  std::int64_t cycles = 0;  ///< the layer's modeled cycles in the plan (0: not planned)
  bool counted = true;      ///< counts towards exact/total (false: a file without a layer, ...)
  [[nodiscard]] bool exact() const { return mismatches == 0 && elements == golden_elements; }
};

struct verify_report {
  std::string engine;
  std::vector<layer_check> rows;
  std::vector<std::string> notes;
  int vectors = 0;          ///< test vectors run (input_K.txt files, or 1 for input.txt)
  bool multi = false;       ///< the folder holds input_K.txt files
  std::int64_t cycles = 0;  ///< the network's modeled cycles (0: the plan does not fit)
  int exact = 0;
  int total = 0;
  [[nodiscard]] bool ok() const { return total > 0 && exact == total; }
};

/// Imports, runs and compares. A folder with `input_K.txt` files runs every one of them against
/// its `out_K_layerJ.txt` and `output_K.txt`; otherwise `input.txt` against `out_layerJ.txt`.
/// Golden files are matched to layers in order by element count (a numbering that skips or
/// repeats a layer still aligns; each row names its file). Throws import_error /
/// std::runtime_error on unusable input.
verify_report verify_folder(const std::string& dir, const verify_options& options,
                            const engine& e = default_engine());

/// Compares one layer output (HWC) with a golden vector, trying HWC then CHW order.
layer_check compare(const shape& s, const std::vector<std::int32_t>& got,
                    const std::vector<std::int64_t>& golden);

/// The table and the final `N/M layers bit-exact` line.
void print_report(std::ostream& os, const verify_report& r);

/// The same as one JSON object.
void print_json(std::ostream& os, const verify_report& r);

/// Golden files matched to layers: file j has `counts[j]` values and the number
/// `file_numbers[j]`; layer i (in order) has `elements[i]` and the anchor number `numbers[i]`;
/// `exact(i, j)` says whether layer i's output equals file j. Returns the file index of each
/// layer (-1: none): an order-preserving matching of equal element counts that maximises the
/// exact pairs, then the pairs, then the pairs whose numbers agree.
std::vector<int> align_golden(const std::vector<std::int64_t>& elements,
                              const std::vector<int>& numbers,
                              const std::vector<std::int64_t>& counts,
                              const std::vector<int>& file_numbers,
                              const std::function<bool(std::size_t, std::size_t)>& exact);

}  // namespace ctile::onnx
