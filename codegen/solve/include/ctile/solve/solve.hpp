// ctile-solve's library: reading exported tiling problems, solving each layer with Z3
// (z3::optimize, with a timeout), the joint L2/L3 problem of a whole network, and writing the
// header of plan specializations the compiler re-checks (ctile/plan/imported.hpp).
//
// The model is written once: the constexpr planner's functions (plan_detail::for_each_tiling,
// l1_bytes_for, cost::layer_cycles_at, cost::splits_for) are evaluated on the host over every
// tiling that fits, and give the coefficients of a linear 0-1 program (one indicator per
// candidate tiling: exactly one chosen, L1 bytes within the budget, modeled cycles minimised,
// ties broken by the search's order). No ceil-division or product of variables reaches Z3,
// so the problems stay linear and small.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <ctile/core/split.hpp>
#include <ctile/layers/layer.hpp>
#include <ctile/plan/network_plan.hpp>
#include <ctile/plan/problem.hpp>
#include <ctile/platform/platform.hpp>

namespace ctile::solve {

/// A problem file that is well-formed JSON but not a valid problem set.
struct problem_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// One exported layer.
struct layer_problem {
  int index = 0;
  std::string name;
  op kind = op::input;
  int src[2] = {-1, -1};
  shape in{}, out{};
  std::int64_t weight_bytes = 0, input_bytes = 0, output_bytes = 0;
  bool has_problem = false;  ///< false for the input layer
  tiling_problem problem{};
  /// The layer rebuilt from the exported fields (what the L3 and L2 checks of
  /// network_plan.hpp read): its weight and output bytes equal the exported ones.
  ctile::layer net{};
};

/// A network's exported problems.
struct problem_set {
  std::string network, type, platform_expr, network_header;
  platform target{};
  std::vector<layer_problem> layers;
};

/// Parses a problem file; throws json_error (malformed JSON) or problem_error.
problem_set read_problems(std::string_view text);

/// One candidate tiling with its model values.
struct candidate {
  int tc = 0, th = 0, tw = 0;
  core_split split{};
  std::int64_t cycles = 0;
  int l1 = 0;
  std::int64_t rank = 0;  ///< position in the constexpr search's order (ties go to the first)
  int tk = 0;             ///< linear: the K tile when the reduction is cut, 0 otherwise
  int cores = 0;          ///< the cores it runs on when fewer than the cluster\'s, 0 otherwise
};

/// The candidates a layer's Z3 problem chooses from: for every row tile, the fitting tiling
/// and split with the fewest modeled cycles (first in search order among equals). The optimum
/// of the layer is among them; the joint problem uses the row tiles for L3 stripes. A linear
/// layer has one candidate per K tile: every balanced K tile (linear_k_tile) with every
/// fitting channel tile, where the constexpr search, to bound compile time, tries only the
/// few largest K tiles that fit.
/// `evaluated` receives the number of tilings the model was evaluated on.
std::vector<candidate> layer_candidates(const tiling_problem& P, std::int64_t* evaluated = nullptr);

/// layer_candidates, or when none fits beside every core's kernel scratch, those of fewer
/// cores (half, a quarter, ...; `candidate::cores` says how many), as search_on_cores.
std::vector<candidate> layer_candidates_on_cores(const tiling_problem& P,
                                                 std::int64_t* evaluated = nullptr);

enum class layer_status : std::uint8_t {
  input,     ///< the network input: nothing to solve
  optimal,   ///< Z3 proved the optimum
  fallback,  ///< Z3 timed out; the constexpr search's plan is used (only when allowed)
  timeout,   ///< Z3 timed out and no fallback was allowed
  unsat,     ///< no tiling fits L1
};
const char* status_name(layer_status s);

struct layer_solution {
  int index = 0;
  layer_status status = layer_status::input;
  candidate chosen{};
  std::int64_t candidates = 0;
  std::int64_t evaluated = 0;
  double model_seconds = 0;  ///< evaluating the shared model (the candidates)
  double z3_seconds = 0;     ///< z3::optimize
  int l1_needed = 0;         ///< the smallest L1 budget any tiling of the layer needs
  std::string message;       ///< for unsat/timeout: the sentence to print
};

struct solve_options {
  unsigned timeout_ms = 10000;   ///< per z3::optimize call
  bool fallback_search = false;  ///< on timeout use the constexpr search's plan instead of failing
};

struct network_solution {
  const char* solver = "z3";  ///< "z3", or "constexpr" (solve_network_by_search)
  std::vector<layer_solution> layers;
  double seconds = 0;
  bool ok = true;  ///< every layer optimal (or fallback, when allowed)
  std::vector<std::string> errors;
};

/// Solves one layer (the input layer trivially).
layer_solution solve_layer(const layer_problem& l, const solve_options& o);

/// Solves every layer (layers of equal problems are solved once).
network_solution solve_network(const problem_set& s, const solve_options& o);

/// The same problems solved by the constexpr search (search_model, run on the host), timed per
/// layer: the reference the Z3 step is compared with.
network_solution solve_network_by_search(const problem_set& s);

/// The text of the generated header: one `ctile::imported_plan` specialization.
std::string plan_header(const problem_set& s, const network_solution& sol,
                        const std::string& source);

/// The solution as JSON (per layer: tiles, split, objective, times, status).
std::string solution_json(const problem_set& s, const network_solution& sol);

// ---- The joint problem (L3 placement and the L2 stack of a whole network at once).

/// Per layer: the chosen candidate and its L3 placement (imported_l3: weights resident in L2,
/// whole in L3 or streamed in stripes of the candidate's channel tile; output in L2 or in L3 in
/// bands of the candidate's row tile; the next layer's first weight block prefetched or not), with
/// the cycles and L2 bytes the planner's own functions give them.
struct joint_layer {
  int index = 0;
  candidate chosen{};
  imported_l3 place{};
  std::int64_t l1_cycles = 0;
  std::int64_t l3_cycles = 0;  ///< L3 traffic not hidden behind the layer's compute
  std::int64_t l2_bytes = 0;   ///< the step's L2 (resident weights, live outputs, buffers)
};
struct joint_solution {
  bool ok = false;
  bool timed_out = false;  ///< Z3 gave no answer in time (the fallback is the greedy cascade)
  std::string error;
  std::int64_t cycles = 0;   ///< the objective: the network's modeled cycles
  std::int64_t l2_peak = 0;  ///< the bidirectional stack's peak (layout_l2_stack)
  std::int64_t l2_budget = 0;
  std::int64_t l2_needed = 0;  ///< unsat: the smallest L2 budget found to work
  int tightest_layer = -1;     ///< unsat: the step at the smallest budget's peak
  int rounds = 0;              ///< z3::optimize calls (a stack above the sum retries)
  double seconds = 0;
  double model_seconds = 0;  ///< evaluating the candidates (before Z3)
  /// The greedy cascade's decisions were kept: they pass the same check and model fewer cycles
  /// than the model's optimum once laid out (the model sums each step; the stack may not).
  bool from_greedy = false;
  std::vector<joint_layer> layers;
};

/// Minimises the network's modeled cycles (L1 loop nests plus unhidden L3 traffic, exactly as
/// finish_network_imported computes them) over every layer's tiling candidates and its L3
/// placement, with every step's L2 (resident weights, live outputs, the step's buffers and
/// prefetch) within the L2 budget and L3 within its size; ties prefer prefetches. Each
/// solution is re-checked by finish_network_imported (the compiler's check); when the stack's
/// layout peaks above the sum (fragmentation), the budget is lowered by the excess and the
/// problem solved again (at most 4 times).
joint_solution solve_joint(const problem_set& s, const solve_options& o);
std::string joint_json(const problem_set& s, const joint_solution& j);

/// Re-checks a joint solution with the compiler's code (check_imported_layer and
/// finish_network_imported) on the rebuilt layers; the summary names any violation.
network_summary check_joint(const problem_set& s, const joint_solution& j);

/// The text of the generated header with the joint decisions: the per-layer tilings of the
/// joint solution and `l3[size]`, which replace the greedy L3 cascade in plan_of.
std::string joint_plan_header(const problem_set& s, const joint_solution& j,
                              const std::string& source);

}  // namespace ctile::solve
