#include "ctile/onnx/engine.hpp"
#include "ctile/onnx/verify.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "ctile/hal/host.hpp"
#include "ctile/kernels/ranges.hpp"
#include "ctile/plan/network_plan.hpp"
#include "ctile/platform/gap8.hpp"
#include "ctile/platform/host.hpp"
#include "ctile/schedule/executor.hpp"
#include "ctile/schedule/sim_checks.hpp"

namespace ctile::onnx {

engine reference_engine() {
  return {"reference (ctile::reference, naive loops)",
          [](std::span<const layer> ls, std::span<const layer_params> ps,
             std::span<const std::int32_t> in) { return reference::run(ls, ps, in); }};
}

platform platform_of(const platform_options& o) {
  platform p = o.platform == "host" ? ctile::host : ctile::gap8;
  if (o.l1 > 0) p = p.with_l1(static_cast<int>(o.l1));
  if (o.l2 > 0) p = p.with_l2(static_cast<int>(o.l2));
  return p;
}

layer_outputs run_tiled(const platform& p, std::span<const layer> ls,
                        std::span<const layer_params> ps, std::span<const std::int32_t> input) {
  const std::size_t n = ls.size();
  std::vector<layer_plan> plans(n);
  for (std::size_t i = 0; i < n; ++i) plans[i] = plan_layer(ls[i], p);
  std::vector<layer_l2> l2s(n);
  const network_summary s = finish_network(ls, p, plans, l2s);
  if (!s.ok()) {
    const std::string what = s.layer >= 0 && static_cast<std::size_t>(s.layer) < n
                                 ? "layer " + std::to_string(s.layer) + " (" +
                                       op_name(ls[static_cast<std::size_t>(s.layer)].kind) + ")"
                                 : std::string("the network");
    throw std::runtime_error("the tiled runtime cannot plan this network: " + what + " needs " +
                             std::to_string(s.needs) + " bytes, the budget is " +
                             std::to_string(s.budget));
  }
  int l1_bytes = 4;
  for (const auto& lp : plans) l1_bytes = std::max(l1_bytes, lp.l1.total);

  hal::sim_memory mem;
  auto l1 = mem.arena(hal::mem_level::l1, static_cast<std::size_t>(l1_bytes), "L1");
  auto l2 = mem.arena(hal::mem_level::l2, static_cast<std::size_t>(std::max(4, s.l2_peak)), "L2");
  hal::host_l3 l3(mem, static_cast<std::size_t>(std::max<std::int64_t>(4, s.l3_used)));
  auto* l2p = reinterpret_cast<std::uint8_t*>(l2.data());
  auto* l3p = reinterpret_cast<std::uint8_t*>(l3.data().data());
  const schedule::plan_view view{ls, plans, l2s};
  schedule::stage_weights(view, ps, l2p, l3p);
  std::uint8_t* in = l2s[0].l3_y >= 0 ? l3p + l2s[0].l3_y : l2p + l2s[0].y.offset;
  for (std::size_t k = 0; k < input.size(); ++k) in[k] = static_cast<std::uint8_t>(input[k]);

  std::vector<kernels::requant_plan> quant(n);
  for (std::size_t i = 0; i < n; ++i) quant[i] = kernels::plan_for(ls[i], ps[i]);

  layer_outputs outs(n);
  std::vector<std::string> problems;
  hal::host_dma dma(mem);
  hal::host_cluster cluster(p.cores);
  schedule::exec_env<hal::host_dma, hal::host_cluster, schedule::sim_checks> env{
      dma, cluster, {&mem, &problems}, p.cores};
  schedule::run_network(env, l3, view, quant, reinterpret_cast<std::uint8_t*>(l1.data()), l2p,
                        [&](const schedule::layer_output& o) {
                          const layer& l = ls[static_cast<std::size_t>(o.index)];
                          const std::uint8_t* src = o.l2 != nullptr ? o.l2 : l3p + o.l3_offset;
                          auto& v = outs[static_cast<std::size_t>(o.index)];
                          v.resize(static_cast<std::size_t>(l.out.elements()));
                          for (std::size_t k = 0; k < v.size(); ++k) {
                            if (l.output() == output_kind::i32) {
                              std::int32_t x;
                              std::memcpy(&x, src + 4 * k, 4);
                              v[k] = x;
                            } else {
                              v[k] = src[k];
                            }
                          }
                        });
  mem.finish();
  for (const auto& viol : mem.violations()) problems.push_back(viol.text);
  if (!problems.empty())
    throw std::runtime_error("the tiled runtime reported a problem: " + problems.front());
  return outs;
}

engine tiled_engine(const platform_options& o) {
  const platform p = platform_of(o);
  std::string name = "tiled runtime (simulated DMA, ";
  name += p.name.c_str();
  name += ", L1 " + std::to_string(p.l1_bytes) + " B, L2 " + std::to_string(p.l2_bytes) + " B)";
  return {name, [p](std::span<const layer> ls, std::span<const layer_params> ps,
                    std::span<const std::int32_t> in) { return run_tiled(p, ls, ps, in); }};
}

engine default_engine() {
  return tiled_engine({});
}

}  // namespace ctile::onnx
