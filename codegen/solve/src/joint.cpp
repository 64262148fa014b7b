// The joint problem of a whole network: every layer's tiling (among its row-tile candidates)
// and its L3 placement at once — weights resident in L2, whole in L3 (prefetched or not) or
// streamed from L3 in double-buffered stripes of the candidate's channel tile; the output kept
// in L2 or written to L3 in double-buffered bands of the candidate's row tile — minimising the
// network's modeled cycles subject to every step's L2 and to L3's size. A linear 0-1 program:
//
//   need(i) = resident weights (sum over j of [weights of j resident] * W_j)
//           + live outputs (sum over j alive across step i, other than i's inputs, of
//             [output of j in L2] * Y_j)
//           + i's buffers: x(k, inputs in L3) + y(k, output in L3) + w(k, weight mode)
//           + [i prefetches i+1's first weight block] * w(i+1)    <= L2 budget
//   cost(i) >= cycles(k, inputs in L3, weight mode, output in L3)  when that combination holds
//
// A layer whose first weight block (whole weights or first stripe) the previous step
// prefetches shows only what of that read exceeds the previous step's slack (its loop nest
// less its own L3 transfers): slack(i-1) <= that figure of the chosen combination, and
// cost(i) >= cycles with the block hidden + max(0, block - slack(i-1)) as two linear bounds.
//
// where k is the chosen candidate. Every coefficient (buffer bytes, cycles) is computed by
// the planner's own functions (l3_buffers, l3_decision_for, cost::layer_cycles), on the layers
// rebuilt from the export, so the objective is exactly what plan_of will compute. Conditions
// are conjunctions of Booleans implying integer lower bounds: no product of variables and no
// ceil-division reaches Z3. A solution is then re-checked by finish_network_imported (the
// compiler's check), whose bidirectional stack may peak above the step sums: that step's room
// is lowered by the excess and the problem solved again. Bands and stripes are then widened
// where the check passes and the cycles drop, and the greedy cascade's plan, run through the
// same check, is kept instead when it models fewer cycles.
#include <z3++.h>
#include <chrono>
#include <cinttypes>
#include <cstdio>

#include <ctile/plan/cost_model.hpp>
#include <ctile/plan/network_plan.hpp>

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

std::string fmt(const char* f, auto... a) {
  char b[512];
  std::snprintf(b, sizeof b, f, a...);
  return b;
}

// The layer plan of candidate c (what imported_layer_plan builds from the header's row).
layer_plan plan_of_candidate(const layer_problem& l, const platform& p, const candidate& c) {
  if (!l.has_problem) return plan_layer(l.net, p);
  const imported_layer im{l.kind, l.out.h, l.out.w, l.out.c,  l.in.c, c.tc,
                          c.th,   c.tw,    c.split, c.cycles, c.tk,   c.cores};
  return imported_layer_plan(l.net, p, im, objective::model);
}

// Weight modes of a layer.
enum wmode : int { w_resident = 0, w_whole = 1, w_striped = 2 };

// The placement of layer `l` with candidate `c` in a combination of choices.
imported_l3 placement(const layer_problem& l, const candidate& c, int mode, bool y, int in_l3,
                      bool prefetch) {
  imported_l3 d;
  d.w = mode != w_resident;
  d.w_stripe_c = mode == w_striped ? c.tc : l.out.c;
  d.y = y;
  d.y_stripe_h = (y || in_l3 > 0) && l.has_problem ? c.th : l.out.h;
  d.prefetch_next = prefetch;
  return d;
}

}  // namespace

network_summary check_joint(const problem_set& s, const joint_solution& j);
network_summary check_joint_plans(const problem_set& s, const joint_solution& j,
                                  std::vector<layer_plan>* out);

namespace {

// The model bands rows by one L1 row tile and stripes weights by one L1 channel tile (the
// least L2). Afterwards, layer by layer, the widest band and stripe (whole multiples of the
// tiles) that still pass the compiler's check and lower the modeled cycles are taken.
void widen(const problem_set& s, joint_solution& j, network_summary& v) {
  for (std::size_t i = 0; i < j.layers.size(); ++i) {
    const layer_problem& l = s.layers[i];
    if (!l.has_problem) continue;
    joint_layer& jl = j.layers[i];
    auto attempt = [&](imported_l3 next) {
      const imported_l3 before = jl.place;
      jl.place = next;
      const network_summary w = check_joint(s, j);
      if (w.ok() && w.cycles < v.cycles) {
        v = w;
        return true;
      }
      jl.place = before;
      return false;
    };
    if (jl.place.y_stripe_h < l.out.h) {
      const int th = jl.chosen.th;
      for (int band = l.out.h; band > jl.place.y_stripe_h; band = ((band - 1) / th) * th) {
        imported_l3 next = jl.place;
        next.y_stripe_h = band;
        if (attempt(next)) break;
      }
    }
    if (jl.place.w && jl.place.w_stripe_c < l.out.c) {
      const int tc = jl.chosen.tc;
      for (int c = ((l.out.c - 1) / tc) * tc; c > jl.place.w_stripe_c; c -= tc) {
        imported_l3 next = jl.place;
        next.w_stripe_c = c;
        if (attempt(next)) break;
      }
    }
  }
}

// The greedy cascade's plan of the same layers (the constexpr search per layer, then
// finish_network) as joint decisions, when it fits: the incumbent the joint solution must
// beat. The model sums each step's buffers; the stack's layout can cost more, and then the
// cascade's choice may be better.
bool greedy_plan(const problem_set& s, joint_solution& g) {
  const std::size_t n = s.layers.size();
  std::vector<layer> ls(n);
  std::vector<layer_plan> plans(n);
  std::vector<layer_l2> l2(n);
  for (std::size_t i = 0; i < n; ++i) {
    ls[i] = s.layers[i].net;
    plans[i] = s.layers[i].has_problem ? plan_problem(s.layers[i].problem, objective::model)
                                       : plan_layer(ls[i], s.target);
  }
  const network_summary v = finish_network(ls, s.target, plans, l2);
  if (!v.ok()) return false;
  g.layers.clear();
  for (std::size_t i = 0; i < n; ++i) {
    const layer_plan& lp = plans[i];
    const l3_decision& d = lp.l3;
    joint_layer jl;
    jl.index = static_cast<int>(i);
    if (s.layers[i].has_problem)
      jl.chosen = {lp.tile_c, lp.tile_h, lp.tile_w, lp.split, lp.l1_cycles, lp.l1.total, 0};
    jl.place.w = d.w;
    jl.place.w_stripe_c = d.w ? d.w_stripe_c : ls[i].out.c;
    jl.place.y = d.y;
    jl.place.y_stripe_h = d.y_stripe_h > 0 ? d.y_stripe_h : ls[i].out.h;
    // Only weights read from L3 are prefetched (their first block).
    jl.place.prefetch_next = d.prefetch_next && i + 1 < n && plans[i + 1].l3.w;
    jl.l1_cycles = lp.l1_cycles;
    jl.l3_cycles = d.cycles;
    g.layers.push_back(jl);
  }
  return true;
}

}  // namespace

network_summary check_joint(const problem_set& s, const joint_solution& j) {
  return check_joint_plans(s, j, nullptr);
}

network_summary check_joint_plans(const problem_set& s, const joint_solution& j,
                                  std::vector<layer_plan>* out) {
  const std::size_t n = s.layers.size();
  std::vector<layer> ls(n);
  std::vector<layer_plan> plans(n);
  std::vector<layer_l2> l2(n);
  std::vector<imported_l3> choice(n);
  network_summary bad;
  for (std::size_t i = 0; i < n; ++i) {
    const layer_problem& l = s.layers[i];
    ls[i] = l.net;
    const candidate& c = j.layers[i].chosen;
    if (l.has_problem) {
      const imported_layer im{l.kind, l.out.h, l.out.w, l.out.c,  l.in.c, c.tc,
                              c.th,   c.tw,    c.split, c.cycles, c.tk,   c.cores};
      const imported_check ck = check_imported_layer(l.net, s.target, im);
      if (!ck.ok()) {
        bad.problem = plan_fault::imported;
        bad.layer = static_cast<int>(i);
        bad.violated = ck.violated;
        bad.needs = ck.value;
        bad.budget = ck.limit;
        return bad;
      }
    }
    plans[i] = plan_of_candidate(l, s.target, c);
    choice[i] = j.layers[i].place;
  }
  const network_summary v = finish_network_imported(ls, s.target, plans, l2, choice);
  if (out != nullptr) *out = plans;
  return v;
}

joint_solution solve_joint(const problem_set& s, const solve_options& o) {
  joint_solution r;
  const auto t0 = std::chrono::steady_clock::now();
  auto done = [&]() -> joint_solution& {
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  };
  const platform& p = s.target;
  const int n = static_cast<int>(s.layers.size());
  const auto at = [](auto& v, int i) -> auto& {
    return v[static_cast<std::size_t>(i)];
  };
  r.l2_budget = p.l2_budget();
  if (n > max_layers) {
    r.error = fmt("the network has %d layers, more than the %d a plan holds", n, max_layers);
    return done();
  }
  std::vector<std::vector<candidate>> cands(static_cast<std::size_t>(n));
  std::vector<std::vector<layer_plan>> cplans(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const layer_problem& l = at(s.layers, i);
    if (!l.has_problem) {
      at(cands, i).push_back(candidate{});
      at(cplans, i).push_back(plan_of_candidate(l, p, candidate{}));
      continue;
    }
    // A candidate with no fewer cycles, no thinner row tile and no thinner channel tile than
    // another holds no advantage in L2 or L3 either: only the Pareto front in (cycles, row
    // tile, channel tile) enters the joint problem.
    const std::vector<candidate> all = layer_candidates_on_cores(l.problem);
    for (const candidate& c : all) {
      bool dominated = false;
      for (const candidate& d : all)
        if (&d != &c && d.cycles <= c.cycles && d.th <= c.th && d.tc <= c.tc &&
            (d.cycles < c.cycles || d.th < c.th || d.tc < c.tc))
          dominated = true;
      if (!dominated) {
        at(cands, i).push_back(c);
        at(cplans, i).push_back(plan_of_candidate(l, p, c));
      }
    }
    if (at(cands, i).empty()) {
      r.error =
          fmt("layer %d '%s' (%s): no tiling fits the L1 budget of %d bytes; the smallest L1 "
              "budget that would work is %d bytes",
              i, l.name.c_str(), op_name(l.kind), l.problem.l1_budget, min_l1_need(l.problem));
      return done();
    }
  }
  std::vector<int> last(static_cast<std::size_t>(n), n - 1);
  {
    std::vector<layer> ls;
    for (const auto& l : s.layers) ls.push_back(l.net);
    for (int j = 0; j < n; ++j) {
      const int c = plan_detail::last_consumer(ls, j);
      at(last, j) = c < 0 ? n - 1 : c;
    }
  }

  r.model_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  z3::context ctx;
  auto I = [&](std::int64_t v) { return ctx.int_val(static_cast<int64_t>(v)); };
  auto B = [&](const char* what, int i) {
    char b[48];
    std::snprintf(b, sizeof b, "%s%d", what, i);
    return ctx.bool_const(b);
  };
  auto N = [&](const char* what, int i) {
    char b[48];
    std::snprintf(b, sizeof b, "%s%d", what, i);
    return ctx.int_const(b);
  };
  std::vector<std::vector<z3::expr>> pick(static_cast<std::size_t>(n));
  std::vector<z3::expr> wl, ws, yl, pf, cost, need;
  z3::expr_vector hard(ctx);
  for (int i = 0; i < n; ++i) {
    const layer_problem& l = at(s.layers, i);
    wl.push_back(B("wl", i));  // weights whole in L3
    ws.push_back(B("ws", i));  // weights streamed from L3 in stripes
    yl.push_back(B("y", i));   // output in L3
    pf.push_back(B("pf", i));  // prefetches the next layer's first weight block
    hard.push_back(!(wl.back() && ws.back()));
    if (!p.has_l3() || l.weight_bytes == 0) hard.push_back(!wl.back() && !ws.back());
    // Streaming forced by the platform: no weights resident.
    else if (p.stream_weights)
      hard.push_back(wl.back() || ws.back());
    // No L3, or a linear layer (whose output the greedy cascade never bands either).
    if (!p.has_l3() || l.kind == op::linear) hard.push_back(!yl.back());
    z3::expr one = I(0);
    for (std::size_t k = 0; k < at(cands, i).size(); ++k) {
      char b[48];
      std::snprintf(b, sizeof b, "t%d_%zu", i, k);
      at(pick, i).push_back(ctx.bool_const(b));
      one = one + z3::ite(at(pick, i).back(), I(1), I(0));
    }
    hard.push_back(one == 1);
  }
  for (int i = 0; i < n; ++i) {
    // A prefetch reads the next layer's first weight block from L3.
    if (i + 1 < n)
      hard.push_back(z3::implies(at(pf, i), at(wl, i + 1) || at(ws, i + 1)));
    else
      hard.push_back(!at(pf, i));
    // An add reads its second input from L3 only with its first (the executor's x buffer).
    const layer_problem& l = at(s.layers, i);
    if (l.kind == op::add) hard.push_back(z3::implies(at(yl, l.src[1]), at(yl, l.src[0])));
  }
  // L3 capacity.
  {
    z3::expr used = I(0);
    for (int i = 0; i < n; ++i) {
      const layer_problem& l = at(s.layers, i);
      used = used + z3::ite(at(wl, i) || at(ws, i), I(align4(l.weight_bytes)), I(0)) +
             z3::ite(at(yl, i), I(align4(l.output_bytes)), I(0));
    }
    hard.push_back(used <= I(p.l3_bytes));
  }
  z3::expr resident = I(0);
  for (int j = 0; j < n; ++j)
    resident =
        resident + z3::ite(at(wl, j) || at(ws, j), I(0), I(align4(at(s.layers, j).weight_bytes)));
  // Ties (equal modeled cycles) go to fewer weight loads the layer waits for: weights in L3
  // whose first block the previous layer did not prefetch.
  z3::expr total = I(0), sync_loads = I(0);
  for (int i = 0; i < n; ++i) {
    const layer_problem& l = at(s.layers, i);
    const auto& ci = at(cands, i);
    // The cases of the inputs: how many come from L3 and the condition for it.
    std::vector<std::pair<int, z3::expr>> in_cases;
    if (l.kind == op::input) {
      in_cases.emplace_back(0, ctx.bool_val(true));
    } else if (l.kind == op::add) {
      const z3::expr a = at(yl, l.src[0]), b = at(yl, l.src[1]);
      in_cases.emplace_back(0, !a && !b);
      in_cases.emplace_back(1, a && !b);
      in_cases.emplace_back(2, a && b);
    } else {
      in_cases.emplace_back(0, !at(yl, l.src[0]));
      in_cases.emplace_back(1, at(yl, l.src[0]));
    }
    const z3::expr modes[3] = {!at(wl, i) && !at(ws, i), at(wl, i), at(ws, i)};
    z3::expr c = N("cost", i);
    z3::expr xb = N("xb", i), yb = N("yb", i), wb = N("wb", i);
    z3::expr sl = N("slack", i);
    hard.push_back(c >= 0 && xb >= 0 && yb >= 0 && wb >= 0 && sl >= 0);
    const z3::expr prefetched = i > 0 ? at(pf, i - 1) : ctx.bool_val(false);
    const z3::expr prev_slack = i > 0 ? N("slack", i - 1) : I(0);
    constexpr std::int64_t unbounded = std::int64_t{1} << 40;
    for (std::size_t k = 0; k < ci.size(); ++k) {
      const z3::expr& t = at(pick, i)[k];
      const layer_plan& lp = at(cplans, i)[k];
      // The candidate's loop nest, then each combination whose L3 traffic shows.
      hard.push_back(z3::implies(t, c >= I(lp.l1_cycles)));
      for (const auto& [in_l3, cond] : in_cases)
        for (int m = 0; m < 3; ++m)
          for (int y = 0; y < 2; ++y) {
            const imported_l3 pl = placement(l, ci[k], m, y == 1, in_l3, false);
            const l3_decision d = l3_decision_for(l.net, lp, p, pl, in_l3);
            const z3::expr when = t && cond && modes[m] && (y == 1 ? at(yl, i) : !at(yl, i));
            // The step's slack for a prefetch of the next layer's first weight block.
            const std::int64_t free = lp.l1_cycles > d.busy ? lp.l1_cycles - d.busy : 0;
            hard.push_back(z3::implies(when, sl <= I(free)));
            if (m == w_resident) {
              if (d.cycles > 0) hard.push_back(z3::implies(when, c >= I(lp.l1_cycles + d.cycles)));
              continue;
            }
            if (d.cycles > 0)
              hard.push_back(z3::implies(when && !prefetched, c >= I(lp.l1_cycles + d.cycles)));
            // Prefetched: the first block hidden, then what of it exceeds the slack.
            const l3_decision h = l3_decision_for(l.net, lp, p, pl, in_l3, unbounded);
            const std::int64_t f = first_weight_block_cycles(l.net, p, h);
            if (h.cycles > 0)
              hard.push_back(z3::implies(when && prefetched, c >= I(lp.l1_cycles + h.cycles)));
            hard.push_back(
                z3::implies(when && prefetched, c >= I(lp.l1_cycles + h.cycles + f) - prev_slack));
          }
      // Buffer bytes, each a function of the candidate and one choice (l3_buffers).
      if (l.has_problem) {
        for (const auto& [in_l3, cond] : in_cases) {
          const l3_buffer_bytes b = l3_buffers(l.net, in_l3, ci[k].th, false, l.out.c, false);
          hard.push_back(z3::implies(t && cond, xb >= I(b.x + b.x_resident)));
        }
        for (int y = 0; y < 2; ++y) {
          const l3_buffer_bytes b = l3_buffers(l.net, 0, ci[k].th, false, l.out.c, y == 1);
          hard.push_back(z3::implies(t && (y == 1 ? at(yl, i) : !at(yl, i)), yb >= I(b.y)));
        }
        const l3_buffer_bytes whole = l3_buffers(l.net, 0, l.out.h, false, l.out.c, false);
        const l3_buffer_bytes striped = l3_buffers(l.net, 0, l.out.h, true, ci[k].tc, false);
        hard.push_back(z3::implies(t && modes[w_whole], wb >= I(whole.w)));
        hard.push_back(z3::implies(t && modes[w_striped], wb >= I(striped.w)));
      }
    }
    cost.push_back(c);
    total = total + c;
    sync_loads = sync_loads + z3::ite((at(wl, i) || at(ws, i)) && !prefetched, I(1), I(0));
    // The step's L2 (the input layer's step is the stack's to check).
    z3::expr live = I(0);
    for (int j = 0; j < i; ++j)
      if (at(last, j) > i && j != l.src[0] && j != l.src[1])
        live = live + z3::ite(at(yl, j), I(0), I(align4(at(s.layers, j).output_bytes)));
    // A prefetch takes the next layer's weight buffer(s) during this step.
    const z3::expr next_wb = i + 1 < n ? N("wb", i + 1) : I(0);
    need.push_back(resident + live + xb + yb + wb + z3::ite(at(pf, i), next_wb, I(0)));
    if (!l.has_problem) need.back() = I(0);
  }

  auto read = [&](const z3::model& m) {
    r.layers.clear();
    std::int64_t prev_slack = 0;
    for (int i = 0; i < n; ++i) {
      const layer_problem& l = at(s.layers, i);
      joint_layer jl;
      jl.index = i;
      std::size_t k = 0;
      for (std::size_t q = 0; q < at(pick, i).size(); ++q)
        if (m.eval(at(pick, i)[q], true).is_true()) k = q;
      jl.chosen = at(cands, i)[k];
      const int mode = m.eval(at(ws, i), true).is_true()   ? w_striped
                       : m.eval(at(wl, i), true).is_true() ? w_whole
                                                           : w_resident;
      int in_l3 = 0;
      for (int q = 0; q < l.net.inputs(); ++q) in_l3 += m.eval(at(yl, l.src[q]), true).is_true();
      jl.place = placement(l, jl.chosen, mode, m.eval(at(yl, i), true).is_true(), in_l3,
                           m.eval(at(pf, i), true).is_true());
      const layer_plan& lp = at(cplans, i)[k];
      const bool pre = i > 0 && r.layers.back().place.prefetch_next;
      const l3_decision d = l3_decision_for(l.net, lp, p, jl.place, in_l3, pre ? prev_slack : -1);
      prev_slack = lp.l1_cycles > d.busy ? lp.l1_cycles - d.busy : 0;
      jl.l1_cycles = lp.l1_cycles;
      jl.l3_cycles = d.cycles;
      jl.l2_bytes = m.eval(at(need, i), true).get_numeral_int64();
      r.layers.push_back(jl);
    }
  };

  z3::params prm(ctx);
  prm.set("timeout", o.timeout_ms);
  // The stack may peak above the step sums (buffers trapped under longer-lived ones): the step
  // where it overflows gets that much less room and the problem is solved again.
  std::vector<std::int64_t> slack(static_cast<std::size_t>(n), 0);
  network_summary last_overflow;
  for (int round = 0; round < 8; ++round) {
    z3::optimize opt(ctx);
    opt.set(prm);
    for (unsigned k = 0; k < hard.size(); ++k) opt.add(hard[k]);
    for (int i = 0; i < n; ++i) opt.add(at(need, i) <= I(r.l2_budget - at(slack, i)));
    opt.minimize(total);
    opt.minimize(sync_loads);
    ++r.rounds;
    const z3::check_result res = opt.check();
    if (res == z3::unknown) {
      r.timed_out = true;
      r.error =
          fmt("the joint problem: Z3 gave no answer within %u ms (%s); no plan is imported (the "
              "fallback is the greedy L3 cascade)",
              o.timeout_ms, reason_unknown(opt).c_str());
      return done();
    }
    if (res == z3::unsat) {
      last_overflow = {};
      break;
    }
    read(opt.get_model());
    network_summary v = check_joint(s, r);
    if (v.ok()) {
      widen(s, r, v);
      joint_solution g = r;
      if (greedy_plan(s, g)) {
        const network_summary gv = check_joint(s, g);
        if (gv.ok() && gv.cycles < v.cycles) {
          r.layers = g.layers;
          r.from_greedy = true;
          v = gv;
        }
      }
      // Each layer's cycles as the check computes them (after widening, or the cascade's).
      std::vector<layer_plan> plans;
      v = check_joint_plans(s, r, &plans);
      for (std::size_t i = 0; i < r.layers.size(); ++i) {
        r.layers[i].l1_cycles = plans[i].l1_cycles;
        r.layers[i].l3_cycles = plans[i].l3.cycles;
      }
      r.ok = true;
      r.cycles = v.cycles;
      r.l2_peak = v.l2_peak;
      return done();
    }
    if (v.problem != plan_fault::imported ||
        v.violated != imported_constraint::l2_stack_exceeds_budget) {
      // The model and the compiler's check disagree: a bug, never a header.
      const layer_problem& bad = at(s.layers, v.layer >= 0 ? v.layer : 0);
      r.error =
          fmt("the joint solution fails the planner's re-check at layer %d '%s': %s (%" PRId64
              " against %" PRId64 ")",
              v.layer, bad.name.c_str(), imported_constraint_text(v.violated), v.needs, v.budget);
      return done();
    }
    at(slack, v.layer) += v.needs - v.budget;
    last_overflow = v;
  }
  bool tightened = false;
  for (const std::int64_t k : slack) tightened = tightened || k > 0;
  if (tightened) {
    // Every round's stack overflowed, or the tightened steps left no solution: the cascade's
    // plan if it fits, else an error.
    joint_solution g = r;
    if (greedy_plan(s, g) && check_joint(s, g).ok()) {
      std::vector<layer_plan> plans;
      const network_summary gv = check_joint_plans(s, g, &plans);
      r.layers = g.layers;
      for (std::size_t i = 0; i < r.layers.size(); ++i) {
        r.layers[i].l1_cycles = plans[i].l1_cycles;
        r.layers[i].l3_cycles = plans[i].l3.cycles;
      }
      r.from_greedy = true;
      r.ok = true;
      r.cycles = gv.cycles;
      r.l2_peak = gv.l2_peak;
      return done();
    }
  }
  if (last_overflow.problem != plan_fault::none) {
    const layer_problem& t = at(s.layers, last_overflow.layer);
    r.error = fmt("the joint plan's L2 stack still exceeds the L2 budget of %" PRId64
                  " bytes at layer %d '%s' (%" PRId64
                  " bytes) after %d rounds, and the greedy cascade "
                  "does not fit either",
                  r.l2_budget, last_overflow.layer, t.name.c_str(), last_overflow.needs, r.rounds);
    r.layers.clear();
    return done();
  }
  // Unsatisfiable: the smallest L2 budget that works, by minimising the largest step (then
  // checking that plan's stack), and the step that needs it.
  z3::optimize least(ctx);
  least.set(prm);
  for (unsigned k = 0; k < hard.size(); ++k) least.add(hard[k]);
  z3::expr peak = ctx.int_const("peak");
  for (const z3::expr& h : need) least.add(peak >= h);
  least.minimize(peak);
  ++r.rounds;
  std::string need_text = "unknown (Z3 gave no answer)";
  if (least.check() == z3::sat) {
    const z3::model m = least.get_model();
    read(m);
    const std::int64_t lowest = m.eval(peak, true).get_numeral_int64();
    const network_summary v = check_joint(s, r);
    r.l2_needed = v.l2_peak > lowest ? v.l2_peak : lowest;
    // The step that forces it: among the steps at the peak, the one whose own least L2 (every
    // placement of the network considered) is largest.
    std::int64_t forced = -1;
    for (int i = 0; i < n; ++i) {
      if (m.eval(at(need, i), true).get_numeral_int64() != lowest) continue;
      z3::optimize alone(ctx);
      alone.set(prm);
      for (unsigned k = 0; k < hard.size(); ++k) alone.add(hard[k]);
      alone.minimize(at(need, i));
      ++r.rounds;
      if (alone.check() != z3::sat) continue;
      const std::int64_t own = alone.get_model().eval(at(need, i), true).get_numeral_int64();
      if (own > forced) forced = own, r.tightest_layer = i;
      if (own == lowest) break;
    }
    if (r.tightest_layer >= 0) {
      const layer_problem& t = at(s.layers, r.tightest_layer);
      need_text = fmt("%" PRId64 " bytes (layer %d '%s' (%s) needs at least %" PRId64
                      " bytes of L2 with any placement)",
                      r.l2_needed, r.tightest_layer, t.name.c_str(), op_name(t.kind), forced);
    }
  }
  r.error = fmt("no placement of weights and outputs fits the L2 budget of %" PRId64
                " bytes; the smallest L2 budget that would work is %s",
                r.l2_budget, need_text.c_str());
  r.layers.clear();
  return done();
}

std::string joint_json(const problem_set& s, const joint_solution& j) {
  std::string t;
  char b[512];
  std::snprintf(b, sizeof b,
                "{\"joint\": true, \"ok\": %s, \"objective\": %" PRId64 ", \"l2_peak\": %" PRId64
                ", \"l2_budget\": %" PRId64
                ", \"rounds\": %d, \"seconds\": %.6f, "
                "\"model_seconds\": %.6f, \"from_greedy\": %s, \"layers\": [",
                j.ok ? "true" : "false", j.cycles, j.l2_peak, j.l2_budget, j.rounds, j.seconds,
                j.model_seconds, j.from_greedy ? "true" : "false");
  t += b;
  for (std::size_t i = 0; i < j.layers.size(); ++i) {
    const joint_layer& l = j.layers[i];
    std::snprintf(
        b, sizeof b,
        "%s\n  {\"index\": %d, \"kind\": \"%s\", \"tile\": [%d, %d, %d], \"split\": "
        "\"%s\", \"weights\": \"%s\", \"w_stripe_c\": %d, \"output\": \"%s\", \"y_stripe_h\": "
        "%d, \"prefetch_next\": %s, \"l1_cycles\": %" PRId64 ", \"l3_cycles\": %" PRId64
        ", \"l2_bytes\": %" PRId64 "}",
        i == 0 ? "" : ",", l.index, op_name(s.layers[i].kind), l.chosen.th, l.chosen.tw,
        l.chosen.tc, split_name(l.chosen.split.kind), l.place.w ? "l3" : "l2", l.place.w_stripe_c,
        l.place.y ? "l3" : "l2", l.place.y_stripe_h, l.place.prefetch_next ? "true" : "false",
        l.l1_cycles, l.l3_cycles, l.l2_bytes);
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
