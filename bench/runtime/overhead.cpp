// Tile-loop and DMA-programming overhead of an example network's schedule: the executor's
// loop nest for each layer runs with a DMA that accepts commands without moving data and a
// cluster whose cores run no kernel, so every instruction retired is overhead (loop control,
// tile geometry, command splitting, buffer bookkeeping, and the DMA commands the cores program
// in the kernel's fork, counted on the slowest core). Built for rv32imc, one executable per
// network (run_network is a template over the network), and run either under
// `qemu-system-riscv32 -icount shift=0`, where minstret counts instructions exactly, or under
// the tests' simulator with the PULP-cluster timing model (tests/cross/cluster_timing.py), where
// mcycle counts the model's cycles (instruction-cache refills, L2 and peripheral accesses) and
// a probe reports the code bytes each layer touches. Each layer's overhead is set against the
// modeled compute cycles of its tiles (the plan's cost model), giving the overhead share.
#include <cstdint>
#include <cstdio>
#include <ctile/platform/gap8.hpp>
#include <ctile/schedule/executor.hpp>
#include <new>
#include <type_traits>
#include <utility>

#include "networks/cifar10_cnn.hpp"
#include "networks/mobilenet_v1.hpp"
#include "networks/residual.hpp"

// The network this build measures (one executable per network: bench/runtime/CMakeLists.txt).
#if !defined(CTILE_OVERHEAD_NETWORK)
#define CTILE_OVERHEAD_NETWORK mobilenet_v1_100_128
#endif

/// The stand-in of the cluster DMA's command queue (see null_dma) and the cluster's L1 (TCDM),
/// named so that the cluster timing model's --region finds them in the symbol table: the queue
/// is a peripheral, the arena L1.
struct bench_dma_regs {
  std::uint32_t cmd, l1, l2, stride, length, id, status;
  // Where a wait frees its transfer's counter: on the cluster DMA a store of the counter's bit
  // to the status register; a word of its own here, so that the stand-in's status stays 0.
  std::uint32_t free;
  // The L3 memory's channel (see null_l3): external address, L2 address, size, configuration
  // (starts the transfer), transfer id, status.
  std::uint32_t l3_ext, l3_l2, l3_size, l3_cfg, l3_id, l3_status;
};
extern "C" {
extern volatile bench_dma_regs ctile_dma_queue;
volatile bench_dma_regs ctile_dma_queue{};
alignas(8) std::uint8_t ctile_l1_arena[64 * 1024];
}

namespace {

using namespace ctile;

/// Programs commands the way a cluster DMA is programmed — stores of the command word, the
/// addresses and (2-D) the stride and length to a memory-mapped queue, a load of the transfer
/// id; to wait, a load of the status and a store that frees the transfer's counter (as
/// pulp-runtime's plp_dma_wait and the GAP SDK's pi_cl_dma_cmd_wait do on the mchan) — into a
/// volatile stand-in, and moves nothing. So every command costs what writing it to the
/// hardware costs, and no compiler can elide it. With `Count` it also counts its commands:
/// the bench's own bookkeeping, which no HAL does, so only an untimed run counts
/// (count_transfers) and the timed runs use null_dma.
template <bool Count>
struct basic_null_dma {
  static constexpr hal::dma_limits limits = hal::gap8_dma_limits;
  struct handle {
    std::uint32_t id = 0;
  };
  std::uint32_t commands = 0;
  void copy_1d(hal::dma_dir d, void* l1, void* l2, std::uint32_t n, handle& h) {
    ctile_dma_queue.cmd = n | (d == hal::dma_dir::l2_to_l1 ? 1u << 17 : 0u);
    ctile_dma_queue.l1 = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(l1));
    ctile_dma_queue.l2 = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(l2));
    h.id = ctile_dma_queue.id;
    if constexpr (Count) ++commands;
  }
  void copy_2d(hal::dma_dir d, void* l1, void* l2, std::uint32_t n, std::uint32_t line,
               std::uint32_t stride, handle& h) {
    ctile_dma_queue.cmd = n | (d == hal::dma_dir::l2_to_l1 ? 1u << 17 : 0u) | 1u << 19;
    ctile_dma_queue.l1 = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(l1));
    ctile_dma_queue.l2 = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(l2));
    ctile_dma_queue.stride = stride;
    ctile_dma_queue.length = line;
    h.id = ctile_dma_queue.id;
    if constexpr (Count) ++commands;
  }
  void wait(handle& h) {
    while ((ctile_dma_queue.status >> (h.id & 31u)) & 1u) {
    }
    ctile_dma_queue.free = 1u << (h.id & 31u);
    h.id = 0;
  }
};
using null_dma = basic_null_dma<false>;
using counting_dma = basic_null_dma<true>;

/// The L3 memory's stand-in: each transfer programmed as the HyperRAM's uDMA channel is (stores
/// of the external address, the L2 address, the size and the start, a load of the id; a load
/// of the status to wait), into the same volatile stand-in, moving nothing; with `Count` it
/// counts its transfers (as basic_null_dma its commands: in the untimed run only).
template <bool Count>
struct basic_null_l3 {
  struct read_handle {
    std::uint32_t id = 0;
  };
  struct write_handle {
    std::uint32_t id = 0;
  };
  std::uint32_t transfers = 0;
  static std::uint32_t start(std::uint32_t ext, const void* l2, std::uint32_t n,
                             std::uint32_t cfg) {
    ctile_dma_queue.l3_ext = ext;
    ctile_dma_queue.l3_l2 = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(l2));
    ctile_dma_queue.l3_size = n;
    ctile_dma_queue.l3_cfg = cfg;
    return ctile_dma_queue.l3_id;
  }
  static void await(std::uint32_t id) {
    while ((ctile_dma_queue.l3_status >> (id & 31u)) & 1u) {
    }
  }
  void read(void* l2, std::uint32_t addr, std::uint32_t n, read_handle& h) {
    h.id = start(addr, l2, n, 1);
    if constexpr (Count) ++transfers;
  }
  void write(std::uint32_t addr, void* l2, std::uint32_t n, write_handle& h) {
    h.id = start(addr, l2, n, 2);
    if constexpr (Count) ++transfers;
  }
  void wait(read_handle& h) { await(h.id); }
  void wait(write_handle& h) { await(h.id); }
};
using null_l3 = basic_null_l3<false>;
using counting_l3 = basic_null_l3<true>;

/// The core's counters: minstret (0xB02) and mcycle (0xB00), read as words because this
/// assembler wants Zicsr for `csrr`. Under QEMU with -icount shift=0, minstret counts
/// instructions exactly and mcycle follows it; under the tests' simulator with the cluster
/// timing model (tests/cross/cluster_timing.py), mcycle counts the model's cycles.
struct counters {
  std::uint32_t instr = 0, cycles = 0;
  counters operator-(const counters& o) const { return {instr - o.instr, cycles - o.cycles}; }
  counters& operator+=(const counters& o) {
    instr += o.instr;
    cycles += o.cycles;
    return *this;
  }
};

counters now() {
#if defined(__riscv)
  std::uint32_t i, c;
  asm volatile(".word 0xB0202573\n\tmv %0, a0\n\t.word 0xB0002573\n\tmv %1, a0"
               : "=r"(i), "=r"(c)
               :
               : "a0");
  return {i, c};
#else
  return {};
#endif
}

/// Starts the counters (mcountinhibit = 0, CSR 0x320), which the simulator keeps stopped
/// until a program clears it.
void start_counters() {
#if defined(__riscv)
  asm volatile(".word 0x32001073");  // csrrw x0, mcountinhibit, x0
#endif
}

}  // namespace

/// The code-fetch probe of the cluster timing model (cluster_timing.py --probe
/// ctile_code_probe): storing 1 to `mark` starts counting the distinct 16-byte instruction-
/// cache lines fetched, the distinct instruction bytes executed and the functions they belong
/// to; storing 0 stops it and makes the simulator write the counts since the start (`lines`,
/// `bytes`, `functions`: the summed sizes of those functions) and the same over every counted
/// interval so far (`all_*`). Under QEMU nothing writes them: they stay 0 and the program
/// prints "-".
struct code_probe {
  std::uint32_t mark, lines, bytes, functions, all_lines, all_bytes, all_functions;
};
extern "C" {
extern volatile code_probe ctile_code_probe;
volatile code_probe ctile_code_probe{};
}
namespace {

/// Runs no kernel: every instruction counted is the loop nest's.
struct no_kernels {
  static void run(kernels::kernel_kind, const kernels::tile_args&, int) {}
};

/// Runs the tile kernels (the portable ones of this build, on whatever the L1 buffers hold:
/// the DMA moves nothing) and times each call, so that a fork can take its slowest core's time
/// in them off that core's figure. What is left is the schedule's time outside the kernels
/// with the kernels' code fetched between tiles, as on a cluster, where they evict the loop
/// nest's lines from the instruction caches. Built with CTILE_OVERHEAD_KERNELS.
struct timed_kernels {
  static inline counters spent{};  // in the current fork body
  static void run(kernels::kernel_kind k, const kernels::tile_args& a, int core) {
    const counters s = now();
    kernels::run(k, a, core);
    spent += now() - s;
  }
  template <kernels::kernel_variant V>
  static void run_as(kernels::kernel_kind k, const kernels::tile_args& a, int core) {
    const counters s = now();
    kernels::run_as<V>(k, a, core);
    spent += now() - s;
  }
};
#if defined(CTILE_OVERHEAD_KERNELS)
using bench_kernels = timed_kernels;
#else
using bench_kernels = no_kernels;
#endif

/// Runs the kernel fork's bodies one core after the other on this hart, timing each: the
/// cores program their share of the DMA commands (the depthwise marshalling) and run no kernel
/// (see no_kernels). Of a fork only its slowest core counts (by cycles; its instructions with
/// it), as on the cluster where the cores run at once: `excess` collects what the sequential
/// run counts beyond that (the other cores' bodies and this loop), to be taken off the total.
/// The fork's own cost on GAP-8 (dispatch and the closing barrier, the same with or without
/// the marshalling) is not counted. The body is reached through a function pointer and an
/// opaque argument, as through pi_cl_team_fork, so the loop nest builds everything the body
/// reads (the kernel arguments) as it must on the cluster, and the compiler cannot drop it.
/// Under the cluster timing model the cores share this hart's instruction cache, so core 0
/// pays the cold lines and is the slowest, as the cores of a cluster share its L1 cache.
struct timing_cluster {
  counters excess{};
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
    const counters t0 = now();
    team = n;
    counters slowest{};
#if defined(CTILE_OVERHEAD_KERNELS)
    counters slowest_in_kernels{};
#endif
    for (int c = 0; c < n; ++c) {
      id = c;
#if defined(CTILE_OVERHEAD_KERNELS)
      timed_kernels::spent = {};
#endif
      const counters s = now();
      fn(arg, c);
      const counters d = now() - s;
      if (d.cycles > slowest.cycles || (d.cycles == slowest.cycles && d.instr > slowest.instr)) {
        slowest = d;
#if defined(CTILE_OVERHEAD_KERNELS)
        slowest_in_kernels = timed_kernels::spent;
#endif
      }
    }
    team = 0;
    ++forks;
#if defined(CTILE_OVERHEAD_KERNELS)
    in_kernels += slowest_in_kernels;
#endif
    excess += now() - t0 - slowest;
  }
  void barrier() {}
  int core_id() const {
    return id;
  }
  int cores() const {
    return team > 0 ? team : 8;
  }
#if defined(CTILE_OVERHEAD_KERNELS)
  counters in_kernels{};  // the slowest cores' time in kernel calls (timed_kernels)
#endif
};

/// Starts the code-fetch probe; probe_stop stops it and returns what it reported.
struct probe_report {
  std::uint32_t lines, bytes, functions, all_lines, all_bytes, all_functions;
};
void probe_start() {
  ctile_code_probe.mark = 1;
}
probe_report probe_stop() {
  ctile_code_probe.mark = 0;
  return {ctile_code_probe.lines,     ctile_code_probe.bytes,     ctile_code_probe.functions,
          ctile_code_probe.all_lines, ctile_code_probe.all_bytes, ctile_code_probe.all_functions};
}

/// What `run` costs core 0, timed between a start and a stop of the code-fetch probe (its
/// report in `r`): the fork stand-in's other cores taken off and, with the kernels run, the
/// slowest cores' time in them (not the schedule's); `forks` counts the forks it made.
template <class Cluster, class F>
[[gnu::always_inline]] inline counters timed(Cluster& cluster, F&& run, probe_report& r,
                                             std::uint64_t& forks) {
  const counters e0 = cluster.excess;
#if defined(CTILE_OVERHEAD_KERNELS)
  const counters k0 = cluster.in_kernels;
#endif
  const std::uint64_t f0 = cluster.forks;
  probe_start();
  const counters t0 = now();
  run();
  const counters t1 = now();
  r = probe_stop();
  counters d = t1 - t0 - (cluster.excess - e0);
#if defined(CTILE_OVERHEAD_KERNELS)
  d = d - (cluster.in_kernels - k0);
#endif
  forks += cluster.forks - f0;
  return d;
}

/// A count, or "-" when the simulator did not report it (0: under QEMU).
void print_count(std::uint32_t v) {
  if (v == 0)
    std::printf(" %8s", "-");
  else
    std::printf(" %8lu", static_cast<unsigned long>(v));
}

double percent(std::uint64_t part, std::uint64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

constexpr platform P = gap8;
std::uint8_t l2_dummy[16];  // the operands' L2 addresses: never read

/// Prints the layers whose loop nest the executor runs unrolled (conv_detail::unrolled: every
/// layer here runs whole), for bench/runtime/code_cost.py, which measures the unrolled nests'
/// code apart.
template <class Net, std::size_t... I>
void print_unrolled(const char* name, std::index_sequence<I...>) {
  std::printf("unrolled layers %s:", name);
  const auto one = [](auto i) {
    constexpr std::size_t k = decltype(i)::value;
    if constexpr (k > 0) {
      constexpr layer L = schedule::loop_key(Net::layers[k]);
      constexpr layer_plan LP = schedule::loop_key(Net::layers[k], plan_of<Net, P>.layers[k]);
      if constexpr (schedule::conv_detail::specialised<L, LP>() &&
                    schedule::conv_detail::unrolled<L, LP>())
        std::printf(" %zu", k);
    }
  };
  (one(std::integral_constant<std::size_t, I>{}), ...);
  std::printf("\n");
}

/// Prints the layers whose output leaves by groups of channel tiles, each with the commands
/// that saves (plan/output_group.hpp), for bench/runtime/code_cost.py, which adds what the
/// cost model takes off for them (cost::output_command_cycles each) back before its fit.
template <class Net>
void print_groups(const char* name) {
  std::printf("output groups %s:", name);
  for (std::size_t k = 1; k < Net::size; ++k) {
    const int saved = output_commands_saved(plan_of<Net, P>.layers[k]);
    if (saved > 0) std::printf(" %zu:%d", k, saved);
  }
  std::printf("\n");
}

/// Prints the layers whose plan cuts them in more than one row or column tile (their loop
/// nests take the spatial path), for bench/runtime/code_cost.py, which fits the spatial path's
/// per-tile term (cost::loop_cost::spatial_tile_cycles) apart.
template <class Net>
void print_spatial(const char* name) {
  std::printf("spatial layers %s:", name);
  for (std::size_t k = 1; k < Net::size; ++k) {
    const layer_plan& lp = plan_of<Net, P>.layers[k];
    if (lp.spatial()) std::printf(" %zu", k);
  }
  std::printf("\n");
}

/// Each layer's DMA commands and L3 transfers in one inference.
struct layer_transfers {
  std::uint32_t commands = 0, l3 = 0;
};

/// One inference of Net's executor, ready to run: the DMA and L3 stand-ins `Dma` and `L3`, the
/// fork stand-in, kernels `K`, the L2 arena (its operands' addresses; nothing reads them) and
/// the requantization constants in L1 past the tile buffers, where the cluster firmware keeps
/// them (examples/firmware/cluster: CTILE_L1_DATA).
template <class Net, class Dma, class L3, class K>
struct executor_run {
  using E = executor<Net, P>;
  static_assert(E::required_l1_bytes + sizeof(kernels::requant_plan) * Net::size <=
                sizeof(ctile_l1_arena));
  static constexpr std::size_t q_at =
      (sizeof(ctile_l1_arena) - sizeof(kernels::requant_plan) * Net::size) /
      alignof(kernels::requant_plan) * alignof(kernels::requant_plan);
  alignas(8) static inline std::uint8_t l2[E::required_l2_bytes];

  Dma dma;
  L3 l3;
  timing_cluster cluster;
  schedule::exec_env<Dma, timing_cluster, schedule::no_checks, K> env{dma, cluster, {}, P.cores};
  std::span<const kernels::requant_plan> quant{
      new (ctile_l1_arena + q_at) kernels::requant_plan[Net::size]{}, Net::size};

  /// Runs the inference, `hook` seeing every layer's output.
  template <class Hook = schedule::no_hook>
  [[gnu::always_inline]] void operator()(Hook&& hook = {}) {
    E::run_static(env, l3, quant, ctile_l1_arena, l2, static_cast<Hook&&>(hook));
  }
};

/// Counts each layer's DMA commands and L3 transfers in an untimed inference through the
/// executor with the counting stand-ins (counting_dma, counting_l3) and no kernels. The timed
/// runs below program the same commands without the count (the executor's path runs each
/// layer's loop nest once, issuing the same L2 <-> L1 commands as the nest run alone).
template <class Net>
const layer_transfers* count_transfers() {
  static layer_transfers counts[Net::size];
  executor_run<Net, counting_dma, counting_l3, no_kernels> run;
  layer_transfers prev{};
  run([&](const schedule::layer_output& o) {
    counts[static_cast<std::size_t>(o.index)] = {run.dma.commands - prev.commands,
                                                 run.l3.transfers - prev.l3};
    prev = {run.dma.commands, run.l3.transfers};
  });
  return counts;
}

/// Runs the loop nest of every layer of Net and prints one line per layer (tiles, DMA commands,
/// instructions, cycles, then from the probe: code bytes touched = distinct 16-byte lines x 16,
/// distinct instruction bytes executed, bytes of the functions they lie in; the modeled compute
/// and the two shares), then the totals (bench/runtime/check_overhead.py reads them).
template <class Net>
void run_network(const char* name, counters empty_fork, const layer_transfers* counts) {
  const auto& plan = plan_of<Net, P>;
  // The layer's requantization constants, in L1 past the tile buffers, where the cluster
  // firmware keeps them (examples/firmware/cluster: CTILE_L1_DATA); a copy of a constant in
  // the read-only data would cost the layer an L2 load a word.
  static_assert(executor<Net, P>::required_l1_bytes + sizeof(kernels::requant_plan) <=
                sizeof(ctile_l1_arena));
  static_assert((sizeof(ctile_l1_arena) - sizeof(kernels::requant_plan)) %
                    alignof(kernels::requant_plan) ==
                0);
  auto& quant = *new (ctile_l1_arena + sizeof(ctile_l1_arena) - sizeof(kernels::requant_plan))
                    kernels::requant_plan{};
  null_dma dma;
  timing_cluster cluster;
  using env_t = schedule::exec_env<null_dma, timing_cluster, schedule::no_checks, bench_kernels>;
  env_t env{dma, cluster, {}, P.cores};
  using nests = typename executor<Net, P>::static_tiles;
  // Each layer's figures, printed after the last layer: an inference prints nothing between
  // its layers, and a printf there would evict the next layer's code from the instruction
  // caches (and charge the next layer its cold lines again).
  struct layer_row {
    long long tiles;
    std::uint32_t commands;
    counters d;
    probe_report r;
    std::uint64_t compute;
  };
  static layer_row rows[Net::size];
  counters total{};
  std::uint64_t total_compute = 0, forks = 0;
  std::uint32_t line_bytes_sum = 0;
  probe_report all{};
  for (std::size_t i = 1; i < Net::size; ++i) {
    const layer& l = Net::layers[i];
    const layer_plan& p = plan.layers[i];
    schedule::l2_operands v;
    v.x = v.x2 = l2_dummy;
    v.y = l2_dummy;
    v.w = l2_dummy;
    v.w_n = l.out.c;
    v.row_end = l.out.h;
    v.c_end = l.out.c;
    probe_report r{};
    // The loop nest as the executor emits and reaches it: instantiated with the layer and plan
    // as constants (run_tiles with run-time values costs about 40% more per tile).
    const counters d = timed(
        cluster, [&]() CTILE_INLINE { nests{}(i, env, l, p, quant, v, ctile_l1_arena); }, r, forks);
    all = r;
    const auto compute = static_cast<std::uint64_t>(p.l1_cycles);
    rows[i] = {static_cast<long long>(p.tiles()), counts[i].commands, d, r, compute};
    total += d;
    total_compute += compute;
    line_bytes_sum += r.lines * 16;
  }
  std::printf("network %s: %zu layers\n", name, Net::size - 1);
  std::printf("%-4s %-9s %6s %8s %9s %9s %8s %8s %8s %10s %7s %7s\n", "#", "kind", "tiles",
              "commands", "instr", "cycles", "lines_B", "exec_B", "func_B", "compute", "instr%",
              "cycles%");
  for (std::size_t i = 1; i < Net::size; ++i) {
    const layer_row& w = rows[i];
    std::printf("%-4zu %-9s %6lld %8lu %9lu %9lu", i, op_name(Net::layers[i].kind), w.tiles,
                static_cast<unsigned long>(w.commands), static_cast<unsigned long>(w.d.instr),
                static_cast<unsigned long>(w.d.cycles));
    print_count(w.r.lines * 16);
    print_count(w.r.bytes);
    print_count(w.r.functions);
    std::printf(" %10llu %6.2f%% %6.2f%%\n", static_cast<unsigned long long>(w.compute),
                percent(w.d.instr, w.compute), percent(w.d.cycles, w.compute));
  }
  std::printf(
      "total %s: %lu instructions, %lu cycles, %llu modeled compute cycles: %.2f%% "
      "instructions, %.2f%% cycles\n",
      name, static_cast<unsigned long>(total.instr), static_cast<unsigned long>(total.cycles),
      static_cast<unsigned long long>(total_compute), percent(total.instr, total_compute),
      percent(total.cycles, total_compute));
  if (all.all_lines > 0)
    std::printf(
        "code %s: %lu bytes touched (%lu lines of 16 B; %lu over the layers), %lu "
        "instruction bytes executed, %lu bytes of the functions run\n",
        name, static_cast<unsigned long>(all.all_lines * 16),
        static_cast<unsigned long>(all.all_lines), static_cast<unsigned long>(line_bytes_sum),
        static_cast<unsigned long>(all.all_bytes), static_cast<unsigned long>(all.all_functions));
  const counters stand_in{static_cast<std::uint32_t>(forks * empty_fork.instr),
                          static_cast<std::uint32_t>(forks * empty_fork.cycles)};
#if defined(CTILE_OVERHEAD_KERNELS)
  std::printf(
      "kernels %s: %lu instructions, %lu cycles on the forks' slowest cores (not in "
      "the figures above)\n",
      name, static_cast<unsigned long>(cluster.in_kernels.instr),
      static_cast<unsigned long>(cluster.in_kernels.cycles));
#endif
  std::printf("without the fork stand-in %s (%llu forks): %.2f%% instructions, %.2f%% cycles\n",
              name, static_cast<unsigned long long>(forks),
              percent(total.instr - stand_in.instr, total_compute),
              percent(total.cycles - stand_in.cycles, total_compute));
  print_unrolled<Net>(name, std::make_index_sequence<Net::size>{});
  print_spatial<Net>(name);
  print_groups<Net>(name);
}

/// Prints one total of the executor's runs: "executor <name><what>" and its counts, their
/// shares of the modeled compute, and the cycles' share without `forks` empty forks.
void print_executor_total(const char* name, const char* what, counters c, std::uint64_t compute,
                          std::uint64_t forks, counters empty_fork) {
  const auto stand_in = static_cast<std::uint32_t>(forks * empty_fork.cycles);
  std::printf(
      "executor %s%s%lu instructions, %lu cycles, %llu modeled compute cycles: %.2f%% "
      "instructions, %.2f%% cycles (without the fork stand-in, %llu forks: %.2f%%)\n",
      name, what, static_cast<unsigned long>(c.instr), static_cast<unsigned long>(c.cycles),
      static_cast<unsigned long long>(compute), percent(c.instr, compute),
      percent(c.cycles, compute), static_cast<unsigned long long>(forks),
      percent(c.cycles - stand_in, compute));
}

/// The same network run the way the cluster firmware runs it (examples/firmware/cluster):
/// through schedule::run_network, whose per-layer path (the layer's context, its L3 staging
/// by row bands and weight stripes, one loop-nest call per stripe) the table above leaves out.
/// The L3 transfers go to null_l3; the plan, the layer array and the L2 placements are the
/// executor's constants (read-only data, in L2 under the default placement), the
/// requantization constants in L1 past the tile buffers. Each layer's figure runs from the
/// previous layer's hook to its own, the fork stand-in's other cores taken off as above.
/// Prints one line per layer and an "executor" total (the layers' sum; the firmware's `outside`
/// sums the same way), then the inference run again without a hook, as firmware that does not
/// look between its layers runs it: its total is the 2% figure (the hook's call and the
/// probe's stores, a few dozen cycles a layer, are the bench's own).
template <class Net>
void run_executor(const char* name, counters empty_fork, const layer_transfers* counts) {
  using E = executor<Net, P>;
  executor_run<Net, null_dma, null_l3, bench_kernels> run;
  timing_cluster& cluster = run.cluster;
  struct layer_row {
    counters d;
    std::uint32_t commands, l3;
    std::uint64_t forks;
  };
  static layer_row rows[Net::size];
  counters t_prev{}, e_prev{};
#if defined(CTILE_OVERHEAD_KERNELS)
  counters k_prev{};
#endif
  std::uint64_t f_prev = 0;
  const auto mark = [&] {
    e_prev = cluster.excess;
#if defined(CTILE_OVERHEAD_KERNELS)
    k_prev = cluster.in_kernels;
#endif
    f_prev = cluster.forks;
    probe_start();
    t_prev = now();
  };
  mark();
  run([&](const schedule::layer_output& o) {
    const counters t = now();
    probe_stop();
    counters d = t - t_prev - (cluster.excess - e_prev);
#if defined(CTILE_OVERHEAD_KERNELS)
    d = d - (cluster.in_kernels - k_prev);
#endif
    const auto i = static_cast<std::size_t>(o.index);
    rows[i] = {d, counts[i].commands, counts[i].l3, cluster.forks - f_prev};
    mark();
  });
  std::printf("executor %s: each layer through schedule::run_network\n", name);
  std::printf("%-4s %-9s %6s %8s %6s %9s %9s %10s %7s\n", "#", "kind", "tiles", "commands", "l3",
              "instr", "cycles", "compute", "cycles%");
  counters total{};
  std::uint64_t compute = 0, forks = 0;
  for (std::size_t i = 1; i < Net::size; ++i) {
    const layer_row& w = rows[i];
    const auto c = static_cast<std::uint64_t>(E::plan.layers[i].l1_cycles);
    std::printf("%-4zu %-9s %6lld %8lu %6lu %9lu %9lu %10llu %6.2f%%\n", i,
                op_name(Net::layers[i].kind), static_cast<long long>(E::plan.layers[i].tiles()),
                static_cast<unsigned long>(w.commands), static_cast<unsigned long>(w.l3),
                static_cast<unsigned long>(w.d.instr), static_cast<unsigned long>(w.d.cycles),
                static_cast<unsigned long long>(c), percent(w.d.cycles, c));
    total += w.d;
    compute += c;
    forks += w.forks;
  }
  print_executor_total(name, ": ", total, compute, forks, empty_fork);

  probe_report r{};
  std::uint64_t whole_forks = 0;
  const counters whole = timed(
      cluster, [&]() CTILE_INLINE { run(); }, r, whole_forks);
  print_executor_total(name, " without a hook: ", whole, compute, whole_forks, empty_fork);
}

}  // namespace

int main() {
  start_counters();
  std::printf(
      "placement for the cluster timing model: code, read-only data (plans, layers, executor "
      "tables) and the L2 operands in L2; the L1 arena and the stack in L1 (TCDM); the DMA "
      "queue a peripheral\n");
  // What one fork of an empty body counts the way the loop nests' forks are counted: the
  // stand-in's call, entry and return around the timed cores. It is part of every tile's figure,
  // although on GAP-8 the fork's dispatch and barrier (pi_cl_team_fork) are charged by the cost
  // model separately (fork_barrier); the last line takes it off once per fork.
  counters empty{};
  {
    timing_cluster cluster;
    volatile int sink = 0;
    // The measurement twice, the second kept: the first warms every line it touches (the
    // stand-in's, the body's, and the timing's own around the fork, which would otherwise
    // count an 18-cycle L2 refill in some builds and not in others, by where the code lands).
    const auto body = [&](int) { sink = 0; };
    for (int pass = 0; pass < 2; ++pass) {
      const counters e0 = cluster.excess;
      const counters t0 = now();
      cluster.fork(P.cores, body);
      empty = now() - t0 - (cluster.excess - e0);
    }
  }
  std::printf("an empty fork: %lu instructions, %lu cycles\n",
              static_cast<unsigned long>(empty.instr), static_cast<unsigned long>(empty.cycles));
#define CTILE_OVERHEAD_STR2(x) #x
#define CTILE_OVERHEAD_STR(x) CTILE_OVERHEAD_STR2(x)
  const layer_transfers* counts = count_transfers<examples::CTILE_OVERHEAD_NETWORK>();
  run_network<examples::CTILE_OVERHEAD_NETWORK>(CTILE_OVERHEAD_STR(CTILE_OVERHEAD_NETWORK), empty,
                                                counts);
  run_executor<examples::CTILE_OVERHEAD_NETWORK>(CTILE_OVERHEAD_STR(CTILE_OVERHEAD_NETWORK), empty,
                                                 counts);
  return 0;
}
