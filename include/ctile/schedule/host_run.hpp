// A planned network run on the host: L1, L2 and L3 as simulated memory levels (sized by the
// plan, so any access outside them is reported), the simulated DMA with its checker, the host
// cluster, and every layer's output read back. Used by the tests, the examples and ctile-verify.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "ctile/hal/host.hpp"
#include "ctile/schedule/executor.hpp"
#include "ctile/schedule/sim_checks.hpp"

namespace ctile::schedule {

struct host_run_options {
  hal::completion mode = hal::completion::at_wait;
  std::uint64_t seed = 1;
  int cores = 8;
  std::uint8_t l2_fill = 0;                       ///< what L2 holds before the run
  std::vector<std::uint8_t>* l2_after = nullptr;  ///< if set: receives L2 after the run
};

struct host_run_result {
  std::vector<std::vector<std::int32_t>> outputs;  ///< per layer, HWC values
  std::vector<std::string> problems;  ///< checker violations and kernel-argument problems
  hal::traffic traffic{};
};

/// The values of a layer's output at `p` (u8 activations, or int32 logits).
inline std::vector<std::int32_t> read_output(const layer& l, const std::uint8_t* p,
                                             bool chw = false) {
  std::vector<std::int32_t> v(static_cast<std::size_t>(l.out.elements()));
  for (std::size_t k = 0; k < v.size(); ++k) {
    const std::size_t at = output_element(l, chw, k);
    if (l.output() == output_kind::i32) {
      std::int32_t x;
      std::memcpy(&x, p + 4 * at, 4);
      v[k] = x;
    } else {
      // Signed ranges are held as two's complement.
      v[k] = l.out_range.is_signed() ? std::int32_t{static_cast<std::int8_t>(p[at])}
                                     : std::int32_t{p[at]};
    }
  }
  return v;
}

/// Runs plan `v` (sized l1/l2/l3 bytes) on the host; `tiles` runs a layer's loop nest
/// (dynamic_tiles for plans made at run time, executor<...>::static_tiles for compile-time).
template <class Tiles = dynamic_tiles>
host_run_result run_on_host(const plan_view& v, int l1_bytes, int l2_bytes, std::int64_t l3_bytes,
                            std::span<const layer_params> params,
                            std::span<const std::uint8_t> input,
                            std::span<const kernels::requant_plan> quant,
                            const host_run_options& o = {}, Tiles tiles = {}) {
  hal::sim_memory mem({o.mode, o.seed, 0.5, false});
  auto l1 =
      mem.arena(hal::mem_level::l1, static_cast<std::size_t>(l1_bytes > 4 ? l1_bytes : 4), "L1");
  auto l2 =
      mem.arena(hal::mem_level::l2, static_cast<std::size_t>(l2_bytes > 4 ? l2_bytes : 4), "L2");
  hal::host_l3 l3(mem, static_cast<std::size_t>(l3_bytes > 4 ? l3_bytes : 4));
  auto* l2p = reinterpret_cast<std::uint8_t*>(l2.data());
  auto* l3p = reinterpret_cast<std::uint8_t*>(l3.data().data());
  std::memset(l2p, o.l2_fill, l2.size());
  stage_weights(v, params, l2p, l3p);
  std::uint8_t* in = v.l2[0].l3_y >= 0 ? l3p + v.l2[0].l3_y : l2p + v.l2[0].y.offset;
  std::memcpy(in, input.data(), input.size());

  host_run_result r;
  r.outputs.resize(v.layers.size());
  hal::host_dma dma(mem);
  hal::host_cluster cluster(o.cores);
  exec_env<hal::host_dma, hal::host_cluster, sim_checks> env{
      dma, cluster, {&mem, &r.problems}, o.cores};
  run_network(
      env, l3, v, quant, reinterpret_cast<std::uint8_t*>(l1.data()), l2p,
      [&](const layer_output& out) {
        const auto i = static_cast<std::size_t>(out.index);
        r.outputs[i] =
            read_output(v.layers[i], out.l2 != nullptr ? out.l2 : l3p + out.l3_offset, out.chw);
      },
      tiles);
  mem.finish();
  for (const auto& viol : mem.violations()) r.problems.push_back(viol.text);
  r.traffic = mem.counters();
  if (o.l2_after != nullptr) o.l2_after->assign(l2p, l2p + l2.size());
  return r;
}

/// The outcome of planning a network at run time and running it on the host.
struct planned_run {
  bool planned = false;       ///< false: `summary` says which layer does not fit, and why
  network_summary summary{};  ///< the plan's totals, or its first failure
  host_run_result run{};      ///< when planned
};

/// Plans `layers` for platform `p` at run time (the same search the compiler runs) and runs
/// them on the host with run-time loop nests (dynamic_tiles): for networks that are not types
/// (imported graphs) or that would take long to instantiate per layer.
inline planned_run plan_and_run_on_host(const platform& p, std::span<const layer> layers,
                                        std::span<const layer_params> params,
                                        std::span<const std::uint8_t> input,
                                        host_run_options o = {}) {
  const std::size_t n = layers.size();
  planned_run r;
  // A tensor that can exceed its 8-bit container is never run (it would be cut silently).
  for (std::size_t i = 0; i < n; ++i) {
    const layer& l = layers[i];
    if (l.output() == output_kind::u8 && !l.out_range.fits_8bit()) {
      r.planned = true;
      r.run.problems.push_back(
          "layer " + std::to_string(i) + " '" + std::string(l.name.c_str()) + "' (" +
          op_name(l.kind) + "): its output's proven range " + std::to_string(l.out_range.lo) +
          ".." + std::to_string(l.out_range.hi) +
          " does not fit 8 bits (an unclipped sum); clip it or saturate it (.saturating())");
      return r;
    }
  }
  std::vector<layer_plan> plans(n);
  plan_layers(layers, p, objective::model, plans);
  std::vector<layer_l2> l2s(n);
  r.summary = finish_network(layers, p, plans, l2s);
  if (!r.summary.ok()) return r;
  r.planned = true;
  int l1_bytes = 4;
  for (const auto& lp : plans) l1_bytes = lp.l1.total > l1_bytes ? lp.l1.total : l1_bytes;
  std::vector<kernels::requant_plan> quant(n);
  for (std::size_t i = 0; i < n; ++i) quant[i] = kernels::plan_for(layers[i], params[i]);
  o.cores = p.cores;
  r.run = run_on_host(plan_view{layers, plans, l2s}, l1_bytes, r.summary.l2_peak, r.summary.l3_used,
                      params, input, quant, o);
  return r;
}

}  // namespace ctile::schedule

namespace ctile {

/// Runs network type `Net` planned for `Plat` on the host (see schedule::run_on_host).
template <network_type Net, platform Plat, objective O = objective::model>
schedule::host_run_result run_on_host(const typename Net::params& params,
                                      std::span<const std::uint8_t> input,
                                      schedule::host_run_options o = {}) {
  using E = executor<Net, Plat, O>;
  o.cores = Plat.cores;
  const auto q = E::prepare(params);
  return schedule::run_on_host(schedule::view_of(Net::layers, E::plan), E::required_l1_bytes,
                               E::required_l2_bytes, E::required_l3_bytes, params, input, q, o,
                               typename E::static_tiles{});
}

}  // namespace ctile
