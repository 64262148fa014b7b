// The host glue of a planned network, installed with the library:
//
// - ctile::run_on_host<Net, Plat>(params, input) (ctile/schedule/host_run.hpp): the whole
//   network on the host's simulated L1/L2/L3 and DMA (with its checker), every layer's output
//   read back as int32 values; schedule::read_output reads one layer's output bytes;
// - ctile::run_and_check<Net, Plat>(title, params, input): the firmware flow (prepare, stage,
//   load_input, run on caller-sized memory) checked layer by layer against the naive reference,
//   with the plan's layer table printed. On the host it runs on the simulated memory and DMA;
//   built for a bare-metal RISC-V target (__riscv: QEMU virt, semihosting printf) on the
//   synchronous bare-metal HAL and static L1/L2/L3 buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <ctile/ctile.hpp>
#include <ctile/reference/layer.hpp>
#include <ctile/schedule/executor.hpp>
#include <ctile/schedule/status.hpp>
#include <span>

#if defined(__riscv)
#include <ctile/hal/baremetal.hpp>
#else
#include <ctile/hal/host.hpp>
#include <ctile/schedule/host_run.hpp>
#include <ctile/schedule/sim_checks.hpp>
#include <string>
#include <vector>
#endif

namespace ctile::run_check {

/// Every layer's reference output, computed once into static storage.
template <network_type Net>
struct reference_outputs {
  static constexpr std::size_t total = [] {
    std::size_t n = 0;
    for (const auto& l : Net::layers) n += static_cast<std::size_t>(l.out.elements());
    return n;
  }();
  static constexpr std::size_t offset(std::size_t i) {
    std::size_t n = 0;
    for (std::size_t k = 0; k < i; ++k)
      n += static_cast<std::size_t>(Net::layers[k].out.elements());
    return n;
  }
  std::int32_t values[total] = {};

  std::span<std::int32_t> of(std::size_t i) {
    return {values + offset(i), static_cast<std::size_t>(Net::layers[i].out.elements())};
  }

  void compute(const typename Net::params& p, std::span<const std::uint8_t> input) {
    auto in = of(0);
    for (std::size_t k = 0; k < in.size(); ++k) in[k] = input[k];
    for (std::size_t i = 1; i < Net::size; ++i) {
      const layer& l = Net::layers[i];
      const auto a = of(static_cast<std::size_t>(l.src[0]));
      std::span<const std::int32_t> b{};
      if (l.src[1] >= 0) b = of(static_cast<std::size_t>(l.src[1]));
      reference::run_layer_into(l, p[i], a, b, of(i));
    }
  }
};

/// Per-layer comparison results.
struct layer_check {
  std::int64_t mismatches = -1;  ///< -1: the layer's output was never seen
  std::int64_t max_diff = 0;
};

template <network_type Net>
std::int64_t compare(std::span<const std::int32_t> want, const std::uint8_t* got, std::size_t i,
                     layer_check& c, bool chw) {
  const layer& l = Net::layers[i];
  c.mismatches = 0;
  for (std::size_t k = 0; k < want.size(); ++k) {
    const std::size_t at = schedule::output_element(l, chw, k);  // got: HWC, or CHW
    const std::int32_t v = schedule::stored_value(l, got, at);
    const std::int64_t d = v > want[k] ? std::int64_t{v} - want[k] : std::int64_t{want[k]} - v;
    if (d != 0) ++c.mismatches;
    if (d > c.max_diff) c.max_diff = d;
  }
  return c.mismatches;
}

template <network_type Net, platform Plat>
void print_table(const layer_check* checks) {
  using E = executor<Net, Plat>;
  std::printf("%-3s %-12s %-9s %-14s %-14s %-11s %-9s %-8s %6s %10s %6s  %s\n", "#", "name", "kind",
              "in", "out", "tile", "tiles", "split", "L1 B", "cycles", "MAC/c", "check");
  std::int64_t cycles = 0, macs = 0;
  for (std::size_t i = 0; i < Net::size; ++i) {
    const layer& l = Net::layers[i];
    const layer_plan& p = E::plan.layers[i];
    char in[24], out[24], tile[24], tiles[24];
    std::snprintf(in, sizeof in, "%dx%dx%d", l.in.h, l.in.w, l.in.c);
    // A tensor the plan keeps channel-major in L2 (for the depthwise layer that reads it).
    std::snprintf(out, sizeof out, "%dx%dx%d%s", l.out.h, l.out.w, l.out.c,
                  p.out_chw ? " chw" : "");
    std::snprintf(tile, sizeof tile, "%dx%dx%d", p.tile_h, p.tile_w, p.tile_c);
    std::snprintf(tiles, sizeof tiles, "%dx%dx%d", p.n_h, p.n_w, p.n_c);
    const double mpc =
        p.cycles > 0 ? static_cast<double>(p.macs) / static_cast<double>(p.cycles) : 0.0;
    const layer_check& c = checks[i];
    std::printf("%-3zu %-12s %-9s %-14s %-14s %-11s %-9s %-8s %6d %10lld %6.2f  %s\n", i,
                l.name.empty() ? "-" : l.name.c_str(), op_name(l.kind), in, out, tile, tiles,
                split_name(p.split.kind), p.l1.total, static_cast<long long>(p.cycles), mpc,
                c.mismatches == 0 ? "bit-exact" : (c.mismatches < 0 ? "not seen" : "MISMATCH"));
    cycles += p.cycles;
    macs += p.macs;
  }
  std::printf(
      "total: %lld MACs, %lld modeled cycles (%.2f MAC/cycle) on %s; L1 %d B, L2 %d B, "
      "L3 %lld B\n",
      static_cast<long long>(macs), static_cast<long long>(cycles),
      cycles > 0 ? static_cast<double>(macs) / static_cast<double>(cycles) : 0.0, Plat.name.c_str(),
      E::required_l1_bytes, E::required_l2_bytes, static_cast<long long>(E::required_l3_bytes));
}

/// Does nothing with a layer's output (the default extra check of run_network).
struct no_extra_check {
  void operator()(std::size_t, const std::uint8_t*, bool) const {}
};

/// Runs network `Net` planned for `Plat` on the given constant data and input, firmware style
/// (caller-sized L1/L2/L3; prepare, stage, load_input, run, each checked), checks every layer
/// against the reference and prints the layer table; `extra(i, bytes, chw)` also sees each layer's
/// output as the executor wrote it (int32 outputs little-endian; channel-major when `chw`, else
/// HWC). Returns 0 when every layer is bit-exact, 1 on a mismatch or a checker problem, 2 when an
/// entry point refused the data (the line printed says which layer, what and the sizes).
template <network_type Net, platform Plat, class Extra = no_extra_check>
int run_and_check(const char* title, const typename Net::params& params,
                  std::span<const std::uint8_t> input, Extra extra = {}) {
  using E = executor<Net, Plat>;
  const auto refuse = [](const run_status& s) {
    if (s.layer >= 0)
      std::printf("layer %d (%s): ", s.layer,
                  Net::layers[static_cast<std::size_t>(s.layer)].name.c_str());
    std::printf("the %s given has %lld, %s %lld: refused\nMISMATCH\n", field_name(s.what),
                static_cast<long long>(s.got),
                exact_size(s.what) ? "it must have" : "it needs at least",
                static_cast<long long>(s.expected));
    return 2;
  };
  // The reference reads the input before any entry point checks it.
  if (const auto s = exactly(run_status::field::input, 0, Net::input_shape.elements(),
                             static_cast<std::int64_t>(input.size()));
      !s.ok())
    return refuse(s);
  static reference_outputs<Net> expected;
  static layer_check checks[Net::size];
  for (auto& c : checks) c = layer_check{};
  expected.compute(params, input);
  std::printf("%s: %zu layers, planned for %s\n", title, Net::size, Plat.name.c_str());

  typename E::quant_plans quant{};
  if (const auto s = E::prepare(params, quant); !s.ok()) return refuse(s);
  const auto hook = [&](const schedule::layer_output& o, std::span<const std::uint8_t> l3) {
    const auto i = static_cast<std::size_t>(o.index);
    const std::uint8_t* got = o.l2 != nullptr ? o.l2 : l3.data() + o.l3_offset;
    compare<Net>(expected.of(i), got, i, checks[i], o.chw);
    extra(i, got, o.chw);
  };

#if defined(__riscv)
  alignas(8) static std::uint8_t l1[E::required_l1_bytes];
  alignas(8) static std::uint8_t l2[E::required_l2_bytes];
  alignas(8) static std::uint8_t l3[E::required_l3_bytes > 0 ? E::required_l3_bytes : 4];
  if (const auto s = E::stage(params, l2, l3); !s.ok()) return refuse(s);
  if (const auto s = E::load_input(input, l2, l3); !s.ok()) return refuse(s);
  hal::baremetal_dma dma;
  hal::baremetal_cluster cluster;
  hal::baremetal_l3 l3mem(l3, sizeof l3);
  schedule::exec_env<hal::baremetal_dma, hal::baremetal_cluster> env{dma, cluster, {}, 1};
  if (const auto s =
          E::run(env, l3mem, quant, l1, l2, [&](const schedule::layer_output& o) { hook(o, l3); });
      !s.ok())
    return refuse(s);
#else
  hal::sim_memory mem;
  const auto l1 = schedule::bytes_of(
      mem.arena(hal::mem_level::l1, static_cast<std::size_t>(E::required_l1_bytes), "L1"));
  const auto l2 = schedule::bytes_of(
      mem.arena(hal::mem_level::l2, static_cast<std::size_t>(E::required_l2_bytes), "L2"));
  hal::host_l3 l3(mem,
                  static_cast<std::size_t>(E::required_l3_bytes > 0 ? E::required_l3_bytes : 4));
  const auto l3b = schedule::bytes_of(l3.data());
  if (const auto s = E::stage(params, l2, l3b); !s.ok()) return refuse(s);
  if (const auto s = E::load_input(input, l2, l3b); !s.ok()) return refuse(s);
  hal::host_dma dma(mem);
  hal::host_cluster cluster(Plat.cores);
  std::vector<std::string> problems;
  schedule::exec_env<hal::host_dma, hal::host_cluster, schedule::sim_checks> env{
      dma, cluster, {&mem, &problems}, Plat.cores};
  if (const auto s =
          E::run(env, l3, quant, l1, l2, [&](const schedule::layer_output& o) { hook(o, l3b); });
      !s.ok())
    return refuse(s);
  mem.finish();
  for (const auto& v : mem.violations()) problems.push_back(v.text);
  for (const auto& p : problems) std::printf("DMA/kernel check: %s\n", p.c_str());
  const auto t = mem.counters();
  std::printf("DMA traffic: L3->L2 %llu B, L2->L1 %llu B, L1->L2 %llu B, L2->L3 %llu B\n",
              static_cast<unsigned long long>(t.bytes_on(hal::traffic_path::l3_to_l2)),
              static_cast<unsigned long long>(t.bytes_on(hal::traffic_path::l2_to_l1)),
              static_cast<unsigned long long>(t.bytes_on(hal::traffic_path::l1_to_l2)),
              static_cast<unsigned long long>(t.bytes_on(hal::traffic_path::l2_to_l3)));
  if (!problems.empty()) return 1;
#endif

  print_table<Net, Plat>(checks);
  std::size_t exact = 0;
  for (const auto& c : checks) exact += c.mismatches == 0;
  std::printf("%zu/%zu layers bit-exact\n", exact, Net::size);
  const bool ok = exact == Net::size;
  std::printf("%s\n", ok ? "bit-exact" : "MISMATCH");
  return ok ? 0 : 1;
}

}  // namespace ctile::run_check

namespace ctile {
using run_check::run_and_check;
}  // namespace ctile
