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
#include "ctile/schedule/status.hpp"

namespace ctile::schedule {

struct host_run_options {
  hal::completion mode = hal::completion::at_wait;
  std::uint64_t seed = 1;
  int cores = 8;
  std::uint8_t l2_fill = 0;                       ///< what L2 holds before the run
  std::vector<std::uint8_t>* l2_after = nullptr;  ///< if set: receives L2 after the run
};

struct host_run_result {
  run_status status{};  ///< not ok: the data given had a wrong size, nothing ran
  std::vector<std::vector<std::int32_t>> outputs;  ///< per layer, HWC values
  std::vector<std::string> problems;  ///< checker violations and kernel-argument problems
  hal::traffic traffic{};
};

/// The status as a sentence, naming the layer of `layers` it concerns, e.g. "layer 2 (conv2):
/// the weights given has 100 elements, it must have 288".
inline std::string describe(const run_status& s, std::span<const layer> layers = {}) {
  if (s.ok()) return "ok";
  std::string who = "the network";
  if (s.layer >= 0) {
    who = "layer " + std::to_string(s.layer);
    if (static_cast<std::size_t>(s.layer) < layers.size()) {
      const layer& l = layers[static_cast<std::size_t>(s.layer)];
      who += std::string(" (") + (l.name.empty() ? op_name(l.kind) : l.name.c_str()) + ")";
    }
  }
  const bool exact = exact_size(s.what);
  const bool in_bytes = s.what == run_status::field::input || !exact;
  const char* unit = in_bytes ? " bytes" : " elements";
  return who + ": the " + field_name(s.what) + " given has " + std::to_string(s.got) + unit +
         (exact ? ", it must have " : ", it needs at least ") + std::to_string(s.expected);
}

/// The byte view of a simulated memory level.
inline std::span<std::uint8_t> bytes_of(std::span<std::byte> m) {
  return {reinterpret_cast<std::uint8_t*>(m.data()), m.size()};
}

/// The values of layer `l`'s output held in `bytes` (u8 activations, or int32 logits
/// little-endian; channel-major when `chw`, else HWC) into `out`, in HWC order.
inline run_status read_output(const layer& l, std::span<const std::uint8_t> bytes, bool chw,
                              std::vector<std::int32_t>& out) {
  if (auto s = at_least(run_status::field::output, -1, l.output_bytes(),
                        static_cast<std::int64_t>(bytes.size()));
      !s.ok())
    return s;
  out.resize(static_cast<std::size_t>(l.out.elements()));
  for (std::size_t k = 0; k < out.size(); ++k) {
    out[k] = stored_value(l, bytes.data(), output_element(l, chw, k));
  }
  return {};
}

/// Checks what run_on_host is given: the constant data (check_stage), one requantization plan
/// per layer, and an input of the input layer's size (in that order).
inline run_status check_host_run(const plan_view& v, std::span<const layer_params> params,
                                 std::span<const std::uint8_t> input,
                                 std::span<const kernels::requant_plan> quant) {
  using F = run_status::field;
  if (auto s = check_stage(v, params, 0, 0); !s.ok() && s.what != F::l2 && s.what != F::l3)
    return s;
  if (auto s = exactly(F::input, 0, v.layers.empty() ? 0 : v.layers[0].out.elements(),
                       static_cast<std::int64_t>(input.size()));
      !s.ok())
    return s;
  const auto n = static_cast<std::int64_t>(v.layers.size());
  return exactly(F::quant, -1, n, static_cast<std::int64_t>(quant.size()));
}

/// A result that ran nothing: the status, and its sentence among the problems.
inline host_run_result refused(const run_status& s, std::span<const layer> layers) {
  host_run_result r;
  r.status = s;
  r.problems.push_back(describe(s, layers));
  return r;
}

/// Runs plan `v` (sized l1/l2/l3 bytes) on the host; `tiles` runs a layer's loop nest
/// (dynamic_tiles for plans made at run time, executor<...>::static_tiles for compile-time).
/// Checks the data first (check_host_run): on a wrong size nothing runs and `status` says what.
template <class Tiles = dynamic_tiles>
host_run_result run_on_host(const plan_view& v, int l1_bytes, int l2_bytes, std::int64_t l3_bytes,
                            std::span<const layer_params> params,
                            std::span<const std::uint8_t> input,
                            std::span<const kernels::requant_plan> quant,
                            const host_run_options& o = {}, Tiles tiles = {}) {
  if (auto s = check_host_run(v, params, input, quant); !s.ok()) return refused(s, v.layers);
  hal::sim_memory mem({o.mode, o.seed, 0.5, false});
  auto l1 =
      mem.arena(hal::mem_level::l1, static_cast<std::size_t>(l1_bytes > 4 ? l1_bytes : 4), "L1");
  auto l2 =
      mem.arena(hal::mem_level::l2, static_cast<std::size_t>(l2_bytes > 4 ? l2_bytes : 4), "L2");
  hal::host_l3 l3(mem, static_cast<std::size_t>(l3_bytes > 4 ? l3_bytes : 4));
  const auto l2b = bytes_of(l2), l3b = bytes_of(l3.data());
  std::memset(l2b.data(), o.l2_fill, l2b.size());
  if (auto s = stage_weights(v, params, l2b, l3b); !s.ok()) return refused(s, v.layers);
  const bool in_l3 = v.l2[0].l3_y >= 0;
  const std::int64_t at = in_l3 ? v.l2[0].l3_y : v.l2[0].y.offset;
  const std::span<std::uint8_t> to = in_l3 ? l3b : l2b;
  if (auto s = at_least(in_l3 ? run_status::field::l3 : run_status::field::l2, -1,
                        at + static_cast<std::int64_t>(input.size()),
                        static_cast<std::int64_t>(to.size()));
      !s.ok())
    return refused(s, v.layers);
  std::memcpy(to.data() + at, input.data(), input.size());

  host_run_result r;
  r.outputs.resize(v.layers.size());
  hal::host_dma dma(mem);
  hal::host_cluster cluster(o.cores);
  exec_env<hal::host_dma, hal::host_cluster, sim_checks> env{
      dma, cluster, {&mem, &r.problems}, o.cores};
  run_network(
      env, l3, v, quant, bytes_of(l1).data(), l2b.data(),
      [&](const layer_output& out) {
        const auto i = static_cast<std::size_t>(out.index);
        std::span<const std::uint8_t> where;
        if (out.l2 != nullptr) {
          where = {out.l2, static_cast<std::size_t>(out.bytes)};
        } else if (out.l3_offset >= 0 && static_cast<std::size_t>(out.l3_offset) <= l3b.size()) {
          where = l3b.subspan(static_cast<std::size_t>(out.l3_offset));
          if (where.size() > static_cast<std::size_t>(out.bytes))
            where = where.first(static_cast<std::size_t>(out.bytes));
        }
        if (auto s = read_output(v.layers[i], where, out.chw, r.outputs[i]); !s.ok())
          r.problems.push_back(describe({s.what, out.index, s.expected, s.got}, v.layers));
      },
      tiles);
  mem.finish();
  for (const auto& viol : mem.violations()) r.problems.push_back(viol.text);
  r.traffic = mem.counters();
  if (o.l2_after != nullptr) o.l2_after->assign(l2b.begin(), l2b.end());
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
  // A tensor that can exceed the widest container (16 bits) is never run (it would be cut
  // silently).
  if (const int bad = first_unheld_tensor(layers); bad >= 0) {
    const layer& l = layers[static_cast<std::size_t>(bad)];
    r.planned = true;
    r.run.problems.push_back(
        "layer " + std::to_string(bad) + " '" + std::string(l.name.c_str()) + "' (" +
        op_name(l.kind) + "): its output's proven range " + std::to_string(l.out_range.lo) + ".." +
        std::to_string(l.out_range.hi) +
        " does not fit 16 bits (an unclipped sum); clip it or saturate it (.saturating())");
    return r;
  }
  std::vector<layer_plan> plans(n);
  plan_layers(layers, p, objective::model, plans);
  std::vector<layer_l2> l2s(n);
  r.summary = finish_network(layers, p, plans, l2s);
  if (!r.summary.ok()) return r;
  r.planned = true;
  // plan_for reads the weights: the data is checked first.
  if (auto s = check_host_run(plan_view{layers, plans, l2s}, params, input,
                              std::span<const kernels::requant_plan>{});
      !s.ok() && s.what != run_status::field::quant) {
    r.run = refused(s, layers);
    return r;
  }
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
  typename E::quant_plans q{};
  if (auto s = E::prepare(params, q); !s.ok())
    return schedule::refused(s, std::span<const layer>(Net::layers));
  return schedule::run_on_host(schedule::view_of(Net::layers, E::plan), E::required_l1_bytes,
                               E::required_l2_bytes, E::required_l3_bytes, params, input, q, o,
                               typename E::static_tiles{});
}

}  // namespace ctile
