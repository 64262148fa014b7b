// The pulp-runtime HAL and its C glue (include/ctile/hal/pulp_runtime_glue.c, compiled as C
// against the stand-in <pulp.h> in stand_in/), with the runtime's calls defined here: the
// cluster is 8 threads started by cluster_start/cluster_wait, synch_barrier and the event
// unit's barrier 1 are std::barriers, and the DMA records every command and copies its bytes
// only when the command is waited for (as late as the hardware may), resolving the 32-bit
// addresses the runtime takes back to the test's buffers.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <barrier>
#include <bit>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <ctile/ctile.hpp>
#include <ctile/hal/pulp_runtime.hpp>
#include <ctile/hal/udma_hyper.hpp>
#include <ctile/platform/pulp_open.hpp>
#include <ctile/reference/reference.hpp>
#include <ctile/schedule/dma_split.hpp>
#include <ctile/schedule/executor.hpp>

#include "cluster/stage_synthetic.hpp"
#include "common/synthetic.hpp"
#include "hyper_model.hpp"
#include "networks/cifar10_cnn.hpp"
#include "networks/residual.hpp"
#include "pulp.h"

namespace {

// ---- The stand-in runtime's state -------------------------------------------------------

struct command {
  int core = 0;
  std::uint32_t ext = 0, loc = 0, size = 0, stride = 0, length = 0;
  int ext2loc = 0;
  bool two_d = false;
  int counter = -1;
};

struct region {
  std::uint8_t* base;
  std::size_t size;
};

thread_local int this_core = 0;
thread_local bool on_fc = true;
constexpr int cluster_size = 8;
std::unique_ptr<std::barrier<>> all_cores, team_barrier;
std::uint32_t team_mask = 0;
int (*cluster_entry)() = nullptr;

std::mutex dma_mutex;
std::vector<command> pushed;
std::array<std::optional<command>, 16> in_flight;
std::size_t max_in_flight = 0;
std::vector<std::string> problems;
std::vector<region> regions;
std::atomic<std::uint32_t> fake_cycles{0};

alignas(8) std::uint8_t l1_heap[64 * 1024];
std::size_t l1_used = 0;

void reset() {
  pushed.clear();
  for (auto& c : in_flight) c.reset();
  max_in_flight = 0;
  problems.clear();
  regions.clear();
  regions.push_back({l1_heap, sizeof l1_heap});
  l1_used = 0;
}

std::uint8_t* resolve(std::uint32_t a, std::uint32_t n) {
  for (const region& r : regions) {
    const std::uint32_t off =
        a - static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(r.base));
    if (std::uint64_t{off} + n <= r.size) return r.base + off;
  }
  return nullptr;
}

int push(command c) {
  std::lock_guard<std::mutex> lock(dma_mutex);
  c.core = this_core;
  for (int k = 0; k < 16; ++k)
    if (!in_flight[static_cast<std::size_t>(k)]) {
      c.counter = k;
      in_flight[static_cast<std::size_t>(k)] = c;
      pushed.push_back(c);
      const auto n = static_cast<std::size_t>(std::count_if(
          in_flight.begin(), in_flight.end(), [](const auto& x) { return x.has_value(); }));
      max_in_flight = std::max(max_in_flight, n);
      return k;
    }
  problems.push_back("a 17th command while 16 were in flight");
  return 0;
}

/// The command's bytes, moved now: `size` bytes in lines of `length` whose starts are
/// `stride` apart in the external memory (2-D), contiguous in the cluster memory.
void complete(const command& c) {
  const std::uint32_t line = c.two_d ? c.length : c.size;
  const std::uint32_t step = c.two_d ? c.stride : c.size;
  if (line == 0 || c.size % line != 0) {
    problems.push_back("a 2-D command whose size is not a multiple of its length");
    return;
  }
  for (std::uint32_t done = 0, i = 0; done < c.size; done += line, ++i) {
    std::uint8_t* l1 = resolve(c.loc + done, line);
    std::uint8_t* l2 = resolve(c.ext + i * step, line);
    if (l1 == nullptr || l2 == nullptr) {
      problems.push_back("a command outside the test's memory");
      return;
    }
    if (c.ext2loc == PLP_DMA_EXT2LOC)
      std::memcpy(l1, l2, line);
    else
      std::memcpy(l2, l1, line);
  }
}

// ---- Running a program on the stand-in cluster ---------------------------------------------

std::function<int()> program;
int serve_program() {
  return ctile::hal::pulp_runtime_cluster::serve([] { return program(); });
}
int run_on_cluster(std::function<int()> p) {
  program = std::move(p);
  return ctile_prt_cluster_run(&serve_program);
}

}  // namespace

extern "C" {
int plp_dma_memcpy(mchan_ext_t ext, unsigned int loc, unsigned short size, int ext2loc) {
  return push({0, ext, loc, size, 0, 0, ext2loc, false, -1});
}
int plp_dma_memcpy_2d(mchan_ext_t ext, unsigned int loc, unsigned short size, unsigned short stride,
                      unsigned short length, int ext2loc) {
  return push({0, ext, loc, size, stride, length, ext2loc, true, -1});
}
void plp_dma_wait(unsigned int counter) {
  std::lock_guard<std::mutex> lock(dma_mutex);
  if (counter >= 16 || !in_flight[counter]) {
    problems.push_back("a wait on counter " + std::to_string(counter) + ", which is not in flight");
    return;
  }
  complete(*in_flight[counter]);
  in_flight[counter].reset();
}
unsigned int hal_core_id() {
  return static_cast<unsigned int>(this_core);
}
unsigned int hal_is_fc() {
  return on_fc ? 1u : 0u;
}
int get_core_num() {
  return cluster_size;
}
unsigned int eu_bar_addr(int barId) {
  return 0x00204400u + 0x20u * static_cast<unsigned int>(barId);
}
void eu_bar_setup(unsigned int barAddr, unsigned int coreMask) {
  if (barAddr != eu_bar_addr(1)) problems.push_back("barrier set up at an unexpected address");
  team_mask = coreMask;
  team_barrier = std::make_unique<std::barrier<>>(std::popcount(coreMask));
}
unsigned int eu_bar_trig_wait_clr(unsigned int barAddr) {
  if (barAddr != eu_bar_addr(1) || ((team_mask >> this_core) & 1u) == 0)
    problems.push_back("a core outside the team at the team barrier");
  team_barrier->arrive_and_wait();
  return 0;
}
void perf_start(void) {}
void perf_reset(void) {
  fake_cycles = 0;
}
unsigned int cpu_perf_get(const unsigned int) {
  return fake_cycles += 7;
}
void cluster_start(int, int (*entry)()) {
  cluster_entry = entry;
}
int cluster_wait(int) {
  all_cores = std::make_unique<std::barrier<>>(cluster_size);
  std::vector<int> ret(cluster_size);
  std::vector<std::thread> cores;
  for (int c = 0; c < cluster_size; ++c)
    cores.emplace_back([c, &ret] {
      this_core = c;
      on_fc = false;
      ret[static_cast<std::size_t>(c)] = cluster_entry();
    });
  for (auto& t : cores) t.join();
  return ret[0];
}
void synch_barrier() {
  all_cores->arrive_and_wait();
}
void* pi_l1_malloc(int, int size) {
  const auto n = (static_cast<std::size_t>(size) + 3) & ~std::size_t{3};
  if (l1_used + n > sizeof l1_heap) return nullptr;
  void* p = l1_heap + l1_used;
  l1_used += n;
  return p;
}
}

namespace {

using namespace ctile;
using namespace ctile::hal;
using schedule::dma_transfer;
using schedule::dma_transfer_group;

std::uint32_t a32(const void* p) {
  return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(p));
}

// The limits are the runtime's argument widths: 16-bit sizes, 2-D lengths and strides.
static_assert(pulp_runtime_dma::limits.length_field_max == 0xFFFF);
static_assert(pulp_runtime_dma::limits.max_line_bytes == 0xFFFF);
static_assert(pulp_runtime_dma::limits.max_stride == 0xFFFF);
static_assert(pulp_runtime_dma::limits.counters == 16);
static_assert(pulp_runtime_dma::limits.max_command_bytes % 4 == 0);
static_assert(pulp_open.dma_command_limit() == static_cast<int>(pulp_open_dma.max_command_bytes));
static_assert(pulp_open.l1_budget() == 62 * 1024 - 8 * 3072);
// L3: GVSoC pulp-open's 8 MiB HyperRAM, through the uDMA HyperBus driver.
static_assert(pulp_open.l3_bytes == 8 * 1024 * 1024);
static_assert(pulp_open.l3_bytes == static_cast<int>(hal::pulp_open_hyper_limits.memory_bytes));

TEST(PulpRuntimeHal, DmaCallsTakeTheRuntimesArgumentOrder) {
  reset();
  std::vector<std::uint8_t> l2v(4096);
  for (std::size_t i = 0; i < l2v.size(); ++i) l2v[i] = static_cast<std::uint8_t>(i * 7 + 3);
  regions.push_back({l2v.data(), l2v.size()});
  auto* l1 = static_cast<std::uint8_t*>(pi_l1_malloc(0, 1024));
  pulp_runtime_dma dma;
  pulp_runtime_dma::handle a, b;
  dma.copy_1d(dma_dir::l2_to_l1, l1, l2v.data() + 8, 100, a);
  // 10 lines of 12 bytes, 40 bytes apart in L2.
  dma.copy_2d(dma_dir::l2_to_l1, l1 + 128, l2v.data() + 1000, 120, 12, 40, b);
  ASSERT_EQ(pushed.size(), 2u);
  // plp_dma_memcpy(ext, loc, size, ext2loc)
  EXPECT_EQ(pushed[0].ext, a32(l2v.data() + 8));
  EXPECT_EQ(pushed[0].loc, a32(l1));
  EXPECT_EQ(pushed[0].size, 100u);
  EXPECT_EQ(pushed[0].ext2loc, PLP_DMA_EXT2LOC);
  EXPECT_FALSE(pushed[0].two_d);
  // plp_dma_memcpy_2d(ext, loc, size, stride, length, ext2loc): stride is the L2 step between
  // line starts, length the line.
  EXPECT_EQ(pushed[1].ext, a32(l2v.data() + 1000));
  EXPECT_EQ(pushed[1].size, 120u);
  EXPECT_EQ(pushed[1].stride, 40u);
  EXPECT_EQ(pushed[1].length, 12u);
  EXPECT_TRUE(pushed[1].two_d);
  EXPECT_EQ(l1[0], 0);  // nothing lands before the wait
  dma.wait(b);
  dma.wait(a);
  dma.wait(a);  // a second wait on a handle waits for nothing
  for (int i = 0; i < 100; ++i) ASSERT_EQ(l1[i], l2v[8 + static_cast<std::size_t>(i)]);
  for (int line = 0; line < 10; ++line)
    for (int k = 0; k < 12; ++k)
      ASSERT_EQ(l1[128 + line * 12 + k], l2v[1000 + static_cast<std::size_t>(line * 40 + k)]);
  // Back to L2: PLP_DMA_LOC2EXT.
  std::vector<std::uint8_t> out(256, 0);
  regions.push_back({out.data(), out.size()});
  dma.copy_1d(dma_dir::l1_to_l2, l1, out.data(), 64, a);
  EXPECT_EQ(pushed.back().ext2loc, PLP_DMA_LOC2EXT);
  dma.wait(a);
  EXPECT_TRUE(std::equal(out.begin(), out.begin() + 64, l1));
  EXPECT_TRUE(problems.empty()) << problems.front();
}

// Split transfers: every command fits the runtime's 16-bit arguments, and the bytes arrive.
template <dma_transfer T>
void check_split(std::size_t l1_bytes, std::size_t l2_bytes, std::size_t expect_commands) {
  reset();
  std::vector<std::uint8_t> l1v(l1_bytes), l2v(l2_bytes);
  for (std::size_t i = 0; i < l2v.size(); ++i) l2v[i] = static_cast<std::uint8_t>(i ^ (i >> 9));
  regions.push_back({l1v.data(), l1v.size()});
  regions.push_back({l2v.data(), l2v.size()});
  pulp_runtime_dma dma;
  dma_transfer_group<T, pulp_runtime_dma> g;
  g.start(dma, l1v.data(), l2v.data());
  g.wait(dma);
  EXPECT_EQ(pushed.size(), expect_commands);
  std::uint64_t moved = 0;
  for (const command& c : pushed) {
    EXPECT_LE(c.size, 0xFFFFu);
    EXPECT_LE(c.size, pulp_open_dma.max_command_bytes);
    EXPECT_LE(c.stride, 0xFFFFu);
    EXPECT_LE(c.length, 0xFFFFu);
    moved += c.size;
  }
  EXPECT_EQ(moved, T.bytes());
  for (std::uint32_t line = 0; line < T.lines; ++line)
    for (std::uint32_t k = 0; k < T.line_bytes; ++k)
      ASSERT_EQ(l1v[line * T.line_bytes + k], l2v[line * T.l2_stride + k]) << line << " " << k;
  EXPECT_TRUE(problems.empty()) << problems.front();
}

TEST(PulpRuntimeHal, ContiguousTransferSplitsAtTheLimit) {
  // 140,000 B: 65,532 + 65,532 + 8,936.
  check_split<dma_transfer::contiguous(dma_dir::l2_to_l1, 140000)>(140000, 140000, 3);
}
TEST(PulpRuntimeHal, StridedTransferKeepsWholeLinesPerCommand) {
  // 300 lines of 1,000 B, 1,500 B apart: 65 lines (65,000 B) per 2-D command.
  check_split<dma_transfer::strided(dma_dir::l2_to_l1, 300, 1000, 1500)>(300000, 450000, 5);
}
TEST(PulpRuntimeHal, StrideOverSixteenBitsBecomesOneCommandPerLine) {
  // A 70,000 B stride does not fit plp_dma_memcpy_2d's unsigned short: 1-D lines.
  check_split<dma_transfer::strided(dma_dir::l2_to_l1, 4, 100, 70000)>(400, 4 * 70000, 4);
}

TEST(PulpRuntimeHal, ForkRunsEachCoreOnceAndJoins) {
  reset();
  std::array<std::atomic<int>, cluster_size> runs{};
  std::array<int, cluster_size> seen_team{};
  std::atomic<int> done{0};
  const int r = run_on_cluster([&] {
    pulp_runtime_cluster cl;
    EXPECT_EQ(cl.cores(), cluster_size);
    for (int round = 0; round < 20; ++round) {
      done = 0;
      cl.fork(0, [&](int core) {
        runs[static_cast<std::size_t>(core)]++;
        seen_team[static_cast<std::size_t>(core)] = cl.cores();
        EXPECT_EQ(cl.core_id(), core);
        done++;
      });
      EXPECT_EQ(done.load(), cluster_size);  // the fork returned after every body
    }
    return 42;
  });
  EXPECT_EQ(r, 42);  // core 0's program value comes back through cluster_wait
  for (int c = 0; c < cluster_size; ++c) {
    EXPECT_EQ(runs[static_cast<std::size_t>(c)].load(), 20) << "core " << c;
    EXPECT_EQ(seen_team[static_cast<std::size_t>(c)], cluster_size);
  }
  EXPECT_TRUE(problems.empty()) << problems.front();
}

// A barrier inside a body orders the team's phases: after it, every core sees what every other
// wrote before it; on a team smaller than the cluster the cores outside it do not run the body.
void check_barrier_phases(int team) {
  reset();
  std::array<std::atomic<int>, cluster_size> slot{};
  std::array<std::atomic<int>, cluster_size> sum{};
  std::array<std::atomic<int>, cluster_size> ran{};
  run_on_cluster([&] {
    pulp_runtime_cluster cl;
    for (int round = 1; round <= 10; ++round) {
      cl.fork(team, [&](int core) {
        const auto c = static_cast<std::size_t>(core);
        ran[c]++;
        EXPECT_EQ(cl.cores(), team);
        slot[c] = round * 100 + core;
        cl.barrier();
        int s = 0;
        for (int k = 0; k < team; ++k) s += slot[static_cast<std::size_t>(k)];
        sum[c] = s;
        cl.barrier();  // nobody writes the next round's slots before all have read
      });
      for (int c = 0; c < team; ++c)
        EXPECT_EQ(sum[static_cast<std::size_t>(c)].load(),
                  team * round * 100 + team * (team - 1) / 2)
            << "round " << round << " core " << c;
    }
    EXPECT_EQ(cl.cores(), cluster_size);  // outside the fork again
    return 0;
  });
  for (int c = 0; c < cluster_size; ++c)
    EXPECT_EQ(ran[static_cast<std::size_t>(c)].load(), c < team ? 10 : 0) << "core " << c;
  EXPECT_TRUE(problems.empty()) << problems.front();
}
TEST(PulpRuntimeHal, BarrierOnTheWholeCluster) {
  check_barrier_phases(cluster_size);
}
TEST(PulpRuntimeHal, BarrierOnASmallerTeam) {
  check_barrier_phases(3);
}

// A whole network planned for pulp_open, run by the executor on the stand-in cluster through
// the HAL (8 threads, DMA completing at the waits), bit-exact with the reference on every
// layer; every command pushed by core 0, at most 16 in flight, none left at the end.
template <network_type Net>
void check_network_through_hal() {
  using E = executor<Net, pulp_open>;
  static_assert(require_l2_only<E>());
  reset();
  const examples::synthetic<Net> d(7);
  const std::span<const std::uint8_t> in(d.input.data(), d.input.size());
  const auto expected = reference::run(Net::layers, d.params, in);

  std::vector<std::uint8_t> l2v(static_cast<std::size_t>(E::required_l2_bytes), 0);
  regions.push_back({l2v.data(), l2v.size()});
  ASSERT_TRUE(E::stage(d.params, l2v, {}).ok());
  ASSERT_TRUE(E::load_input(in, l2v, {}).ok());
  typename E::quant_plans quant{};
  ASSERT_TRUE(E::prepare(d.params, quant).ok());
  std::vector<std::int64_t> bad(Net::size, -1);

  const auto hook = [&](const schedule::layer_output& o) {
    const auto i = static_cast<std::size_t>(o.index);
    const layer& l = Net::layers[i];
    ASSERT_NE(o.l2, nullptr);
    bad[i] = 0;
    for (std::size_t k = 0; k < expected[i].size(); ++k) {
      const std::size_t at = schedule::output_element(l, o.chw, k);
      std::int32_t v;
      if (l.output() == output_kind::i32) {
        std::uint32_t u = 0;
        for (std::size_t b = 0; b < 4; ++b) u |= std::uint32_t{o.l2[4 * at + b]} << (8 * b);
        v = static_cast<std::int32_t>(u);
      } else {
        v = o.l2[at];
      }
      bad[i] += v != expected[i][k];
    }
  };
  run_on_cluster([&] {
    std::uint8_t* l1 = pulp_runtime_l1_alloc(static_cast<std::uint32_t>(E::required_l1_bytes));
    EXPECT_NE(l1, nullptr);
    pulp_runtime_dma dma;
    pulp_runtime_cluster cl;
    pulp_runtime_no_l3 l3;
    schedule::exec_env<pulp_runtime_dma, pulp_runtime_cluster> env{dma, cl, {}, cl.cores()};
    schedule::run_network(env, l3, schedule::view_of(Net::layers, E::plan), quant, l1, l2v.data(),
                          hook);
    return 0;
  });
  for (std::size_t i = 0; i < Net::size; ++i)
    EXPECT_EQ(bad[i], 0) << "layer " << i << " (" << Net::layers[i].name.c_str() << ")";
  EXPECT_GT(pushed.size(), Net::size);
  for (const command& c : pushed) EXPECT_EQ(c.core, 0) << "a command pushed by core " << c.core;
  EXPECT_LE(max_in_flight, 16u);
  for (const auto& c : in_flight) EXPECT_FALSE(c.has_value()) << "a command never waited for";
  for (const auto& p : problems) ADD_FAILURE() << p;
}

TEST(PulpRuntimeHal, Cifar10BitExactOnEightCores) {
  check_network_through_hal<examples::cifar10_cnn>();
}
TEST(PulpRuntimeHal, ResidualBitExactOnEightCores) {
  check_network_through_hal<examples::resnet_small>();
}

// The pulp-runtime HAL with its L3: CIFAR-10 planned for pulp_open with every weight streamed
// from the HyperRAM, on the stand-in's 8 cores, the HyperRAM driver over the register-level
// model of the uDMA HyperBus peripheral (tests/hal/hyper_model.hpp). The data are generated
// into place as the firmware does at start-up (cluster/stage_synthetic.hpp), through the
// driver; every layer bit-exact against the reference.
TEST(PulpRuntimeHal, Cifar10StreamedFromHyperRamOnEightCores) {
  using Net = examples::cifar10_cnn;
  constexpr platform plat = pulp_open.with_streamed_weights();
  using E = executor<Net, plat>;
  static_assert(E::required_l3_bytes > 0);
  reset();
  const examples::synthetic<Net> d(1);
  const std::span<const std::uint8_t> in(d.input.data(), d.input.size());
  const auto expected = reference::run(Net::layers, d.params, in);

  const auto arena = static_cast<std::size_t>(E::required_l2_bytes);
  const auto sb = static_cast<std::size_t>(firmware::stage_scratch_bytes<Net, E>());
  std::vector<std::uint8_t> l2v(arena + sb + 4096 + 16, 0);
  regions.push_back({l2v.data(), l2v.size()});
  std::uint8_t* scratch = l2v.data() + (arena + 7) / 8 * 8;
  std::uint8_t* window = scratch + sb;
  test::hyper_model m;
  m.l2 = l2v;
  hal::basic_udma_hyper_l3<test::model_bus> hyper(test::model_bus{&m});
  typename E::quant_plans quant{};
  std::vector<std::int64_t> bad(Net::size, -1);
  const auto hook = [&](const schedule::layer_output& o) {
    const auto i = static_cast<std::size_t>(o.index);
    const layer& l = Net::layers[i];
    std::vector<std::uint8_t> got;
    if (o.l2 != nullptr) {
      got.assign(o.l2, o.l2 + o.bytes);
    } else {
      for (std::int64_t at = 0; at < o.bytes; at += 4096) {
        const auto n = static_cast<std::uint32_t>(std::min<std::int64_t>(4096, o.bytes - at));
        decltype(hyper)::read_handle r;
        hyper.read(window, static_cast<std::uint32_t>(o.l3_offset + at), n, r);
        hyper.wait(r);
        got.insert(got.end(), window, window + n);
      }
    }
    bad[i] = 0;
    for (std::size_t k = 0; k < expected[i].size(); ++k) {
      const std::size_t at = schedule::output_element(l, o.chw, k);
      std::int32_t v;
      if (l.output() == output_kind::i32) {
        std::uint32_t u = 0;
        for (std::size_t b = 0; b < 4; ++b) u |= std::uint32_t{got[4 * at + b]} << (8 * b);
        v = static_cast<std::int32_t>(u);
      } else {
        v = got[at];
      }
      bad[i] += v != expected[i][k];
    }
  };
  run_on_cluster([&] {
    hyper.init();
    const auto put = [&](std::uint32_t at, const std::uint8_t* from, std::uint32_t n) {
      decltype(hyper)::write_handle w;
      hyper.write(at, const_cast<std::uint8_t*>(from), n, w);
      hyper.wait(w);
      return true;
    };
    const run_status st =
        firmware::stage_synthetic<Net, plat>(1, {l2v.data(), arena}, {scratch, sb}, put, quant);
    EXPECT_TRUE(st.ok()) << field_name(st.what) << " " << st.got << " of " << st.expected;
    std::uint8_t* l1 = pulp_runtime_l1_alloc(static_cast<std::uint32_t>(E::required_l1_bytes));
    EXPECT_NE(l1, nullptr);
    pulp_runtime_dma dma;
    pulp_runtime_cluster cl;
    schedule::exec_env<pulp_runtime_dma, pulp_runtime_cluster> env{dma, cl, {}, cl.cores()};
    schedule::run_network(env, hyper, schedule::view_of(Net::layers, E::plan), quant, l1,
                          l2v.data(), hook);
    return 0;
  });
  for (std::size_t i = 1; i < Net::size; ++i)
    EXPECT_EQ(bad[i], 0) << "layer " << i << " (" << Net::layers[i].name.c_str() << ")";
  EXPECT_TRUE(m.idle());
  EXPECT_GT(m.started.size(), Net::size);
  for (const auto& p : m.problems) ADD_FAILURE() << p;
  for (const auto& p : problems) ADD_FAILURE() << p;
}

}  // namespace
