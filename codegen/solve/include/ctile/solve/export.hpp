// Export of a network's tiling problems as JSON, the input of ctile-solve. Header-only: the
// exporter that ctile_generate_plan builds is a tiny program including the user's network
// header and this file. Each layer carries its tiling problem exactly as the planner builds it
// (make_problem: geometry, budgets, DMA figures and the cost model's kernel terms), so the
// solver evaluates the same model the constexpr search does.
#pragma once

#include <cinttypes>
#include <cstdio>
#include <span>

#include <ctile/layers/layer.hpp>
#include <ctile/plan/cost_model.hpp>
#include <ctile/plan/network_plan.hpp>
#include <ctile/plan/problem.hpp>
#include <ctile/platform/platform.hpp>

namespace ctile::solve {

/// Version tag of the format written here (checked by the reader).
inline constexpr const char* problems_format = "ctile-problems/2";

namespace export_detail {

inline void string(std::FILE* f, const char* s) {
  std::fputc('"', f);
  for (; *s != '\0'; ++s) {
    const unsigned char c = static_cast<unsigned char>(*s);
    if (c == '"' || c == '\\')
      std::fprintf(f, "\\%c", c);
    else if (c < 0x20)
      std::fprintf(f, "\\u%04x", c);
    else
      std::fputc(c, f);
  }
  std::fputc('"', f);
}

inline void platform_json(std::FILE* f, const platform& p) {
  std::fprintf(f, "{\"name\": ");
  string(f, p.name.c_str());
  std::fprintf(f,
               ", \"cores\": %d, \"l1_bytes\": %d, \"l1_stack_master\": %d, "
               "\"l1_stack_worker\": %d, \"l2_bytes\": %d, \"l2_code_reserve\": %d, "
               "\"l3_bytes\": %d, \"dma_max_cmd_bytes\": %d, \"dma_max_2d_line\": %d, "
               "\"dma_max_2d_stride\": %d, \"dma_safe_max_bytes\": %d, \"cluster_mhz\": %d, "
               "\"dma_bytes_per_kcycle\": %d, \"dma_latency_cycles\": %d, "
               "\"l3_bytes_per_kcycle\": %d, \"l3_latency_cycles\": %d, "
               "\"icache_private_bytes\": %d, \"icache_shared_bytes\": %d, "
               "\"icache_line_bytes\": %d, \"icache_shared_refill\": %d, "
               "\"icache_l2_refill\": %d, \"l2_data_cycles\": %d, \"tables_in_l1\": %d, "
               "\"stream_weights\": %d}",
               p.cores, p.l1_bytes, p.l1_stack_master, p.l1_stack_worker, p.l2_bytes,
               p.l2_code_reserve, p.l3_bytes, p.dma_max_cmd_bytes, p.dma_max_2d_line,
               p.dma_max_2d_stride, p.dma_safe_max_bytes, p.cluster_mhz, p.dma_bytes_per_kcycle,
               p.dma_latency_cycles, p.l3_bytes_per_kcycle, p.l3_latency_cycles,
               p.icache_private_bytes, p.icache_shared_bytes, p.icache_line_bytes,
               p.icache_shared_refill, p.icache_l2_refill, p.l2_data_cycles, p.tables_in_l1 ? 1 : 0,
               p.stream_weights ? 1 : 0);
}

inline void problem_json(std::FILE* f, const tiling_problem& t) {
  std::fprintf(f,
               "{\"kind\": %d, \"H\": %d, \"W\": %d, \"C\": %d, \"Hin\": %d, \"Win\": %d, "
               "\"Cin\": %d, \"kernel\": [%d, %d], \"stride\": [%d, %d], \"pad\": [%d, %d, %d, "
               "%d], \"dilation\": [%d, %d], \"out_bpe\": %d, \"in_bpe\": %d, "
               "\"weights_per_channel\": %d, "
               "\"params_per_channel\": %d, "
               "\"inputs\": %d, \"channels_follow_input\": %d, \"linear\": %d, "
               "\"whole_rows\": %d, \"max_tile_h\": %d, \"cores\": %d, \"l1_budget\": %d, "
               "\"macs\": %" PRId64
               ", \"dma_bytes_per_kcycle\": %d, \"dma_latency\": %d, \"dma_limit\": %d, "
               "\"dma_line_max\": %d, \"conv_scratch\": %d, \"tile_overhead\": %" PRId64
               ", \"tile_overhead_spatial\": %" PRId64 ", \"terms\": [%" PRId64 ", %" PRId64
               ", %" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64
               ", %" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 "]}",
               static_cast<int>(t.kind), t.H, t.W, t.C, t.Hin, t.Win, t.Cin, t.kernel.h, t.kernel.w,
               t.stride.h, t.stride.w, t.pad.t, t.pad.b, t.pad.l, t.pad.r, t.dilation.h,
               t.dilation.w, t.out_bpe, t.in_bpe, t.weights_per_channel, t.params_per_channel,
               t.inputs, t.channels_follow_input ? 1 : 0, t.linear ? 1 : 0, t.whole_rows ? 1 : 0,
               t.max_tile_h, t.cores, t.l1_budget, t.macs, t.dma_bytes_per_kcycle, t.dma_latency,
               t.dma_limit, t.dma_line_max, t.conv_scratch, t.tile_overhead,
               t.tile_overhead_spatial, t.terms.p0, t.terms.p4, t.terms.p1, t.terms.s0, t.terms.s4,
               t.terms.s1, t.terms.u0, t.terms.u4, t.terms.u1, t.terms.q, t.terms.q4, t.terms.t);
}

}  // namespace export_detail

/// What names the network in the generated header: the C++ type, the platform expression,
/// and the header that declares the network.
struct export_names {
  const char* network = "";         ///< a display name
  const char* type = "";            ///< e.g. "ctile::examples::cifar10_cnn"
  const char* platform_expr = "";   ///< e.g. "ctile::gap8"
  const char* network_header = "";  ///< e.g. "networks/cifar10_cnn.hpp"
};

/// Writes the tiling problems of `layers` (already inferred) on `p` as JSON.
inline void export_problems(std::FILE* f, std::span<const layer> layers, const platform& p,
                            const export_names& names) {
  using namespace export_detail;
  std::fprintf(f, "{\"format\": ");
  string(f, problems_format);
  std::fprintf(f, ",\n \"network\": ");
  string(f, names.network);
  std::fprintf(f, ",\n \"type\": ");
  string(f, names.type);
  std::fprintf(f, ",\n \"platform_expr\": ");
  string(f, names.platform_expr);
  std::fprintf(f, ",\n \"network_header\": ");
  string(f, names.network_header);
  std::fprintf(f, ",\n \"platform\": ");
  platform_json(f, p);
  std::fprintf(f, ",\n \"layers\": [");
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const layer& l = layers[i];
    std::fprintf(f, "%s\n  {\"index\": %zu, \"name\": ", i == 0 ? "" : ",", i);
    string(f, l.name.c_str());
    std::fprintf(f, ", \"kind\": ");
    string(f, op_name(l.kind));
    std::fprintf(
        f,
        ", \"src\": [%d, %d], \"in\": [%d, %d, %d], \"out\": [%d, %d, %d], "
        "\"weight_bytes\": %" PRId64 ", \"input_bytes\": %" PRId64 ", \"output_bytes\": %" PRId64
        ", \"element_bytes\": [%d, %d, %d],\n   \"problem\": ",
        l.src[0], l.src[1], l.in.h, l.in.w, l.in.c, l.out.h, l.out.w, l.out.c,
        plan_detail::weight_bytes(l), plan_detail::input_bytes(l), l.output_bytes(),
        l.kind == op::input ? 1 : l.input_bytes_per_element(0),
        l.kind == op::add ? l.input_bytes_per_element(1) : 1, l.output_bytes_per_element());
    if (l.kind == op::input)
      std::fprintf(f, "null");
    else
      problem_json(f, make_problem(l, p));
    std::fprintf(f, "}");
  }
  std::fprintf(f, "\n ]\n}\n");
}

/// The same for a network type.
template <class Net>
void export_network(std::FILE* f, const platform& p, const export_names& names) {
  export_problems(f, std::span<const layer>(Net::layers.data(), Net::layers.size()), p, names);
}

}  // namespace ctile::solve
