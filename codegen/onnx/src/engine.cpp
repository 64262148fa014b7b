#include "ctile/onnx/engine.hpp"
#include "ctile/onnx/verify.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "ctile/kernels/ranges.hpp"
#include "ctile/plan/network_plan.hpp"
#include "ctile/platform/gap8.hpp"
#include "ctile/platform/host.hpp"
#include "ctile/schedule/host_run.hpp"

namespace ctile::onnx {

engine reference_engine() {
  return {"reference (ctile::reference, naive loops)",
          [](std::span<const layer> ls, std::span<const layer_params> ps,
             std::span<const std::int32_t> in) { return reference::run(ls, ps, in); }};
}

platform platform_of(const platform_options& o) {
  platform p = o.platform == "host" ? ctile::host : ctile::gap8;
  if (o.stack_master >= 0)
    p = p.with_stacks(o.stack_master, o.stack_worker >= 0 ? o.stack_worker : o.stack_master);
  if (o.l1 > 0) p = p.with_l1(static_cast<int>(o.l1));
  if (o.l1_tiles > 0)
    p = p.with_l1(static_cast<int>(o.l1_tiles) + p.l1_stack_master +
                  (p.cores - 1) * p.l1_stack_worker);
  if (o.l2 > 0) p = p.with_l2(static_cast<int>(o.l2));
  return p;
}

layer_outputs run_tiled(const platform& p, std::span<const layer> ls,
                        std::span<const layer_params> ps, std::span<const std::int32_t> input) {
  const std::size_t n = ls.size();
  std::vector<std::uint8_t> in(input.size());
  for (std::size_t k = 0; k < input.size(); ++k) in[k] = static_cast<std::uint8_t>(input[k]);
  auto r = schedule::plan_and_run_on_host(p, ls, ps, in);
  if (!r.planned) {
    const network_summary& s = r.summary;
    const std::string what = s.layer >= 0 && static_cast<std::size_t>(s.layer) < n
                                 ? "layer " + std::to_string(s.layer) + " (" +
                                       op_name(ls[static_cast<std::size_t>(s.layer)].kind) + ")"
                                 : std::string("the network");
    throw std::runtime_error("the tiled runtime cannot plan this network: " + what + " needs " +
                             std::to_string(s.needs) + " bytes, the budget is " +
                             std::to_string(s.budget));
  }
  if (!r.run.problems.empty())
    throw std::runtime_error("the tiled runtime reported a problem: " + r.run.problems.front());
  return std::move(r.run.outputs);
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
