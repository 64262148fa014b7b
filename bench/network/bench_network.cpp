// Per-layer modeled performance of every example network on GAP-8, the comparison of
// MobileNet-v1 1.0-128 with DORY's published figures, and an L1 x L2 sizing sweep of
// MobileNet-v1. Every cycle figure is the planner's cost model (ctile::cost), not a
// measurement. Usage: bench_network [OUTPUT_DIR] — writes the plots' data files there
// (bench/network/plots.gp reads them).
#include <cstdio>
#include <ctile/platform/gap8.hpp>
#include <memory>
#include <string>

#include "network/calibration.hpp"
#include "network/report.hpp"
#include "networks/cifar10_cnn.hpp"
#include "networks/mobilenet_v1.hpp"
#include "networks/mobilenet_v2.hpp"
#include "networks/residual.hpp"

namespace {

using namespace ctile;
using ctile::bench::layer_time;

std::string out_dir = ".";

double pct(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

/// Prints the layer table and totals of `Net` planned on `p`, writes `<file>_layers.dat`;
/// returns the totals.
template <class Net>
bench::network_time report(const char* title, const char* file, const platform& p) {
  const auto np = std::make_unique<network_plan<Net::size>>(plan_network(Net::layers, p));
  const auto& ls = Net::layers;
  std::printf("\n## %s on %s (modeled)\n\n", title, p.name.c_str());
  if (!np->summary.ok()) {
    std::printf("does not fit (layer %d)\n", np->summary.layer);
    return {};
  }
  std::printf("%-3s %-11s %-9s %11s %10s %6s %6s %7s %6s %6s %6s %6s\n", "#", "layer", "kind",
              "MACs", "cycles", "MAC/c", "L1 B", "L2 B", "comp%", "dma%", "ovh%", "L3%");
  FILE* dat = std::fopen((out_dir + "/" + file + "_layers.dat").c_str(), "w");
  if (dat != nullptr)
    std::fprintf(dat,
                 "# index name kind macs cycles mac_per_cycle compute dma_stall overhead "
                 "l3_stall l1_bytes l2_live_bytes\n");
  for (std::size_t i = 1; i < Net::size; ++i) {
    const layer& l = ls[i];
    const layer_plan& lp = np->layers[i];
    const layer_time t = bench::time_of(l, lp, p);
    const double mpc =
        lp.cycles > 0 ? static_cast<double>(lp.macs) / static_cast<double>(lp.cycles) : 0.0;
    const std::int64_t l2 = bench::l2_live(*np, static_cast<int>(i));
    std::printf("%-3zu %-11s %-9s %11lld %10lld %6.2f %6d %7lld %6.1f %6.1f %6.1f %6.1f\n", i,
                l.name.empty() ? "-" : l.name.c_str(), op_name(l.kind),
                static_cast<long long>(lp.macs), static_cast<long long>(lp.cycles), mpc,
                lp.l1.total, static_cast<long long>(l2), pct(t.compute, lp.cycles),
                pct(t.dma_stall, lp.cycles), pct(t.overhead, lp.cycles),
                pct(t.l3_stall, lp.cycles));
    if (dat != nullptr)
      std::fprintf(dat, "%zu \"%s\" %s %lld %lld %.4f %lld %lld %lld %lld %d %lld\n", i,
                   l.name.empty() ? "-" : l.name.c_str(), op_name(l.kind),
                   static_cast<long long>(lp.macs), static_cast<long long>(lp.cycles), mpc,
                   static_cast<long long>(t.compute), static_cast<long long>(t.dma_stall),
                   static_cast<long long>(t.overhead), static_cast<long long>(t.l3_stall),
                   lp.l1.total, static_cast<long long>(l2));
  }
  if (dat != nullptr) std::fclose(dat);
  const auto tot = bench::totals(ls, *np, p);
  const double ms = static_cast<double>(tot.cycles) / (p.cluster_mhz * 1000.0);
  std::printf(
      "total: %lld MACs, %lld cycles, %.2f MAC/cycle, %.2f ms = %.1f frames/s at %d MHz; "
      "compute %.1f%%, DMA stall %.1f%%, overhead %.1f%%, L3 stall %.1f%%; L1 peak %d B, L2 "
      "arena %d B, L3 %lld B\n",
      static_cast<long long>(tot.macs), static_cast<long long>(tot.cycles), tot.mac_per_cycle(), ms,
      1000.0 / ms, p.cluster_mhz, pct(tot.time.compute, tot.cycles),
      pct(tot.time.dma_stall, tot.cycles), pct(tot.time.overhead, tot.cycles),
      pct(tot.time.l3_stall, tot.cycles), tot.l1_peak, np->summary.l2_peak,
      static_cast<long long>(np->summary.l3_used));
  return tot;
}

template <class Net>
void dory_comparison(const bench::network_time& ours) {
  const bench::dory_figures d;
  // DORY's own L1 budget (its stacks: gap8_dory) for the like-for-like rows.
  const auto same_l1 =
      std::make_unique<network_plan<Net::size>>(plan_network(Net::layers, gap8_dory));
  const auto st = bench::totals(Net::layers, *same_l1, gap8_dory);
  const auto dory_plan = std::make_unique<network_plan<Net::size>>(
      plan_network(Net::layers, gap8_dory, objective::dory));
  const auto dt = bench::totals(Net::layers, *dory_plan, gap8_dory);
  const double macs = static_cast<double>(ours.macs);
  const double dory_cycles = d.cluster_mhz * 1e6 / d.frames_per_s;
  const auto row = [](const char* what, int l1, const bench::network_time& t) {
    char label[96];
    std::snprintf(label, sizeof label, what, l1);
    std::printf("%-58s %10.2f %12lld %9.2f\n", label, t.mac_per_cycle(),
                static_cast<long long>(t.cycles),
                gap8.cluster_mhz * 1e6 / static_cast<double>(t.cycles));
  };
  std::printf("\n## MobileNet-v1 1.0-128 on GAP-8: ctile (modeled) vs DORY (published)\n\n");
  std::printf("%-58s %10s %12s %9s\n", "", "MAC/cycle", "cycles", "frames/s");
  row("ctile plan, DORY's stacks: %d B of L1 (modeled)", gap8_dory.l1_budget(), st);
  row("ctile plan, ctile's stacks: %d B of L1 (modeled)", gap8.l1_budget(), ours);
  row("DORY's tiling objective, DORY's stacks (%d B), same model", gap8_dory.l1_budget(), dt);
  std::printf("%-58s %10.2f %12s %9s\n", "DORY, GVSOC 8 cores (published, IEEE TC 2021)",
              d.mac_per_cycle_gvsoc, "-", "-");
  std::printf("%-58s %10.2f %12.0f %9.2f\n",
              "DORY, paper at 100 MHz (published; MAC/cycle derived)", macs / dory_cycles,
              dory_cycles, d.frames_per_s);
  std::printf(
      "ctile / DORY GVSOC: %.2fx MAC/cycle with DORY's stacks, %.2fx with ctile's "
      "(modeled vs simulated-published)\n",
      st.mac_per_cycle() / d.mac_per_cycle_gvsoc, ours.mac_per_cycle() / d.mac_per_cycle_gvsoc);
}

/// MobileNet-v1 1.0-128 planned with L1 tile budgets of 22..400 kB (stacks excluded) and L2 of
/// 256 kB .. 4 MB (code reserve kept), like DORY's memory-sizing study.
void sweep() {
  using Net = examples::mobilenet_v1_100_128;
  constexpr int l1_kb[] = {22, 32, 36, 48, 64, 96, 128, 192, 256, 400};
  constexpr int l2_kb[] = {256, 384, 512, 4096};
  std::printf(
      "\n## MobileNet-v1 1.0-128: L1 x L2 sweep (modeled MAC/cycle; L1 = tile budget, "
      "stacks excluded; L2 with a %d B code reserve)\n\n",
      gap8.l2_code_reserve);
  std::printf("%-8s", "L1 \\ L2");
  for (int b : l2_kb) std::printf(" %8d kB", b);
  std::printf("\n");
  FILE* dat = std::fopen((out_dir + "/mobilenet_v1_sweep.dat").c_str(), "w");
  double grid[std::size(l1_kb)][std::size(l2_kb)] = {};
  for (std::size_t j = 0; j < std::size(l2_kb); ++j) {
    if (dat != nullptr) std::fprintf(dat, "# L2 %d kB: l1_kb cycles mac_per_cycle\n", l2_kb[j]);
    for (std::size_t i = 0; i < std::size(l1_kb); ++i) {
      const platform p = gap8.with_stacks(0, 0).with_l1(l1_kb[i] * 1024).with_l2(l2_kb[j] * 1024);
      const auto np = std::make_unique<network_plan<Net::size>>(plan_network(Net::layers, p));
      if (!np->summary.ok()) continue;
      const auto t = bench::totals(Net::layers, *np, p);
      grid[i][j] = t.mac_per_cycle();
      if (dat != nullptr)
        std::fprintf(dat, "%d %lld %.4f\n", l1_kb[i], static_cast<long long>(t.cycles),
                     t.mac_per_cycle());
    }
    if (dat != nullptr) std::fprintf(dat, "\n\n");
  }
  if (dat != nullptr) std::fclose(dat);
  for (std::size_t i = 0; i < std::size(l1_kb); ++i) {
    std::printf("%5d kB", l1_kb[i]);
    for (std::size_t j = 0; j < std::size(l2_kb); ++j)
      if (grid[i][j] > 0)
        std::printf(" %11.2f", grid[i][j]);
      else
        std::printf(" %11s", "no fit");
    std::printf("\n");
  }
}

void calibration() {
  std::printf(
      "\n## Cost model per kernel tile (one core; compare with the simulated cycles of "
      "bench/kernels/cycles, bench/README.md)\n\n");
  std::printf("%-14s %10s %12s %8s\n", "program", "MACs", "model cyc", "MAC/c");
  for (const auto& t : bench::model_kernel_tiles())
    std::printf("%-14s %10lld %12lld %8.2f\n", t.program, static_cast<long long>(t.macs),
                static_cast<long long>(t.model_cycles),
                static_cast<double>(t.macs) / static_cast<double>(t.model_cycles));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) out_dir = argv[1];
  std::printf(
      "# ctile on GAP-8 (8 cores, cluster at %d MHz, L1 %d B with %d B for tiles, L2 %d "
      "B, HyperRAM L3): every cycle figure below is modeled by ctile::cost\n",
      gap8.cluster_mhz, gap8.l1_bytes, gap8.l1_budget(), gap8.l2_bytes);
  calibration();
  report<examples::cifar10_cnn>("CIFAR-10 CNN", "cifar10_cnn", gap8);
  report<examples::resnet_small>("residual (small ResNet)", "residual", gap8);
  const auto v1 =
      report<examples::mobilenet_v1_100_128>("MobileNet-v1 1.0-128", "mobilenet_v1_100_128", gap8);
  report<examples::mobilenet_v1_050_192>("MobileNet-v1 0.5-192", "mobilenet_v1_050_192", gap8);
  report<examples::mobilenet_v1_025_128>("MobileNet-v1 0.25-128", "mobilenet_v1_025_128", gap8);
  report<examples::mobilenet_v2_035_128>("MobileNet-v2 0.35-128", "mobilenet_v2_035_128", gap8);
  report<examples::mobilenet_v2_100_128>("MobileNet-v2 1.0-128", "mobilenet_v2_100_128", gap8);
  dory_comparison<examples::mobilenet_v1_100_128>(v1);
  sweep();
  return 0;
}
