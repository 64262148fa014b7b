#include "report.hpp"

#include <cinttypes>
#include <string>

#include "network/report.hpp"  // bench: where a layer's modeled cycles go (time_of)

namespace ctile::plan_report {

dynamic_plan plan(std::span<const layer> layers, const platform& p, objective o) {
  dynamic_plan d;
  d.layers.assign(layers.begin(), layers.end());
  d.target = p;
  d.goal = o;
  // The same per-layer planning as plan_of (plan_layers: a depthwise layer's sole producer is
  // planned for it).
  d.plans.resize(layers.size());
  plan_layers(layers, p, o, d.plans);
  d.l2.resize(layers.size());
  d.summary = finish_network(d.layers, p, d.plans, d.l2);
  return d;
}

namespace {

const char* fault_text(plan_fault f) {
  switch (f) {
    case plan_fault::none:
      return "fits";
    case plan_fault::l1:
      return "a layer does not fit L1";
    case plan_fault::l2_layer:
      return "a layer does not fit L2";
    case plan_fault::l2_arena:
      return "the L2 arena exceeds L2";
    case plan_fault::l3:
      return "L3 is too small";
    case plan_fault::too_many_layers:
      return "too many layers";
    case plan_fault::not_inferred:
      return "the layers were not shape-inferred";
    case plan_fault::imported:
      return "the imported L3 decisions break a constraint";
    case plan_fault::replan:
      return "a re-plan was not made ahead";
  }
  return "?";
}

// Text pieces are formatted with snprintf: GCC 12 reports false -Wrestrict positives on
// chains of std::string concatenations.
std::string split_text(const core_split& s) {
  char b[32];
  if (s.kind == split_kind::grid)
    std::snprintf(b, sizeof b, "grid %dx%d", s.v, s.k);
  else
    std::snprintf(b, sizeof b, "%s", split_name(s.kind));
  return b;
}

std::string l3_text(const l3_decision& d) {
  char b[96];
  int n = 0;
  if (d.x)
    n += std::snprintf(b + n, sizeof b - static_cast<std::size_t>(n), "x:rows%d ", d.x_stripe_h);
  if (d.w) {
    if (d.stage == 3 || d.stage == 5)
      n += std::snprintf(b + n, sizeof b - static_cast<std::size_t>(n), "w:ch%d ", d.w_stripe_c);
    else
      n += std::snprintf(b + n, sizeof b - static_cast<std::size_t>(n), "w ");
  }
  if (d.y)
    n += std::snprintf(b + n, sizeof b - static_cast<std::size_t>(n), "y:rows%d ", d.y_stripe_h);
  if (n == 0) return "-";
  b[n - 1] = '\0';
  return b;
}

// Where a layer's weights live and why, short: "L2 fits", "L3 full@5" (with them resident,
// step 5 would not fit L2; the numbers are printed below the table), "L3 forced", ...
std::string weights_text(const layer_l2& e, const l3_decision& d) {
  char b[32];
  const char* where = d.w ? "L3" : "L2";
  switch (e.w_why) {
    case weight_reason::none:
      return "-";
    case weight_reason::fits:
      return "L2 fits";
    case weight_reason::no_l3:
      return "L2 no-L3";
    case weight_reason::l2_full:
      if (e.w_step >= 0)
        std::snprintf(b, sizeof b, "L3 full@%d", e.w_step);
      else
        std::snprintf(b, sizeof b, "L3 full@arena");
      return b;
    case weight_reason::forced:
      return "L3 forced";
    case weight_reason::imported:
      std::snprintf(b, sizeof b, "%s joint", where);
      return b;
  }
  return "?";
}

std::string triple(int a, int b, int c) {
  char t[48];
  std::snprintf(t, sizeof t, "%dx%dx%d", a, b, c);
  return t;
}

std::string shape_text(const shape& s) {
  return triple(s.h, s.w, s.c);
}

}  // namespace

void print_table(std::FILE* out, const std::string& name, const dynamic_plan& d) {
  const platform& p = d.target;
  std::fprintf(out,
               "%s on %s (objective %s): L1 budget %d B (of %d, stacks %d + %d x %d), L2 budget "
               "%d B (of %d, code %d), L3 %d B, %d cores\n",
               name.c_str(), p.name.c_str(), objective_name(d.goal), p.l1_budget(), p.l1_bytes,
               p.l1_stack_master, p.cores - 1, p.l1_stack_worker, p.l2_budget(), p.l2_bytes,
               p.l2_code_reserve, p.l3_bytes, p.cores);
  std::fprintf(out,
               "%-3s %-10s %-9s %-12s %-12s %-11s %-9s %-11s %-10s %6s %6s %6s %6s %6s %6s "
               "%7s %-6s %-10s %-22s %10s %6s  %s\n",
               "#", "name", "kind", "in", "out", "tile_out", "tiles", "border", "tile_in", "x", "y",
               "w", "im2col", "kl", "total", "budget", "L3", "split", "L3->L2", "cycles", "MAC/c",
               "weights");
  for (std::size_t i = 0; i < d.layers.size(); ++i) {
    const layer& l = d.layers[i];
    const layer_plan& q = d.plans[i];
    if (l.kind == op::input) {
      std::fprintf(out, "%-3zu %-10s %-9s %-12s %-12s (network input in L2)\n", i, l.name.c_str(),
                   op_name(l.kind), "", shape_text(l.out).c_str());
      continue;
    }
    const std::string tile = triple(q.tile_h, q.tile_w, q.tile_c);
    const std::string tiles = triple(q.n_h, q.n_w, q.n_c);
    const std::string border = triple(q.last_h, q.last_w, q.last_c);
    // A linear layer whose reduction is cut: its input tile is the K tile, tiles count K.
    // A linear layer whose reduction is cut: its input tile is a K tile ("k<bytes>/<tiles>").
    char ktile[32];
    std::snprintf(ktile, sizeof ktile, "k%d/%d", q.tile_k, q.n_k);
    const std::string tin = q.n_k > 1 ? std::string(ktile) : triple(q.in_h, q.in_w, q.in_c);
    char where[4] = {};
    int nw = 0;
    if (q.l3.x) where[nw++] = 'x';
    if (q.l3.w) where[nw++] = 'w';
    if (q.l3.y) where[nw++] = 'y';
    if (!q.fits) {
      // No tiling fits: the buffers of a plan that was not chosen would mislead; the row gives
      // the least L1 the layer needs, the number the failure line below names.
      std::fprintf(out,
                   "%-3zu %-10s %-9s %-12s %-12s %-11s %-9s %-11s %-10s %6s %6s %6s %6s %6s %6d "
                   "%7d %-6s %-10s %-22s %10s %6s  DOES NOT FIT: needs %d B of L1\n",
                   i, l.name.c_str(), op_name(l.kind), shape_text(l.in).c_str(),
                   shape_text(l.out).c_str(), "-", "-", "-", "-", "-", "-", "-", "-", "-",
                   q.l1_needed, q.l1_budget, "-", "-", "-", "-", "-", q.l1_needed);
      continue;
    }
    const double mpc =
        q.cycles > 0 ? static_cast<double>(q.macs) / static_cast<double>(q.cycles) : 0.0;
    std::fprintf(out,
                 "%-3zu %-10s %-9s %-12s %-12s %-11s %-9s %-11s %-10s %6d %6d %6d %6d %6d %6d "
                 "%7d %-6s %-10s %-22s %10" PRId64 " %6.2f  %s\n",
                 i, l.name.c_str(), op_name(l.kind), shape_text(l.in).c_str(),
                 shape_text(l.out).c_str(), tile.c_str(), tiles.c_str(), border.c_str(),
                 tin.c_str(), q.x_copies * (q.x_bytes + q.x2_bytes), q.y_copies * q.y_bytes,
                 q.w_copies * q.w_bytes, q.scratch_bytes, q.w_copies * q.kl_bytes, q.l1.total,
                 q.l1_budget, nw == 0 ? "-" : where, split_text(q.split).c_str(),
                 l3_text(q.l3).c_str(), q.cycles, mpc, weights_text(d.l2[i], q.l3).c_str());
  }
  const network_summary& s = d.summary;
  if (!s.ok()) {
    // The network has no plan: no totals of one. The MACs are the network's own.
    std::int64_t macs = 0;
    for (const layer_plan& q : d.plans) macs += q.macs;
    const char* who = s.layer >= 0 ? d.layers[static_cast<std::size_t>(s.layer)].name.c_str() : "";
    std::fprintf(out,
                 "total: %" PRId64
                 " MACs; no cycles, L2 arena or L3 figures: the network has no plan\n",
                 macs);
    std::fprintf(out, "DOES NOT FIT: %s (layer %d %s): needs %" PRId64 " B, budget %" PRId64 " B\n",
                 fault_text(s.problem), s.layer, who, s.needs, s.budget);
    return;
  }
  // Why weights stream: the step that would not hold them resident, with the bytes.
  for (std::size_t i = 0; i < d.layers.size(); ++i) {
    const layer_l2& e = d.l2[i];
    if (e.w_why != weight_reason::l2_full) continue;
    const std::int64_t wb = plan_detail::weight_bytes(d.layers[i]);
    if (e.w_step >= 0)
      std::fprintf(out,
                   "weights of %zu %s (%" PRId64
                   " B) stream from L3: with them resident (and the weights moved after "
                   "them), step %d (%s) would need %" PRId64 " B of L2, budget %d B\n",
                   i, d.layers[i].name.c_str(), wb, e.w_step,
                   d.layers[static_cast<std::size_t>(e.w_step)].name.c_str(), e.w_needs,
                   s.l2_budget);
    else
      std::fprintf(out,
                   "weights of %zu %s (%" PRId64
                   " B) stream from L3: with them resident (and the weights moved after "
                   "them), the L2 arena would peak at %" PRId64 " B, budget %d B\n",
                   i, d.layers[i].name.c_str(), wb, e.w_needs, s.l2_budget);
  }
  const double mpc =
      s.cycles > 0 ? static_cast<double>(s.macs) / static_cast<double>(s.cycles) : 0.0;
  const char* home = !s.weights_in_l3 ? "L2" : s.weights_resident == 0 ? "L3" : "L2 and L3";
  std::fprintf(out,
               "total: %" PRId64 " MACs, %" PRId64
               " cycles (%.2f MAC/cycle, %.2f ms at %d MHz); "
               "L2 arena peak %d B of %d (DORY bound %d); L3 used %" PRId64 " B; weights in %s\n",
               s.macs, s.cycles, mpc,
               static_cast<double>(s.cycles) / (p.cluster_mhz > 0 ? p.cluster_mhz : 1) / 1000.0,
               p.cluster_mhz, s.l2_peak, s.l2_budget, s.dory_bound, s.l3_used, home);
  std::fprintf(out,
               "weights: %" PRId64 " B resident in L2 (staged once), %" PRId64
               " B streamed from L3%s; L3 traffic %" PRId64 " B per frame\n",
               s.weights_resident, s.weights_streamed,
               p.stream_weights ? " (forced: --stream-weights)" : "", s.l3_bytes_per_frame);
}

namespace {

void json_string(std::FILE* out, const char* s) {
  std::fputc('"', out);
  for (; *s != '\0'; ++s) {
    const unsigned char c = static_cast<unsigned char>(*s);
    if (c == '"' || c == '\\')
      std::fprintf(out, "\\%c", c);
    else if (c < 0x20)
      std::fprintf(out, "\\u%04x", c);
    else
      std::fputc(c, out);
  }
  std::fputc('"', out);
}

void json_slot(std::FILE* out, const char* key, const l2_slot& s) {
  std::fprintf(out, "\"%s\":{\"offset\":%d,\"bytes\":%d,\"side\":\"%s\",\"from\":%d,\"until\":%d}",
               key, s.offset, s.bytes, s.high ? "high" : "low", s.from, s.until);
}

}  // namespace

void print_json(std::FILE* out, const std::string& name, const dynamic_plan& d) {
  const platform& p = d.target;
  const network_summary& s = d.summary;
  std::fprintf(out, "{\"network\":");
  json_string(out, name.c_str());
  std::fprintf(out, ",\"platform\":{\"name\":");
  json_string(out, p.name.c_str());
  std::fprintf(out,
               ",\"cores\":%d,\"l1_bytes\":%d,\"l1_budget\":%d,\"l2_bytes\":%d,\"l2_budget\":%d,"
               "\"l3_bytes\":%d},\"objective\":\"%s\",\"fits\":%s,\"problem\":",
               p.cores, p.l1_bytes, p.l1_budget(), p.l2_bytes, p.l2_budget(), p.l3_bytes,
               objective_name(d.goal), s.ok() ? "true" : "false");
  json_string(out, fault_text(s.problem));
  std::fprintf(out,
               ",\"problem_layer\":%d,\"needs\":%" PRId64 ",\"budget\":%" PRId64
               ",\"l2_peak\":%d,\"dory_l2_bound\":%d,\"l3_used\":%" PRId64
               ",\"weights_in_l3\":%s,\"stream_weights\":%s,\"weights_resident\":%" PRId64
               ",\"weights_streamed\":%" PRId64 ",\"l3_bytes_per_frame\":%" PRId64
               ",\"cycles\":%" PRId64 ",\"macs\":%" PRId64 ",\"layers\":[",
               s.layer, s.needs, s.budget, s.l2_peak, s.dory_bound, s.l3_used,
               s.weights_in_l3 ? "true" : "false", p.stream_weights ? "true" : "false",
               s.weights_resident, s.weights_streamed, s.l3_bytes_per_frame, s.cycles, s.macs);
  for (std::size_t i = 0; i < d.layers.size(); ++i) {
    const layer& l = d.layers[i];
    const layer_plan& q = d.plans[i];
    if (i > 0) std::fputc(',', out);
    std::fprintf(out, "\n{\"index\":%zu,\"name\":", i);
    json_string(out, l.name.c_str());
    std::fprintf(out, ",\"kind\":\"%s\"", op_name(l.kind));
    std::fprintf(out, ",\"in\":[%d,%d,%d],\"out\":[%d,%d,%d]", l.in.h, l.in.w, l.in.c, l.out.h,
                 l.out.w, l.out.c);
    std::fprintf(out, ",\"kernel\":[%d,%d],\"stride\":[%d,%d],\"pad\":[%d,%d,%d,%d]", l.kernel.h,
                 l.kernel.w, l.stride.h, l.stride.w, l.pad.t, l.pad.b, l.pad.l, l.pad.r);
    std::fprintf(out, ",\"tile_out\":[%d,%d,%d],\"tile_in\":[%d,%d,%d],\"tiles\":[%d,%d,%d]",
                 q.tile_h, q.tile_w, q.tile_c, q.in_h, q.in_w, q.in_c, q.n_h, q.n_w, q.n_c);
    std::fprintf(out, ",\"border_out\":[%d,%d,%d],\"border_in\":[%d,%d]", q.last_h, q.last_w,
                 q.last_c, q.in_last_h, q.in_last_w);
    if (l.kind == op::linear)
      std::fprintf(out, ",\"k_tile\":%d,\"k_tiles\":%d,\"k_last\":%d", q.tile_k, q.n_k, q.last_k);
    std::fprintf(out,
                 ",\"l1_bytes\":{\"x\":%d,\"y\":%d,\"w\":%d,\"im2col\":%d,\"kappa_lambda\":%d,"
                 "\"total\":%d}",
                 q.x_copies * (q.x_bytes + q.x2_bytes), q.y_copies * q.y_bytes,
                 q.w_copies * q.w_bytes, q.scratch_bytes, q.w_copies * q.kl_bytes, q.l1.total);
    std::fprintf(out,
                 ",\"l1_layout\":{\"x\":[%d,%d],\"x2\":[%d,%d],\"y\":[%d,%d],\"w\":[%d,%d],"
                 "\"kappa_lambda\":[%d,%d],\"scratch\":%d}",
                 q.l1.x[0], q.l1.x[1], q.l1.x2[0], q.l1.x2[1], q.l1.y[0], q.l1.y[1], q.l1.w[0],
                 q.l1.w[1], q.l1.kl[0], q.l1.kl[1], q.l1.scratch);
    std::fprintf(out, ",\"l1_budget\":%d,\"l1_needed\":%d,\"fits\":%s", q.l1_budget, q.l1_needed,
                 q.fits ? "true" : "false");
    std::fprintf(out,
                 ",\"l3\":{\"x\":%s,\"w\":%s,\"y\":%s,\"stage\":%d,\"w_stripe_c\":%d,"
                 "\"x_stripe_h\":%d,\"y_stripe_h\":%d,\"l2_x\":%d,\"l2_w\":%d,\"l2_y\":%d,"
                 "\"prefetch_next\":%s,\"l3_bytes\":%" PRId64 ",\"cycles\":%" PRId64 "}",
                 q.l3.x ? "true" : "false", q.l3.w ? "true" : "false", q.l3.y ? "true" : "false",
                 q.l3.stage, q.l3.w_stripe_c, q.l3.x_stripe_h, q.l3.y_stripe_h, q.l3.l2_x,
                 q.l3.l2_w, q.l3.l2_y, q.l3.prefetch_next ? "true" : "false", q.l3.l3_bytes,
                 q.l3.cycles);
    const layer_l2& e = d.l2[i];
    std::fprintf(out, ",\"l2\":{");
    json_slot(out, "x", e.x);
    std::fputc(',', out);
    json_slot(out, "w", e.w);
    std::fputc(',', out);
    json_slot(out, "y", e.y);
    std::fprintf(out, ",\"l3_w\":%d,\"l3_y\":%d}", e.l3_w, e.l3_y);
    // Where the weights live and why (weight_reason; step and needs for "l2_full").
    std::fprintf(out,
                 ",\"weights\":{\"where\":\"%s\",\"why\":\"%s\",\"bytes\":%" PRId64
                 ",\"step\":%d,\"needs\":%" PRId64 "}",
                 e.w_why == weight_reason::none ? "none"
                 : q.l3.w                       ? "l3"
                                                : "l2",
                 weight_reason_name(e.w_why), plan_detail::weight_bytes(l), e.w_step, e.w_needs);
    std::fprintf(out, ",\"split\":{\"kind\":\"%s\",\"v\":%d,\"k\":%d}", split_name(q.split.kind),
                 q.split.v, q.split.k);
    // Where the modeled cycles go (bench's split) and the L2 bytes alive during the layer.
    const bench::layer_time t = bench::time_of(l, q, p);
    std::int64_t live = 0;
    for (const layer_l2& e2 : d.l2)
      for (const l2_slot* sl : {&e2.x, &e2.w, &e2.y})
        if (sl->offset >= 0 && sl->from <= static_cast<int>(i) && static_cast<int>(i) <= sl->until)
          live += sl->bytes;
    std::fprintf(out,
                 ",\"time\":{\"compute\":%" PRId64 ",\"dma_stall\":%" PRId64
                 ",\"overhead\":%" PRId64 ",\"l3_stall\":%" PRId64 "},\"l2_live\":%" PRId64,
                 t.compute, t.dma_stall, t.overhead, t.l3_stall, live);
    std::fprintf(out, ",\"l1_cycles\":%" PRId64 ",\"cycles\":%" PRId64 ",\"macs\":%" PRId64 "}",
                 q.l1_cycles, q.cycles, q.macs);
  }
  std::fprintf(out, "\n]}\n");
}

}  // namespace ctile::plan_report
