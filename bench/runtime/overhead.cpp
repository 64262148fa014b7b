// Tile-loop and DMA-programming overhead per tile on MobileNet-v1 1.0-128's layers: the
// executor's loop nest for each layer runs with a DMA that accepts commands without moving
// data and a cluster whose cores run no kernel, so every instruction retired is overhead (loop
// control, tile geometry, command splitting, buffer bookkeeping, and the DMA commands the
// cores program in the kernel's fork, counted on the slowest core). Built for rv32imc and run
// under `qemu-system-riscv32 -icount shift=0`, where minstret counts instructions exactly.
// Each layer's overhead is set against the modeled compute cycles of its tiles (the plan's
// cost model), giving the overhead share.
#include <cstdint>
#include <cstdio>
#include <ctile/platform/gap8.hpp>
#include <ctile/schedule/executor.hpp>
#include <type_traits>
#include <utility>

#include "networks/mobilenet_v1.hpp"

namespace {

using namespace ctile;

/// Programs commands the way a cluster DMA is programmed — stores of the command word, the
/// addresses and (2-D) the stride and length to a memory-mapped queue, a load of the transfer
/// id, a load of the status to wait — into a volatile stand-in, and moves nothing. So every
/// command costs what writing it to the hardware costs, and no compiler can elide it.
struct mchan_regs {
  std::uint32_t cmd, l1, l2, stride, length, id, status;
};
volatile mchan_regs mchan{};

struct null_dma {
  static constexpr hal::dma_limits limits = hal::gap8_dma_limits;
  struct handle {
    std::uint32_t id = 0;
  };
  std::uint32_t commands = 0;
  void copy_1d(hal::dma_dir d, void* l1, void* l2, std::uint32_t n, handle& h) {
    mchan.cmd = n | (d == hal::dma_dir::l2_to_l1 ? 1u << 17 : 0u);
    mchan.l1 = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(l1));
    mchan.l2 = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(l2));
    h.id = mchan.id;
    ++commands;
  }
  void copy_2d(hal::dma_dir d, void* l1, void* l2, std::uint32_t n, std::uint32_t line,
               std::uint32_t stride, handle& h) {
    mchan.cmd = n | (d == hal::dma_dir::l2_to_l1 ? 1u << 17 : 0u) | 1u << 19;
    mchan.l1 = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(l1));
    mchan.l2 = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(l2));
    mchan.stride = stride;
    mchan.length = line;
    h.id = mchan.id;
    ++commands;
  }
  void wait(handle& h) {
    while ((mchan.status >> (h.id & 31u)) & 1u) {
    }
    h.id = 0;
  }
};

std::uint32_t instret() {
#if defined(__riscv)
  std::uint32_t v;
  // csrrs a0, minstret (0xB02), x0 as a word: this assembler wants Zicsr for `csrr`.
  asm volatile(".word 0xB0202573\n\tmv %0, a0" : "=r"(v) : : "a0");
  return v;
#else
  return 0;
#endif
}

/// Runs the kernel fork's bodies one core after the other on this hart, timing each: the
/// cores program their share of the DMA commands (the depthwise marshalling) and run no kernel
/// (see no_kernels). Of a fork only its slowest core counts, as on the cluster where the cores
/// run at once: `excess` collects what the sequential run retires beyond that (the other cores'
/// bodies and this loop), to be taken off the total. The fork's own cost on GAP-8 (dispatch
/// and the closing barrier, the same with or without the marshalling) is not counted.
/// The body is reached through a function pointer and an opaque argument, as through
/// pi_cl_team_fork, so the loop nest builds everything the body reads (the kernel arguments)
/// as it must on the cluster, and the compiler cannot drop it.
struct timing_cluster {
  std::uint64_t excess = 0;
  std::uint64_t forks = 0;
  int team = 0;
  int id = 0;
  template <class F>
  void fork(int n, F&& body) {
    using B = std::remove_reference_t<F>;
    run_team(
        n, [](void* arg, int core) { (*static_cast<B*>(arg))(core); },
        const_cast<void*>(static_cast<const void*>(&body)));
  }
  [[gnu::noinline]] void run_team(int n, void (*fn)(void*, int), void* arg) {
    asm volatile("" : "+r"(fn), "+r"(arg));  // opaque: no specialisation on the body
    const std::uint32_t t0 = instret();
    team = n;
    std::uint32_t slowest = 0;
    for (int c = 0; c < n; ++c) {
      id = c;
      const std::uint32_t s = instret();
      fn(arg, c);
      const std::uint32_t d = instret() - s;
      slowest = d > slowest ? d : slowest;
    }
    team = 0;
    ++forks;
    excess += instret() - t0 - slowest;
  }
  void barrier() {}
  int core_id() const { return id; }
  int cores() const { return team > 0 ? team : 8; }
};

/// Runs no kernel: every instruction counted is the loop nest's.
struct no_kernels {
  static void run(kernels::kernel_kind, const kernels::tile_args&, int) {}
};

}  // namespace

int main() {
  using Net = examples::mobilenet_v1_100_128;
  constexpr platform P = gap8;
  const auto& plan = plan_of<Net, P>;
  alignas(8) static std::uint8_t l1[64 * 1024];
  static std::uint8_t dummy[16];
  null_dma dma;
  timing_cluster cluster;
  schedule::exec_env<null_dma, timing_cluster, schedule::no_checks, no_kernels> env{
      dma, cluster, {}, P.cores};
  // What one fork of an empty body counts the way the loop nests' forks are counted: the
  // stand-in's call, entry and return around the timed cores. It is part of every tile's figure,
  // although on GAP-8 the fork's dispatch and barrier (pi_cl_team_fork) are charged by the cost
  // model separately (fork_barrier); the last column and line take it off once per fork.
  volatile int sink = 0;
  std::uint32_t empty = 0;
  {
    const std::uint64_t e0 = cluster.excess;
    const std::uint32_t t0 = instret();
    cluster.fork(P.cores, [&](int) { sink = 0; });
    empty = instret() - t0 - static_cast<std::uint32_t>(cluster.excess - e0);
    cluster.forks = 0;
  }
  std::printf("%-4s %-8s %7s %9s %11s %10s %9s %9s\n", "#", "kind", "tiles", "commands",
              "instr/tile", "compute", "overhead", "w/o fork");
  std::uint64_t total_instr = 0, total_compute = 0;
  // Per layer kind: conv (standard and pointwise), depthwise, the others.
  const char* kind_names[3] = {"conv", "depthwise", "other"};
  std::uint64_t kind_instr[3] = {}, kind_compute[3] = {};
  for (std::size_t i = 1; i < Net::size; ++i) {
    const layer& l = Net::layers[i];
    const layer_plan& p = plan.layers[i];
    schedule::l2_operands v;
    v.x = v.x2 = dummy;
    v.y = dummy;
    v.w = dummy;
    v.w_n = l.out.c;
    v.row_end = l.out.h;
    v.c_end = l.out.c;
    const std::uint32_t c0 = dma.commands;
    const std::uint64_t e0 = cluster.excess;
    const std::uint64_t f0 = cluster.forks;
    const std::uint32_t t0 = instret();
    // The loop nest as the executor emits and reaches it: instantiated with the layer and plan
    // as constants (run_tiles with run-time values costs about 40% more per tile).
    executor<Net, P>::static_tiles{}(i, env, l, p, kernels::requant_plan{}, v, l1);
    const std::uint32_t t1 = instret();
    const auto instr = static_cast<std::uint32_t>(t1 - t0 - (cluster.excess - e0));
    // Instructions against cycles: on RI5CY most of these are single-cycle, so the ratio is
    // the overhead's share of the layer's time to first order.
    const double share = p.l1_cycles > 0 ? 100.0 * instr / static_cast<double>(p.l1_cycles) : 0;
    const double fork_instr = static_cast<double>(cluster.forks - f0) * empty;
    const double net_share =
        p.l1_cycles > 0 ? 100.0 * (instr - fork_instr) / static_cast<double>(p.l1_cycles) : 0;
    std::printf("%-4zu %-8s %7lld %9lu %11.0f %10lld %8.2f%% %8.2f%%\n", i, op_name(l.kind),
                static_cast<long long>(p.tiles()), static_cast<unsigned long>(dma.commands - c0),
                static_cast<double>(instr) / static_cast<double>(p.tiles()),
                static_cast<long long>(p.l1_cycles), share, net_share);
    total_instr += instr;
    total_compute += static_cast<std::uint64_t>(p.l1_cycles);
    const int k = l.kind == op::conv ? 0 : l.kind == op::depthwise ? 1 : 2;
    kind_instr[k] += instr;
    kind_compute[k] += static_cast<std::uint64_t>(p.l1_cycles);
  }
  for (int k = 0; k < 3; ++k)
    std::printf(
        "%-9s: %llu overhead instructions, %llu modeled cycles: %.2f%%\n", kind_names[k],
        static_cast<unsigned long long>(kind_instr[k]),
        static_cast<unsigned long long>(kind_compute[k]),
        kind_compute[k] > 0 ? 100.0 * static_cast<double>(kind_instr[k]) / kind_compute[k] : 0.0);
  std::printf("total: %llu overhead instructions, %llu modeled cycles: %.2f%%\n",
              static_cast<unsigned long long>(total_instr),
              static_cast<unsigned long long>(total_compute),
              total_compute > 0 ? 100.0 * static_cast<double>(total_instr) / total_compute : 0.0);
  const std::uint64_t forks = cluster.forks;
  std::printf("an empty fork: %lu instructions\n", static_cast<unsigned long>(empty));
  const std::uint64_t stand_in = forks * empty;
  const std::uint64_t net = total_instr > stand_in ? total_instr - stand_in : 0;
  std::printf(
      "without the fork stand-in (%llu forks x %lu): %llu overhead instructions, %llu modeled "
      "cycles: %.2f%%\n",
      static_cast<unsigned long long>(forks), static_cast<unsigned long>(empty),
      static_cast<unsigned long long>(net), static_cast<unsigned long long>(total_compute),
      total_compute > 0 ? 100.0 * static_cast<double>(net) / total_compute : 0.0);
  return 0;
}
