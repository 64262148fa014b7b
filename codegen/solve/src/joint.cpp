// The joint problem of a whole network: every layer's tiling (among its row-tile candidates),
// where its weights live (resident in L2, or streamed from L3 for the layer's run) and where
// its output lives (L2, or L3 with row stripes through L2), at once, minimising modeled cycles
// subject to the L2 held at every step and to L3's size. A linear 0-1 program:
//
//   L2 at step i = resident weights (sum over j of [weights of j in L2] * W_j)
//                + [weights of i streamed] * 2 stripes of the chosen channel tile
//                + [weights of i+1 streamed] * its first stripe (prefetched)
//                + outputs alive at step i kept in L2 (sum of [output of j in L2] * Y_j)
//                + for an input of i in L3: 2 input row stripes of the chosen row tile
//                + for the output of i in L3: 2 output row stripes of the chosen row tile
//   cycles of i  = L1 cycles of the chosen tiling + max(0, L3 traffic of i - L1 cycles)
//
// where the L3 traffic of layer i is its streamed weights, its inputs read from L3 and its
// output written to L3 (cost::l3_cycles). The products [placement] * [tiling] appear only as
// Z3 `ite` over a conjunction of Booleans, and max(0, .) as an integer above both, so the
// problem stays linear.
#include <z3++.h>
#include <chrono>
#include <cinttypes>
#include <cstdio>

#include <ctile/plan/cost_model.hpp>

#include "ctile/solve/solve.hpp"

namespace ctile::solve {

namespace {

std::int64_t align4(std::int64_t b) {
  return (b + 3) & ~std::int64_t{3};
}

std::string reason_unknown(z3::optimize& opt) {
  const char* r = Z3_optimize_get_reason_unknown(opt.ctx(), opt);
  return r != nullptr ? r : "unknown";
}

// Input rows a band of `rows` output rows reads.
std::int64_t in_rows(const layer_problem& l, int rows) {
  if (l.kind == op::linear || !l.has_problem) return l.in.h;
  const std::int64_t r = std::int64_t{rows - 1} * l.problem.stride.h + l.problem.kernel.h;
  return r < l.in.h ? r : l.in.h;
}

}  // namespace

joint_solution solve_joint(const problem_set& s, const solve_options& o) {
  joint_solution r;
  const auto t0 = std::chrono::steady_clock::now();
  const platform& p = s.target;
  const int n = static_cast<int>(s.layers.size());
  r.l2_budget = p.l2_budget();
  std::vector<std::vector<candidate>> cands(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const layer_problem& l = s.layers[static_cast<std::size_t>(i)];
    if (!l.has_problem) continue;
    // A candidate with no fewer cycles, no thinner row tile and no thinner channel tile than
    // another holds no advantage in L2 either: only the Pareto front in (cycles, row tile,
    // channel tile) enters the joint problem.
    std::vector<candidate> all = layer_candidates(l.problem);
    std::vector<candidate> front;
    for (const candidate& c : all) {
      bool dominated = false;
      for (const candidate& d : all)
        if (&d != &c && d.cycles <= c.cycles && d.th <= c.th && d.tc <= c.tc &&
            (d.cycles < c.cycles || d.th < c.th || d.tc < c.tc))
          dominated = true;
      if (!dominated) front.push_back(c);
    }
    cands[static_cast<std::size_t>(i)] = front;
    if (cands[static_cast<std::size_t>(i)].empty()) {
      char b[256];
      std::snprintf(b, sizeof b,
                    "layer %d '%s' (%s): no tiling fits the L1 budget of %d bytes; the smallest L1 "
                    "budget that would work is %d bytes",
                    i, l.name.c_str(), op_name(l.kind), l.problem.l1_budget,
                    min_l1_need(l.problem));
      r.error = b;
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      return r;
    }
  }
  // Last step each output is alive (its last consumer; the network output to the end).
  std::vector<int> last(static_cast<std::size_t>(n), n - 1);
  for (int j = 0; j < n; ++j) {
    int lc = -1;
    for (int k = j + 1; k < n; ++k) {
      const auto& lk = s.layers[static_cast<std::size_t>(k)];
      if (lk.src[0] == j || lk.src[1] == j) lc = k;
    }
    last[static_cast<std::size_t>(j)] = lc < 0 ? n - 1 : lc;
  }

  z3::context ctx;
  auto I = [&](std::int64_t v) { return ctx.int_val(static_cast<int64_t>(v)); };
  // Names built with snprintf: GCC 12 reports false -Wrestrict positives on string chains.
  auto name = [](const char* what, int i, int k = -1) {
    char b[48];
    if (k >= 0)
      std::snprintf(b, sizeof b, "%s%d_%d", what, i, k);
    else
      std::snprintf(b, sizeof b, "%s%d", what, i);
    return std::string(b);
  };
  std::vector<std::vector<z3::expr>> pick(static_cast<std::size_t>(n));
  std::vector<z3::expr> wl3, yl3, l1cyc, exposed, held;
  z3::expr_vector hard(ctx);
  for (int i = 0; i < n; ++i) {
    const layer_problem& l = s.layers[static_cast<std::size_t>(i)];
    wl3.push_back(ctx.bool_const(name("w", i).c_str()));
    yl3.push_back(ctx.bool_const(name("y", i).c_str()));
    if (!p.has_l3() || l.weight_bytes == 0) hard.push_back(!wl3.back());
    if (!p.has_l3()) hard.push_back(!yl3.back());
    // The layer's L1 cycles: its best candidate's, plus the chosen one's excess over it (an
    // integer with that lower bound: the optimiser's relaxation starts at the per-layer optima).
    const auto& ci = cands[static_cast<std::size_t>(i)];
    std::int64_t least = 0;
    for (std::size_t k = 0; k < ci.size(); ++k)
      if (k == 0 || ci[k].cycles < least) least = ci[k].cycles;
    z3::expr one = I(0), excess = I(0);
    for (std::size_t k = 0; k < ci.size(); ++k) {
      z3::expr b = ctx.bool_const(name("t", i, static_cast<int>(k)).c_str());
      pick[static_cast<std::size_t>(i)].push_back(b);
      one = one + z3::ite(b, I(1), I(0));
      if (ci[k].cycles > least) excess = excess + z3::ite(b, I(ci[k].cycles - least), I(0));
    }
    if (l.has_problem) hard.push_back(one == 1);
    z3::expr cyc = ctx.int_const(name("c", i).c_str());
    hard.push_back(cyc == I(least) + excess);
    l1cyc.push_back(cyc);
  }
  // A linear layer reads its whole input: never from L3 row stripes.
  for (int i = 0; i < n; ++i) {
    const layer_problem& l = s.layers[static_cast<std::size_t>(i)];
    if (l.kind == op::linear)
      for (int src : l.src)
        if (src >= 0) hard.push_back(!yl3[static_cast<std::size_t>(src)]);
  }
  // L3 capacity.
  {
    z3::expr used = I(0);
    for (int i = 0; i < n; ++i) {
      const layer_problem& l = s.layers[static_cast<std::size_t>(i)];
      used = used + z3::ite(wl3[static_cast<std::size_t>(i)], I(align4(l.weight_bytes)), I(0)) +
             z3::ite(yl3[static_cast<std::size_t>(i)], I(align4(l.output_bytes)), I(0));
    }
    hard.push_back(used <= I(p.l3_bytes));
  }
  z3::expr resident = I(0);
  for (int j = 0; j < n; ++j)
    resident = resident + z3::ite(wl3[static_cast<std::size_t>(j)], I(0),
                                  I(align4(s.layers[static_cast<std::size_t>(j)].weight_bytes)));
  z3::expr total = I(0);
  for (int i = 0; i < n; ++i) {
    const layer_problem& l = s.layers[static_cast<std::size_t>(i)];
    const auto& ci = cands[static_cast<std::size_t>(i)];
    z3::expr h = resident;
    // Streamed weights come in double-buffered stripes of the chosen channel tile; the next
    // layer's first stripe is prefetched while this one runs.
    auto stripe = [&](int j, std::size_t k) {
      const layer_problem& lj = s.layers[static_cast<std::size_t>(j)];
      const std::int64_t per_c = lj.out.c > 0 ? lj.weight_bytes / lj.out.c : 0;
      return align4(cands[static_cast<std::size_t>(j)][k].tc * per_c);
    };
    for (std::size_t k = 0; k < ci.size(); ++k)
      h = h + z3::ite(wl3[static_cast<std::size_t>(i)] && pick[static_cast<std::size_t>(i)][k],
                      I(2 * stripe(i, k)), I(0));
    if (i + 1 < n)
      for (std::size_t k = 0; k < cands[static_cast<std::size_t>(i + 1)].size(); ++k)
        h = h + z3::ite(wl3[static_cast<std::size_t>(i + 1)] &&
                            pick[static_cast<std::size_t>(i + 1)][k],
                        I(stripe(i + 1, k)), I(0));
    for (int j = 0; j <= i; ++j)
      if (last[static_cast<std::size_t>(j)] >= i)
        h = h + z3::ite(yl3[static_cast<std::size_t>(j)], I(0),
                        I(align4(s.layers[static_cast<std::size_t>(j)].output_bytes)));
    z3::expr traffic = I(0);
    if (l.has_problem) {
      const std::int64_t row_y = std::int64_t{l.out.w} * l.out.c * l.problem.out_bpe;
      const std::int64_t row_x = std::int64_t{l.in.w} * l.in.c * l.problem.inputs;
      for (std::size_t k = 0; k < ci.size(); ++k) {
        const z3::expr& b = pick[static_cast<std::size_t>(i)][k];
        const std::int64_t ys = 2 * align4(std::int64_t{ci[k].th} * row_y);
        const std::int64_t xs = 2 * align4(in_rows(l, ci[k].th) * row_x);
        h = h + z3::ite(yl3[static_cast<std::size_t>(i)] && b, I(ys), I(0));
        z3::expr any_in_l3 = ctx.bool_val(false);
        for (int src : l.src)
          if (src >= 0) any_in_l3 = any_in_l3 || yl3[static_cast<std::size_t>(src)];
        h = h + z3::ite(any_in_l3 && b, I(xs), I(0));
      }
      traffic = traffic + z3::ite(wl3[static_cast<std::size_t>(i)],
                                  I(cost::l3_cycles(p, l.weight_bytes, 1)), I(0));
      for (int src : l.src)
        if (src >= 0)
          traffic =
              traffic + z3::ite(yl3[static_cast<std::size_t>(src)],
                                I(cost::l3_cycles(
                                    p, s.layers[static_cast<std::size_t>(src)].output_bytes, 1)),
                                I(0));
      traffic = traffic + z3::ite(yl3[static_cast<std::size_t>(i)],
                                  I(cost::l3_cycles(p, l.output_bytes, 1)), I(0));
    }
    held.push_back(h);
    z3::expr e = ctx.int_const(name("e", i).c_str());
    hard.push_back(e >= 0);
    hard.push_back(e >= traffic - l1cyc[static_cast<std::size_t>(i)]);
    exposed.push_back(e);
    total = total + l1cyc[static_cast<std::size_t>(i)] + e;
  }

  auto read = [&](const z3::model& m) {
    r.layers.clear();
    r.cycles = 0;
    r.l2_peak = 0;
    for (int i = 0; i < n; ++i) {
      joint_layer jl;
      jl.index = i;
      for (std::size_t k = 0; k < pick[static_cast<std::size_t>(i)].size(); ++k)
        if (m.eval(pick[static_cast<std::size_t>(i)][k], true).is_true())
          jl.chosen = cands[static_cast<std::size_t>(i)][k];
      jl.weights_in_l3 = m.eval(wl3[static_cast<std::size_t>(i)], true).is_true();
      jl.output_in_l3 = m.eval(yl3[static_cast<std::size_t>(i)], true).is_true();
      jl.l1_cycles = m.eval(l1cyc[static_cast<std::size_t>(i)], true).get_numeral_int64();
      jl.l3_exposed = m.eval(exposed[static_cast<std::size_t>(i)], true).get_numeral_int64();
      jl.l2_bytes = m.eval(held[static_cast<std::size_t>(i)], true).get_numeral_int64();
      r.cycles += jl.l1_cycles + jl.l3_exposed;
      if (jl.l2_bytes > r.l2_peak) r.l2_peak = jl.l2_bytes;
      r.layers.push_back(jl);
    }
  };

  z3::optimize opt(ctx);
  z3::params prm(ctx);
  prm.set("timeout", o.timeout_ms);
  opt.set(prm);
  for (unsigned k = 0; k < hard.size(); ++k) opt.add(hard[k]);
  for (const z3::expr& h : held) opt.add(h <= I(r.l2_budget));
  opt.minimize(total);
  const z3::check_result res = opt.check();
  if (res == z3::sat) {
    read(opt.get_model());
    r.ok = true;
  } else if (res == z3::unsat) {
    // The smallest L2 budget that would work: the same problem, minimising the peak.
    z3::optimize least(ctx);
    least.set(prm);
    for (unsigned k = 0; k < hard.size(); ++k) least.add(hard[k]);
    z3::expr peak = ctx.int_const("peak");
    for (const z3::expr& h : held) least.add(peak >= h);
    least.minimize(peak);
    std::string need = "unknown (Z3 gave no answer)";
    if (least.check() == z3::sat) {
      read(least.get_model());
      need = std::to_string(r.l2_peak) + " bytes";
    }
    char b[256];
    std::snprintf(b, sizeof b,
                  "no placement of weights and outputs fits the L2 budget of %" PRId64
                  " bytes; the smallest L2 budget that would work is %s",
                  r.l2_budget, need.c_str());
    r.error = b;
  } else {
    char b[256];
    std::snprintf(b, sizeof b, "the joint problem: Z3 gave no answer within %u ms (%s)",
                  o.timeout_ms, reason_unknown(opt).c_str());
    r.error = b;
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

std::string joint_json(const problem_set& s, const joint_solution& j) {
  std::string t;
  char b[512];
  std::snprintf(b, sizeof b,
                "{\"joint\": true, \"ok\": %s, \"objective\": %" PRId64 ", \"l2_peak\": %" PRId64
                ", \"l2_budget\": %" PRId64 ", \"seconds\": %.6f, \"layers\": [",
                j.ok ? "true" : "false", j.cycles, j.l2_peak, j.l2_budget, j.seconds);
  t += b;
  for (std::size_t i = 0; i < j.layers.size(); ++i) {
    const joint_layer& l = j.layers[i];
    std::snprintf(b, sizeof b,
                  "%s\n  {\"index\": %d, \"kind\": \"%s\", \"tile\": [%d, %d, %d], \"split\": "
                  "\"%s\", \"weights\": \"%s\", \"output\": \"%s\", \"l1_cycles\": %" PRId64
                  ", \"l3_exposed\": %" PRId64 ", \"l2_bytes\": %" PRId64 "}",
                  i == 0 ? "" : ",", l.index, op_name(s.layers[i].kind), l.chosen.th, l.chosen.tw,
                  l.chosen.tc, split_name(l.chosen.split.kind), l.weights_in_l3 ? "l3" : "l2",
                  l.output_in_l3 ? "l3" : "l2", l.l1_cycles, l.l3_exposed, l.l2_bytes);
    t += b;
  }
  t += "\n ]";
  if (!j.error.empty()) {
    t += ", \"error\": \"";
    for (char c : j.error) t += c == '"' ? '\'' : c;
    t += "\"";
  }
  t += "}\n";
  return t;
}

}  // namespace ctile::solve
