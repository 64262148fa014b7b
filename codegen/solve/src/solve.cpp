#include "ctile/solve/solve.hpp"

#include <z3++.h>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <map>

#include <ctile/plan/cost_model.hpp>
#include <ctile/plan/search.hpp>

#include "ctile/solve/export.hpp"
#include "ctile/solve/json.hpp"

namespace ctile::solve {

namespace {

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string fmt(const char* f, auto... a) {
  char b[512];
  std::snprintf(b, sizeof b, f, a...);
  return b;
}

/// The candidate of a constexpr search's choice.
candidate chosen_of(const tiling_problem& P, const tiling_choice& c) {
  const int cut = P.linear && c.tk < linear_k(P) ? c.tk : 0;
  const bool fewer = c.cores > 0 && c.cores < P.cores;
  const tiling_problem Q = fewer ? on_fewer_cores(P, c.cores) : P;
  return {c.tc,    c.th,    c.tw,
          c.split, c.score, l1_bytes_for(Q, c.tc, c.th, c.tw, cut),
          0,       cut,     fewer ? c.cores : 0};
}

std::string reason_unknown(z3::optimize& opt) {
  const char* r = Z3_optimize_get_reason_unknown(opt.ctx(), opt);
  return r != nullptr ? r : "unknown";
}

int get(const json& o, const char* key, const std::string& at) {
  return o.at(key, at).as_int32(at + "." + key);
}

template <std::size_t N>
void get_ints(const json& o, const char* key, const std::string& at, int (&out)[N]) {
  const auto& a = o.at(key, at).as_array(at + "." + key);
  if (a.size() != N) throw problem_error(fmt("%s.%s: expected %zu numbers", at.c_str(), key, N));
  for (std::size_t i = 0; i < N; ++i) out[i] = a[i].as_int32(at + "." + key);
}

platform read_platform(const json& j) {
  const std::string at = "platform";
  platform p;
  p.name = name_t(j.at("name", at).as_string(at + ".name").c_str(),
                  j.at("name", at).as_string(at + ".name").size());
  p.cores = get(j, "cores", at);
  p.l1_bytes = get(j, "l1_bytes", at);
  p.l1_stack_master = get(j, "l1_stack_master", at);
  p.l1_stack_worker = get(j, "l1_stack_worker", at);
  p.l2_bytes = get(j, "l2_bytes", at);
  p.l2_code_reserve = get(j, "l2_code_reserve", at);
  p.l3_bytes = get(j, "l3_bytes", at);
  p.dma_max_cmd_bytes = get(j, "dma_max_cmd_bytes", at);
  p.dma_max_2d_line = get(j, "dma_max_2d_line", at);
  p.dma_max_2d_stride = get(j, "dma_max_2d_stride", at);
  p.dma_safe_max_bytes = get(j, "dma_safe_max_bytes", at);
  p.cluster_mhz = get(j, "cluster_mhz", at);
  p.dma_bytes_per_kcycle = get(j, "dma_bytes_per_kcycle", at);
  p.dma_latency_cycles = get(j, "dma_latency_cycles", at);
  p.l3_bytes_per_kcycle = get(j, "l3_bytes_per_kcycle", at);
  p.l3_latency_cycles = get(j, "l3_latency_cycles", at);
  p.icache_private_bytes = get(j, "icache_private_bytes", at);
  p.icache_shared_bytes = get(j, "icache_shared_bytes", at);
  p.icache_line_bytes = get(j, "icache_line_bytes", at);
  p.icache_shared_refill = get(j, "icache_shared_refill", at);
  p.icache_l2_refill = get(j, "icache_l2_refill", at);
  p.l2_data_cycles = get(j, "l2_data_cycles", at);
  p.tables_in_l1 = get(j, "tables_in_l1", at) != 0;
  if (p.icache_line_bytes < 1)
    throw problem_error("platform.icache_line_bytes: expected at least 1 byte");
  // Optional (problem files written before it existed leave weights free to stay resident).
  if (j.has("stream_weights")) p.stream_weights = get(j, "stream_weights", at) != 0;
  if (p.cores < 1 || p.cores > 64) throw problem_error("platform.cores: expected 1 to 64 cores");
  return p;
}

tiling_problem read_tiling(const json& j, const std::string& at) {
  tiling_problem t;
  const int kind = get(j, "kind", at);
  if (kind < static_cast<int>(op::conv) || kind > static_cast<int>(op::add))
    throw problem_error(at + ".kind: not a layer kind with a tiling problem");
  t.kind = static_cast<op>(kind);
  t.H = get(j, "H", at), t.W = get(j, "W", at), t.C = get(j, "C", at);
  t.Hin = get(j, "Hin", at), t.Win = get(j, "Win", at), t.Cin = get(j, "Cin", at);
  int k[2], s[2], pad[4];
  get_ints(j, "kernel", at, k);
  get_ints(j, "stride", at, s);
  get_ints(j, "pad", at, pad);
  t.kernel = {k[0], k[1]};
  t.stride = {s[0], s[1]};
  t.pad = {pad[0], pad[1], pad[2], pad[3]};
  int dil[2] = {1, 1};  // absent: not dilated
  if (j.has("dilation")) get_ints(j, "dilation", at, dil);
  t.dilation = {dil[0], dil[1]};
  t.out_bpe = get(j, "out_bpe", at);
  t.in_bpe = j.has("in_bpe") ? get(j, "in_bpe", at) : 1;  // absent: 8-bit inputs
  t.weights_per_channel = get(j, "weights_per_channel", at);
  t.params_per_channel = get(j, "params_per_channel", at);
  t.inputs = get(j, "inputs", at);
  t.channels_follow_input = j.at("channels_follow_input", at).as_bool(at);
  t.linear = j.at("linear", at).as_bool(at);
  t.whole_rows = j.at("whole_rows", at).as_bool(at);
  t.max_tile_h = get(j, "max_tile_h", at);
  t.cores = get(j, "cores", at);
  t.l1_budget = get(j, "l1_budget", at);
  t.macs = j.at("macs", at).as_int(at + ".macs");
  t.dma_bytes_per_kcycle = get(j, "dma_bytes_per_kcycle", at);
  t.dma_latency = get(j, "dma_latency", at);
  t.dma_limit = get(j, "dma_limit", at);
  t.dma_line_max = get(j, "dma_line_max", at);
  t.conv_scratch = get(j, "conv_scratch", at);
  t.tile_overhead = j.at("tile_overhead", at).as_int(at + ".tile_overhead");
  if (t.tile_overhead < 0 || t.tile_overhead > (1 << 24))
    throw problem_error(at + ".tile_overhead: expected 0 to 2^24 cycles");
  t.tile_overhead_spatial = j.at("tile_overhead_spatial", at).as_int(at + ".tile_overhead_spatial");
  if (t.tile_overhead_spatial < t.tile_overhead || t.tile_overhead_spatial > (1 << 24))
    throw problem_error(at +
                        ".tile_overhead_spatial: expected tile_overhead to 2^24 cycles (a "
                        "spatial tile costs no less than a channel tile)");
  const auto& terms = j.at("terms", at).as_array(at + ".terms");
  if (terms.size() != 12) throw problem_error(at + ".terms: expected 12 numbers");
  std::int64_t v[12];
  for (int i = 0; i < 12; ++i) v[i] = terms[static_cast<std::size_t>(i)].as_int(at + ".terms");
  t.terms = {v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11]};
  // Ranges the model's arithmetic relies on.
  auto positive = [&](int x, const char* what) {
    if (x < 1 || x > (1 << 20)) throw problem_error(at + "." + what + ": expected 1 to 2^20");
  };
  positive(t.H, "H"), positive(t.W, "W"), positive(t.C, "C");
  positive(t.Hin, "Hin"), positive(t.Win, "Win"), positive(t.Cin, "Cin");
  positive(t.kernel.h, "kernel"), positive(t.kernel.w, "kernel");
  positive(t.stride.h, "stride"), positive(t.stride.w, "stride");
  positive(t.dilation.h, "dilation"), positive(t.dilation.w, "dilation");
  for (int v : {t.pad.t, t.pad.b, t.pad.l, t.pad.r})
    if (v < 0 || v > (1 << 20)) throw problem_error(at + ".pad: expected 0 to 2^20");
  t.window = {dilated_extent(t.kernel.h, t.dilation.h), dilated_extent(t.kernel.w, t.dilation.w)};
  if (t.window.h > (1 << 20) || t.window.w > (1 << 20))
    throw problem_error(at + ".dilation: the dilated window exceeds 2^20");
  positive(t.cores, "cores"), positive(t.dma_bytes_per_kcycle, "dma_bytes_per_kcycle");
  positive(t.dma_limit, "dma_limit"), positive(t.dma_line_max, "dma_line_max");
  if (t.max_tile_h < 1) throw problem_error(at + ".max_tile_h: expected at least 1");
  if (t.out_bpe != 1 && t.out_bpe != 2 && t.out_bpe != 4)
    throw problem_error(at + ".out_bpe: expected 1, 2 or 4");
  if (t.in_bpe != 1 && t.in_bpe != 2) throw problem_error(at + ".in_bpe: expected 1 or 2");
  if (t.inputs != 1 && t.inputs != 2) throw problem_error(at + ".inputs: expected 1 or 2");
  if (t.l1_budget < 0) throw problem_error(at + ".l1_budget: negative");
  return t;
}

}  // namespace

problem_set read_problems(std::string_view text) {
  const json j = json::parse(text);
  problem_set s;
  const std::string fmt_seen = j.at("format", "document").as_string("format");
  if (fmt_seen != problems_format)
    throw problem_error("format is \"" + fmt_seen + "\", expected \"" + problems_format + "\"");
  s.network = j.at("network", "document").as_string("network");
  s.type = j.at("type", "document").as_string("type");
  s.platform_expr = j.at("platform_expr", "document").as_string("platform_expr");
  s.network_header = j.at("network_header", "document").as_string("network_header");
  s.target = read_platform(j.at("platform", "document"));
  const auto& ls = j.at("layers", "document").as_array("layers");
  if (ls.empty()) throw problem_error("layers: the network has no layers");
  for (std::size_t i = 0; i < ls.size(); ++i) {
    const std::string at = "layers[" + std::to_string(i) + "]";
    const json& lj = ls[i];
    layer_problem l;
    l.index = get(lj, "index", at);
    if (l.index != static_cast<int>(i)) throw problem_error(at + ".index: out of order");
    l.name = lj.at("name", at).as_string(at + ".name");
    const std::string kind = lj.at("kind", at).as_string(at + ".kind");
    bool known = false;
    for (int k = 0; k <= static_cast<int>(op::add); ++k)
      if (kind == op_name(static_cast<op>(k))) l.kind = static_cast<op>(k), known = true;
    if (!known) throw problem_error(at + ".kind: unknown layer kind \"" + kind + "\"");
    get_ints(lj, "src", at, l.src);
    int in[3], out[3];
    get_ints(lj, "in", at, in);
    get_ints(lj, "out", at, out);
    l.in = {in[0], in[1], in[2]};
    l.out = {out[0], out[1], out[2]};
    l.weight_bytes = lj.at("weight_bytes", at).as_int(at + ".weight_bytes");
    l.input_bytes = lj.at("input_bytes", at).as_int(at + ".input_bytes");
    l.output_bytes = lj.at("output_bytes", at).as_int(at + ".output_bytes");
    // Element bytes of the inputs and the output (absent: 8-bit activations, int32 logits).
    int eb[3] = {1, 1, 0};
    if (lj.has("element_bytes")) {
      get_ints(lj, "element_bytes", at, eb);
      for (int k = 0; k < 3; ++k)
        if (eb[k] != 1 && eb[k] != 2 && !(k == 2 && eb[k] == 4))
          throw problem_error(at + ".element_bytes: expected 1 or 2 (4 for int32 outputs)");
    }
    for (int k = 0; k < 2; ++k)
      if (l.src[k] >= l.index) throw problem_error(at + ".src: not an earlier layer");
    const json& pj = lj.at("problem", at);
    l.has_problem = !pj.is_null();
    if (l.has_problem != (l.kind != op::input))
      throw problem_error(at + ".problem: expected exactly for layers other than the input");
    if (l.has_problem) {
      l.problem = read_tiling(pj, at + ".problem");
      if (l.problem.kind != l.kind) throw problem_error(at + ".problem.kind: differs from kind");
      if (l.problem.H != l.out.h || l.problem.W != l.out.w || l.problem.C != l.out.c)
        throw problem_error(at + ".problem: extents differ from the layer's output");
    }
    // The layer itself, for the L3 and L2 checks: its shape, window and parameters.
    ctile::layer& n = l.net;
    n.kind = l.kind;
    n.name = name_t(l.name.c_str(), l.name.size());
    n.src[0] = l.src[0], n.src[1] = l.src[1];
    n.in = l.in, n.out = l.out;
    n.in2 = l.kind == op::add ? l.in : shape{};
    n.out_channels = l.out.c, n.in_channels = l.in.c;
    if (l.has_problem) {
      n.kernel = l.problem.kernel, n.stride = l.problem.stride, n.pad = l.problem.pad;
      n.dilation = l.problem.dilation;
      n.requantize = l.problem.out_bpe != 4;
      const int params = l.problem.params_per_channel / 4;  // bias 1, batchnorm 2
      n.bias = params % 2 == 1;
      n.batchnorm = params >= 2;
    }
    // The element widths follow from the proven ranges: a range of each container stands for
    // them (16 bits: 0..65535).
    const value_range wide{0, 65535};
    if (eb[0] == 2) n.in_range = wide;
    if (eb[1] == 2) n.in2_range = wide;
    if (eb[2] == 2) n.out_range = wide;
    if (plan_detail::weight_bytes(n) != l.weight_bytes || n.output_bytes() != l.output_bytes ||
        plan_detail::input_bytes(n) != l.input_bytes)
      throw problem_error(at + ": the weight or output bytes do not match the layer's shape");
    s.layers.push_back(std::move(l));
  }
  return s;
}

namespace {

std::vector<candidate> linear_candidates(const tiling_problem& P, std::int64_t* evaluated) {
  std::map<int, candidate> best_per_k;  // K tile -> best
  const core_split split = cost::default_split(P);
  const int K = linear_k(P);
  std::int64_t rank = 0, count = 0;
  const plan_detail::axis_candidates cs = plan_detail::linear_channel_candidates(P);
  for (int i = 0; i < cs.count(); ++i) {
    const int tc = cs.at(i);
    plan_detail::for_each_k_tile(P, tc, 0, [&](int tk) {
      ++count;
      const int cut = tk < K ? tk : 0;
      const std::int64_t cyc = cost::layer_cycles(P, tc, 1, 1, split, cut);
      auto it = best_per_k.find(tk);
      if (it == best_per_k.end() || cyc < it->second.cycles)
        best_per_k[tk] = candidate{tc, 1, 1, split, cyc, l1_bytes_for(P, tc, 1, 1, cut), rank, cut};
      ++rank;
    });
  }
  if (evaluated != nullptr) *evaluated = count;
  std::vector<candidate> r;
  for (auto it = best_per_k.rbegin(); it != best_per_k.rend(); ++it) r.push_back(it->second);
  return r;
}

}  // namespace

std::vector<candidate> layer_candidates(const tiling_problem& P, std::int64_t* evaluated) {
  if (P.linear) return linear_candidates(P, evaluated);
  // Every fitting tiling in the constexpr search's order (plan_detail::for_each_tiling), each
  // split in the search's order, evaluated by the cost model's own functions.
  const cost::split_list splits = cost::splits_for(P);
  std::map<int, candidate> best_per_row;  // row tile -> best
  cost::channel_context cx{};
  cost::row_context rx{};
  std::int64_t rank = 0, count = 0;
  std::int64_t cyc[8] = {};
  auto on_c = [&](int tc) {
    cx = cost::channel_context_for(P, splits, tc);
    return 0;
  };
  auto on_h = [&](int th) {
    rx = cost::row_context_for(P, cx, th);
    return 0;
  };
  auto visit = [&](int tc, int th, int tw) {
    ++count;
    cost::layer_cycles_at(P, cx, rx, tw, cyc);
    for (int s = 0; s < splits.n; ++s, ++rank) {
      auto it = best_per_row.find(th);
      if (it == best_per_row.end() || cyc[s] < it->second.cycles) {
        candidate c{tc, th, tw, splits.item[s], cyc[s], l1_bytes_for(P, tc, th, tw), rank};
        best_per_row[th] = c;
      }
    }
    return true;
  };
  plan_detail::for_each_tiling(P, on_c, on_h, visit);
  if (evaluated != nullptr) *evaluated = count;
  std::vector<candidate> r;
  r.reserve(best_per_row.size());
  for (const auto& [th, c] : best_per_row) r.push_back(c);
  return r;
}

std::vector<candidate> layer_candidates_on_cores(const tiling_problem& P, std::int64_t* evaluated) {
  std::int64_t count = 0;
  std::vector<candidate> cands = layer_candidates(P, &count);
  if (cands.empty() && scratch_per_core(P)) {
    // Nothing fits beside every core's kernel scratch: the candidates of fewer cores (as the
    // constexpr search_on_cores), ranked one count after the other, more cores first.
    std::int64_t base = 0;
    for (int n = P.cores / 2; n >= 1; n /= 2) {
      std::int64_t ev = 0, top = base;
      for (candidate c : layer_candidates(on_fewer_cores(P, n), &ev)) {
        c.cores = n;
        c.rank += base;
        top = c.rank + 1 > top ? c.rank + 1 : top;
        cands.push_back(c);
      }
      count += ev;
      base = top;
    }
  }
  if (evaluated != nullptr) *evaluated = count;
  return cands;
}

const char* status_name(layer_status s) {
  switch (s) {
    case layer_status::input:
      return "input";
    case layer_status::optimal:
      return "optimal";
    case layer_status::fallback:
      return "fallback";
    case layer_status::timeout:
      return "timeout";
    case layer_status::unsat:
      return "unsat";
  }
  return "?";
}

layer_solution solve_layer(const layer_problem& l, const solve_options& o) {
  layer_solution r;
  r.index = l.index;
  if (!l.has_problem) {
    r.status = layer_status::input;
    r.chosen = {l.out.c, l.out.h, l.out.w, {}, 0, 0, 0};
    return r;
  }
  const tiling_problem& P = l.problem;
  r.l1_needed = min_l1_need(scratch_per_core(P) ? on_fewer_cores(P, 1) : P);
  auto t0 = std::chrono::steady_clock::now();
  const std::vector<candidate> cands = layer_candidates_on_cores(P, &r.evaluated);
  r.model_seconds = since(t0);
  r.candidates = static_cast<std::int64_t>(cands.size());

  t0 = std::chrono::steady_clock::now();
  z3::context ctx;
  z3::optimize opt(ctx);
  z3::params prm(ctx);
  prm.set("timeout", o.timeout_ms);
  opt.set(prm);
  // One indicator per candidate; exactly one chosen; its L1 bytes within the budget.
  z3::expr_vector pick(ctx);
  z3::expr one = ctx.int_val(0), bytes = ctx.int_val(0), cycles = ctx.int_val(0),
           rank = ctx.int_val(0);
  for (std::size_t i = 0; i < cands.size(); ++i) {
    const candidate& c = cands[i];
    z3::expr b = ctx.bool_const(("t" + std::to_string(i)).c_str());
    pick.push_back(b);
    one = one + z3::ite(b, ctx.int_val(1), ctx.int_val(0));
    bytes = bytes + z3::ite(b, ctx.int_val(c.l1), ctx.int_val(0));
    cycles = cycles + z3::ite(b, ctx.int_val(static_cast<int64_t>(c.cycles)), ctx.int_val(0));
    rank = rank + z3::ite(b, ctx.int_val(static_cast<int64_t>(c.rank)), ctx.int_val(0));
  }
  opt.add(one == 1);
  opt.add(bytes <= P.l1_budget);
  // Lexicographic: fewest cycles, then the first in the search's order.
  opt.minimize(cycles);
  opt.minimize(rank);
  const z3::check_result res = opt.check();
  r.z3_seconds = since(t0);
  const std::string who = "layer " + std::to_string(l.index) + " '" + l.name + "'";
  if (res == z3::sat) {
    const z3::model m = opt.get_model();
    for (std::size_t i = 0; i < cands.size(); ++i)
      if (m.eval(pick[static_cast<unsigned>(i)], true).is_true()) r.chosen = cands[i];
    r.status = layer_status::optimal;
  } else if (res == z3::unsat) {
    r.status = layer_status::unsat;
    r.message =
        fmt("%s (%s): no tiling fits the L1 budget of %d bytes; the smallest L1 budget "
            "that would work is %d bytes",
            who.c_str(), op_name(l.kind), P.l1_budget, r.l1_needed);
  } else if (o.fallback_search) {
    const tiling_choice c = search_on_cores(P);
    r.status = c.found ? layer_status::fallback : layer_status::unsat;
    r.chosen = chosen_of(P, c);
    r.message = fmt("%s: Z3 gave no answer within %u ms (%s); using the constexpr search's plan",
                    who.c_str(), o.timeout_ms, reason_unknown(opt).c_str());
  } else {
    r.status = layer_status::timeout;
    r.message = fmt("%s: Z3 gave no answer within %u ms (%s)", who.c_str(), o.timeout_ms,
                    reason_unknown(opt).c_str());
  }
  return r;
}

network_solution solve_network(const problem_set& s, const solve_options& o) {
  network_solution r;
  const auto t0 = std::chrono::steady_clock::now();
  // Layers with equal problems (MobileNet's repeated blocks) are solved once.
  std::map<std::string, layer_solution> seen;
  for (const layer_problem& l : s.layers) {
    std::string key;
    if (l.has_problem) {
      char* buf = nullptr;
      std::size_t len = 0;
      std::FILE* f = open_memstream(&buf, &len);
      export_detail::problem_json(f, l.problem);
      std::fclose(f);
      key.assign(buf, len);
      std::free(buf);
    }
    layer_solution x;
    if (const auto it = seen.find(key); l.has_problem && it != seen.end()) {
      x = it->second;
      x.index = l.index;
      x.model_seconds = x.z3_seconds = 0;
      if (!x.message.empty()) x = solve_layer(l, o);  // messages name the layer
    } else {
      x = solve_layer(l, o);
      if (l.has_problem) seen[key] = x;
    }
    if (x.status == layer_status::unsat || x.status == layer_status::timeout) {
      r.ok = false;
      r.errors.push_back(x.message);
    }
    r.layers.push_back(x);
  }
  r.seconds = since(t0);
  return r;
}

network_solution solve_network_by_search(const problem_set& s) {
  network_solution r;
  r.solver = "constexpr";
  const auto t0 = std::chrono::steady_clock::now();
  for (const layer_problem& l : s.layers) {
    layer_solution x;
    x.index = l.index;
    if (!l.has_problem) {
      x.chosen = {l.out.c, l.out.h, l.out.w, {}, 0, 0, 0};
    } else {
      const tiling_problem& P = l.problem;
      x.l1_needed = min_l1_need(scratch_per_core(P) ? on_fewer_cores(P, 1) : P);
      const auto t1 = std::chrono::steady_clock::now();
      const tiling_choice c = search_on_cores(P);
      x.model_seconds = since(t1);
      x.evaluated = c.visited;
      if (c.found) {
        x.status = layer_status::optimal;
        x.chosen = chosen_of(P, c);
      } else {
        x.status = layer_status::unsat;
        x.message =
            fmt("layer %d '%s' (%s): no tiling fits the L1 budget of %d bytes; the "
                "smallest L1 budget that would work is %d bytes",
                l.index, l.name.c_str(), op_name(l.kind), P.l1_budget, x.l1_needed);
        r.ok = false;
        r.errors.push_back(x.message);
      }
    }
    r.layers.push_back(x);
  }
  r.seconds = since(t0);
  return r;
}

namespace {

const char* split_enum(split_kind k) {
  switch (k) {
    case split_kind::rows:
      return "ctile::split_kind::rows";
    case split_kind::cols:
      return "ctile::split_kind::cols";
    case split_kind::channels:
      return "ctile::split_kind::channels";
    case split_kind::grid:
      return "ctile::split_kind::grid";
  }
  return "?";
}

std::string kind_enum(op k) {
  return std::string("ctile::op::") + op_name(k);
}

std::string jstr(const std::string& s) {
  std::string r = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      r += '\\', r += c;
    else if (static_cast<unsigned char>(c) < 0x20)
      r += fmt("\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
    else
      r += c;
  }
  return r + "\"";
}

std::string c_comment(const std::string& s) {
  // Safe inside a // comment: one line, no "*/" for the block comments around it.
  std::string r;
  for (char c : s) {
    if (c == '\n' || c == '\r') c = ' ';
    if (c == '/' && !r.empty() && r.back() == '*') r += ' ';
    r += c;
  }
  return r;
}

}  // namespace

namespace {

struct header_row {
  candidate chosen;
  std::string note;
};

std::string header_text(const problem_set& s, const std::vector<header_row>& rows,
                        const std::vector<imported_l3>* l3, const std::string& source,
                        const std::string& preamble) {
  std::string h;
  h += "// Generated by ctile-solve from " + c_comment(source) +
       ". Do not edit: the build re-checks\n"
       "// every layer's tiling against the planner's constraints and cost model.\n" +
       preamble +
       "#pragma once\n\n"
       "#include <ctile/plan/plan.hpp>\n\n";
  h += "#include \"" + s.network_header + "\"\n\n";
  h += "namespace ctile {\n\n";
  h += "template <>\nstruct imported_plan<" + s.type + ", " + s.platform_expr +
       ", objective::model> {\n";
  h += "  static constexpr bool available = true;\n";
  h += fmt("  static constexpr std::size_t size = %zu;\n", s.layers.size());
  h += "  static constexpr imported_layer layers[size] = {\n";
  for (std::size_t i = 0; i < s.layers.size(); ++i) {
    const layer_problem& l = s.layers[i];
    const candidate& c = rows[i].chosen;
    h += fmt("      {%s, %d, %d, %d, %d, %d, %d, %d, {%s, %d, %d}, %" PRId64 ", %d, %d},",
             kind_enum(l.kind).c_str(), l.out.h, l.out.w, l.out.c, l.in.c, c.tc, c.th, c.tw,
             split_enum(c.split.kind), c.split.v, c.split.k, c.cycles, c.tk, c.cores);
    h += " // " + std::to_string(i) + " " + c_comment(l.name) + ": " + rows[i].note + "\n";
  }
  h += "  };\n";
  if (l3 != nullptr) {
    h += "  // Joint L3 decisions {weights in L3, channels per weight stripe, output in L3,\n"
         "  // rows per band, prefetch of the next layer's weights}: they replace the greedy\n"
         "  // L3 cascade and are re-checked by finish_network_imported.\n";
    h += "  static constexpr imported_l3 l3[size] = {\n";
    for (std::size_t i = 0; i < s.layers.size(); ++i) {
      const imported_l3& d = (*l3)[i];
      h += fmt("      {%s, %d, %s, %d, %s}, // %zu ", d.w ? "true" : "false", d.w_stripe_c,
               d.y ? "true" : "false", d.y_stripe_h, d.prefetch_next ? "true" : "false", i);
      h += c_comment(s.layers[i].name) + "\n";
    }
    h += "  };\n";
  }
  h += "};\n\n}  // namespace ctile\n";
  return h;
}

}  // namespace

std::string plan_header(const problem_set& s, const network_solution& sol,
                        const std::string& source) {
  if (!sol.ok) throw problem_error("no header for a network that was not solved");
  std::vector<header_row> rows;
  for (std::size_t i = 0; i < s.layers.size(); ++i) {
    const layer_solution& x = sol.layers[i];
    std::string note = status_name(x.status);
    if (x.status == layer_status::fallback) note += " (Z3 timed out: constexpr search's plan)";
    rows.push_back({x.chosen, note});
  }
  return header_text(s, rows, nullptr, source, "");
}

std::string joint_plan_header(const problem_set& s, const joint_solution& j,
                              const std::string& source) {
  if (!j.ok) throw problem_error("no header for a joint problem that was not solved");
  std::vector<header_row> rows;
  std::vector<imported_l3> l3;
  for (const joint_layer& l : j.layers) {
    rows.push_back({l.chosen, fmt("joint, %" PRId64 " + %" PRId64 " cycles (L1 loop nest + L3)",
                                  l.l1_cycles, l.l3_cycles)});
    l3.push_back(l.place);
  }
  return header_text(
      s, rows, &l3, source,
      fmt("// Joint solve: %" PRId64 " modeled cycles, L2 stack peak %" PRId64 " of %" PRId64
          " bytes%s.\n",
          j.cycles, j.l2_peak, j.l2_budget,
          j.from_greedy ? " (the greedy cascade's decisions: they lay out better)" : ""));
}

std::string solution_json(const problem_set& s, const network_solution& sol) {
  std::string j = "{\"network\": " + jstr(s.network) + ", \"solver\": " + jstr(sol.solver) + ", ";
  j += fmt("\"ok\": %s, \"seconds\": %.6f, \"layers\": [", sol.ok ? "true" : "false", sol.seconds);
  std::int64_t total = 0;
  for (std::size_t i = 0; i < sol.layers.size(); ++i) {
    const layer_solution& x = sol.layers[i];
    const layer_problem& l = s.layers[i];
    const candidate& c = x.chosen;
    total += c.cycles;
    j += fmt(
        "%s\n  {\"index\": %d, \"name\": %s, \"kind\": \"%s\", \"status\": \"%s\", "
        "\"tile\": [%d, %d, %d], \"k_tile\": %d, \"split\": \"%s\", \"grid\": [%d, %d], "
        "\"objective\": %" PRId64 ", \"l1_bytes\": %d, \"candidates\": %" PRId64
        ", \"evaluated\": %" PRId64
        ", \"seconds\": %.6f, \"model_seconds\": %.6f, "
        "\"z3_seconds\": %.6f",
        i == 0 ? "" : ",", x.index, jstr(l.name).c_str(), op_name(l.kind), status_name(x.status),
        c.th, c.tw, c.tc, c.tk, split_name(c.split.kind), c.split.v, c.split.k, c.cycles, c.l1,
        x.candidates, x.evaluated, x.model_seconds + x.z3_seconds, x.model_seconds, x.z3_seconds);
    if (!x.message.empty()) j += ", \"message\": " + jstr(x.message);
    j += "}";
  }
  j += fmt("\n ], \"objective\": %" PRId64 "}\n", total);
  return j;
}

}  // namespace ctile::solve
