#include "ctile/onnx/engine.hpp"
#include "ctile/onnx/verify.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "ctile/kernels/args.hpp"
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
  platform p = o.platform == "host"        ? ctile::host
               : o.platform == "gap8_dory" ? ctile::gap8_dory
                                           : ctile::gap8;
  if (o.stack_master >= 0)
    p = p.with_stacks(o.stack_master, o.stack_worker >= 0 ? o.stack_worker : o.stack_master);
  if (o.l1 > 0) p = p.with_l1(static_cast<int>(o.l1));
  if (o.l1_tiles > 0)
    p = p.with_l1(static_cast<int>(o.l1_tiles) + p.l1_stack_master +
                  (p.cores - 1) * p.l1_stack_worker);
  if (o.l2 > 0) p = p.with_l2(static_cast<int>(o.l2));
  return p;
}

/// Whether the kernels of this build take a dilation (their arguments carry one).
template <class Args>
constexpr bool carries_dilation = requires(Args a) {
  a.dh;
};
constexpr bool kernels_dilate = carries_dilation<kernels::tile_args>;

layer_outputs run_tiled(const platform& p, std::span<const layer> ls,
                        std::span<const layer_params> ps, std::span<const std::int32_t> input) {
  const std::size_t n = ls.size();
  if constexpr (!kernels_dilate) {
    for (std::size_t i = 0; i < n; ++i)
      if (ls[i].dilation.h != 1 || ls[i].dilation.w != 1)
        throw std::runtime_error("the tiled runtime cannot run this network: layer " +
                                 std::to_string(i) + " (" + op_name(ls[i].kind) +
                                 ") is dilated, and this build's kernels take no dilation");
  }
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
  if (!r.run.problems.empty()) {
    const std::string& what = r.run.problems.front();
    // A tensor wider than the widest container (16 bits) is refused before anything runs.
    if (what.find("does not fit 16 bits") != std::string::npos)
      throw std::runtime_error("the tiled runtime cannot run this network: " + what);
    throw std::runtime_error("the tiled runtime reported a problem: " + what);
  }
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
