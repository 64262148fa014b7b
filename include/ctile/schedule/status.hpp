// What the run-time entry points (executor::prepare / stage / load_input / run,
// schedule::stage_weights, the host runners, schedule::read_output) found wrong with the data and
// buffers they were given. Every entry checks the sizes of what it receives against the
// network's shapes and the plan before it touches a byte, and returns a run_status: when it is
// not ok() the entry did nothing (no read or write past the end of anything). Freestanding: no
// allocation, no I/O, no exceptions; firmware tests ok() and reports `what`, `layer`, `expected`
// and `got` however it reports errors.
#pragma once

#include <cstdint>

#include "ctile/network/params.hpp"

namespace ctile {

struct [[nodiscard]] run_status {
  enum class field : unsigned char {
    none,     ///< everything checked out
    weights,  ///< a layer's weights: `expected` / `got` elements
    bias,     ///< a layer's bias (elements)
    kappa,    ///< a layer's batch-norm scale (elements)
    lambda,   ///< a layer's batch-norm offset (elements)
    params,   ///< the number of layer_params entries (one per layer)
    quant,    ///< the number of requantization plans (one per layer)
    input,    ///< the network input (bytes, exactly the input layer's elements)
    output,   ///< a buffer a layer's output is read from (at least its bytes)
    l1,       ///< the L1 buffer (at least the plan's bytes)
    l2,       ///< the L2 arena (at least the plan's bytes)
    l3,       ///< the L3 image or memory (at least the plan's bytes)
  };
  field what = field::none;
  int layer = -1;             ///< the layer concerned, or -1 (a buffer of the whole network)
  std::int64_t expected = 0;  ///< elements (constant data) or bytes (buffers)
  std::int64_t got = 0;
  /// True when the sizes were right and the entry did its work.
  [[nodiscard]] constexpr bool ok() const { return what == field::none; }
  friend constexpr bool operator==(const run_status&, const run_status&) = default;
};

/// The field's name ("weights", "L2 buffer", ...).
constexpr const char* field_name(run_status::field f) {
  using F = run_status::field;
  switch (f) {
    case F::none:
      return "none";
    case F::weights:
      return "weights";
    case F::bias:
      return "bias";
    case F::kappa:
      return "kappa";
    case F::lambda:
      return "lambda";
    case F::params:
      return "parameter entries";
    case F::quant:
      return "requantization plans";
    case F::input:
      return "input";
    case F::output:
      return "output buffer";
    case F::l1:
      return "L1 buffer";
    case F::l2:
      return "L2 buffer";
    case F::l3:
      return "L3 buffer";
  }
  return "?";
}

/// Whether the field's `expected` is exact (constant data, the input, one entry per layer) or a
/// least size (buffers).
constexpr bool exact_size(run_status::field f) {
  using F = run_status::field;
  return f != F::output && f != F::l1 && f != F::l2 && f != F::l3;
}

/// The check of bound constant data (check_params) as a run_status.
constexpr run_status status_of(const params_problem& p) {
  using F = params_problem::field;
  using R = run_status::field;
  R w = R::none;
  switch (p.what) {
    case F::none:
      return {};
    case F::weights:
      w = R::weights;
      break;
    case F::bias:
      w = R::bias;
      break;
    case F::kappa:
      w = R::kappa;
      break;
    case F::lambda:
      w = R::lambda;
      break;
  }
  return {w, p.layer, p.expected, p.got};
}

/// `got` against a least size.
constexpr run_status at_least(run_status::field f, int layer, std::int64_t expected,
                              std::int64_t got) {
  if (got >= expected) return {};
  return {f, layer, expected, got};
}

/// `got` against an exact size.
constexpr run_status exactly(run_status::field f, int layer, std::int64_t expected,
                             std::int64_t got) {
  if (got == expected) return {};
  return {f, layer, expected, got};
}

}  // namespace ctile
