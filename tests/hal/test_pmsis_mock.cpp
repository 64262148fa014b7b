// The PMSIS HAL compiled against stand-ins of the GAP SDK's headers (mock_pmsis/: <pmsis.h>,
// <bsp/ram.h>, the DMA and team headers, split and declared as in the SDK), whose inline
// functions behave as GAP-8's implementation does over a model of the hardware defined here:
// MCHAN with a 16-bit length field and 16 counters, the SDK's software DMA path (which the HAL
// must never enter), the event unit's team and barrier masks, and the fabric controller serving
// RAM requests in order.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <ctile/hal/pmsis.hpp>
#include <ctile/schedule/dma_split.hpp>

static_assert(ctile::hal::has_pmsis, "The stand-in <pmsis.h> must be found.");
static_assert(ctile::hal::has_pmsis_ram, "The stand-in <bsp/ram.h> must be found.");

namespace {

struct call {
  std::string fn;
  std::vector<std::uint64_t> args;
  friend bool operator==(const call&, const call&) = default;
};
std::vector<call> calls;

// ---- Memory: the 32-bit addresses the SDK takes, mapped back to the host buffers. ----
struct region {
  unsigned char* p;
  std::size_t n;
};
std::vector<region> regions;
std::uint32_t a32(const void* p) {
  return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(p));
}
unsigned char* host(std::uint32_t a, std::size_t n) {
  for (const region& r : regions)
    if (a >= a32(r.p) && std::uint64_t{a} + n <= std::uint64_t{a32(r.p)} + r.n)
      return r.p + (a - a32(r.p));
  ADD_FAILURE() << "DMA access to unmapped memory at 0x" << std::hex << a << " (" << std::dec << n
                << " B)";
  return nullptr;
}

// ---- MCHAN: 16 counters, a 16-bit length field. ----
bool counter_busy[16];
int in_flight() {
  return static_cast<int>(std::count(std::begin(counter_busy), std::end(counter_busy), true));
}
int peak_in_flight = 0;

// ---- Event unit and cores. ----
std::uint32_t barrier_mask = 0xFF;  // the cluster task was started on 8 cores
std::uint32_t current_core = 0;
constexpr std::uint32_t cluster_cores = 8;

// ---- Fabric controller: RAM requests served in order. ----
std::vector<pi_cl_ram_req_t*> pending_ram;

void reset() {
  calls.clear();
  regions.clear();
  std::fill(std::begin(counter_busy), std::end(counter_busy), false);
  peak_in_flight = 0;
  barrier_mask = 0xFF;
  current_core = 0;
  pending_ram.clear();
}

}  // namespace

extern "C" {
int ctile_mock_mchan_push(int ext2loc, unsigned int size, unsigned int loc, unsigned int ext,
                          int is_2d, unsigned int stride, unsigned int length) {
  calls.push_back({is_2d ? "mchan_2d" : "mchan",
                   {static_cast<std::uint64_t>(ext2loc), size, loc, ext, stride, length}});
  if (size > 0xFFFF) ADD_FAILURE() << "a size of " << size << " B overflows MCHAN's length field";
  int id = 0;
  while (id < 16 && counter_busy[id]) ++id;
  if (id == 16) {
    ADD_FAILURE() << "a 17th command in flight: MCHAN has 16 counters";
    return 0;
  }
  counter_busy[id] = true;
  peak_in_flight = std::max(peak_in_flight, in_flight());
  const std::uint32_t line = is_2d ? length : size;
  if (line == 0) return id;
  // The 2-D walk steps through L2 (ext) by the stride; L1 (loc) is contiguous.
  for (std::uint32_t done = 0, e = ext; done < size; done += line, e += is_2d ? stride : line) {
    const std::uint32_t n = std::min(line, size - done);
    unsigned char* l1 = host(loc + done, n);
    unsigned char* l2 = host(e, n);
    if (l1 == nullptr || l2 == nullptr) break;
    if (ext2loc)
      std::memcpy(l1, l2, n);
    else
      std::memcpy(l2, l1, n);
  }
  return id;
}
void ctile_mock_dma_software_path(unsigned int ext, unsigned int loc, unsigned int size,
                                  unsigned int stride, unsigned int length, int ext2loc) {
  calls.push_back(
      {"software_path", {ext, loc, size, stride, length, static_cast<std::uint64_t>(ext2loc)}});
  ADD_FAILURE() << "the SDK's software DMA path was entered (size " << size << ", stride " << stride
                << "): interrupt-driven, unsafe with several cores";
}
void ctile_mock_mchan_wait(int counter) {
  calls.push_back({"mchan_wait", {static_cast<std::uint64_t>(counter)}});
  if (counter < 0 || counter >= 16 || !counter_busy[counter])
    ADD_FAILURE() << "wait on counter " << counter << ", which is not in flight";
  else
    counter_busy[counter] = false;
}
void ctile_mock_eu_team_config(uint32_t core_mask) {
  calls.push_back({"team_config", {core_mask}});
  barrier_mask = core_mask;
}
uint32_t ctile_mock_eu_barrier_mask(void) {
  return barrier_mask;
}
void ctile_mock_eu_dispatch(void (*entry)(void*), void* arg) {
  calls.push_back({"dispatch", {barrier_mask}});
  for (std::uint32_t c = 0; c < 32; ++c)
    if (barrier_mask >> c & 1u) {
      current_core = c;
      entry(arg);
    }
  current_core = 0;
}
void ctile_mock_eu_barrier(void) {
  calls.push_back({"barrier", {current_core}});
}
void ctile_mock_eu_wait_cluster_call_event(void) {
  if (pending_ram.empty()) {
    ADD_FAILURE() << "waiting for a RAM request while none is pending would sleep forever";
    throw std::runtime_error("deadlock");
  }
  pi_cl_ram_req_t* r = pending_ram.front();
  pending_ram.erase(pending_ram.begin());
  calls.push_back({"ram_served", {r->pi_ram_addr}});
  r->done = 1;
}
uint32_t ctile_mock_core_id(void) {
  return current_core;
}
uint32_t ctile_mock_cluster_core_count(void) {
  return cluster_cores;
}
// The SDK's BSP library function (C linkage): the request goes to the fabric controller.
void pi_cl_ram_copy(struct pi_device* device, uint32_t pi_ram_addr, void* addr, uint32_t size,
                    int ext2loc, pi_cl_ram_req_t* req) {
  req->device = device;
  req->addr = addr;
  req->pi_ram_addr = pi_ram_addr;
  req->size = size;
  req->ext2loc = static_cast<unsigned char>(ext2loc);
  req->done = 0;
  pending_ram.push_back(req);
  calls.push_back(
      {"ram_copy",
       {a32(device), pi_ram_addr, a32(addr), size, static_cast<std::uint64_t>(ext2loc)}});
}
}

using namespace ctile::hal;
using ctile::schedule::dma_transfer;
using ctile::schedule::dma_transfer_group;

// ---- The stand-in reproduces the SDK's behaviour (else the tests below would prove nothing).

TEST(PmsisStandIn, SdkSoftwarePathFrom32768Bytes) {
  reset();
  pi_cl_dma_cmd_t h{};
  EXPECT_NONFATAL_FAILURE(pi_cl_dma_cmd(0x1000, 0x2000, 32768, PI_CL_DMA_DIR_EXT2LOC, &h),
                          "software DMA path");
  EXPECT_NONFATAL_FAILURE(
      pi_cl_dma_cmd_2d(0x1000, 0x2000, 64, 32768, 16, PI_CL_DMA_DIR_EXT2LOC, &h),
      "software DMA path");
}

TEST(PmsisStandIn, SdkSizeIsAnUnsignedShort) {
  reset();
  static unsigned char l1[4], l2[4] = {1, 2, 3, 4};
  regions = {{l1, sizeof l1}, {l2, sizeof l2}};
  pi_cl_dma_cmd_t h{};
  // 65,536 B arrive as 0 and take the hardware path; 65,537 B as 1.
  pi_cl_dma_cmd(a32(l2), a32(l1), 65536, PI_CL_DMA_DIR_EXT2LOC, &h);
  pi_cl_dma_cmd_wait(&h);
  EXPECT_EQ(l1[0], 0);
  pi_cl_dma_cmd(a32(l2), a32(l1), 65537, PI_CL_DMA_DIR_EXT2LOC, &h);
  pi_cl_dma_cmd_wait(&h);
  EXPECT_EQ(l1[0], 1);
  EXPECT_EQ(l1[1], 0);
  ASSERT_EQ(calls.size(), 4u);
  EXPECT_EQ(calls[0].fn, "mchan");
  EXPECT_EQ(calls[0].args[1], 0u);
  EXPECT_EQ(calls[2].args[1], 1u);
}

TEST(PmsisStandIn, TeamForkOfZeroReusesThePreviousTeam) {
  reset();
  int runs = 0;
  auto body = [](void* arg) { ++*static_cast<int*>(arg); };
  pi_cl_team_fork(2, body, &runs);
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(pi_cl_team_nb_cores(), 2);
  pi_cl_team_fork(0, body, &runs);
  EXPECT_EQ(runs, 4);  // not 8 more: the previous team of 2
  EXPECT_EQ(pi_cl_cluster_nb_cores(), 8);
}

// ---- The HAL ----

TEST(PmsisHal, DmaCallsArgumentOrderAndData) {
  reset();
  alignas(4) static unsigned char l1[256], l2[1024];
  regions = {{l1, sizeof l1}, {l2, sizeof l2}};
  for (int i = 0; i < 1024; ++i) l2[i] = static_cast<unsigned char>(i * 7 + 1);
  std::memset(l1, 0, sizeof l1);
  pmsis_dma dma;
  pmsis_dma::handle h{};
  dma.copy_1d(dma_dir::l2_to_l1, l1, l2 + 8, 100, h);
  dma.wait(h);
  EXPECT_EQ(0, std::memcmp(l1, l2 + 8, 100));
  // 10 lines of 12 B, 40 B apart in L2, from L1 back to L2.
  for (int i = 0; i < 120; ++i) l1[i] = static_cast<unsigned char>(200 + i);
  dma.copy_2d(dma_dir::l1_to_l2, l1, l2 + 500, 120, 12, 40, h);
  dma.wait(h);
  for (int r = 0; r < 10; ++r) EXPECT_EQ(0, std::memcmp(l2 + 500 + 40 * r, l1 + 12 * r, 12));
  const std::vector<call> want{
      // (ext2loc, size, loc, ext, stride, length)
      {"mchan", {1, 100, a32(l1), a32(l2 + 8), 0, 0}},
      {"mchan_wait", {0}},
      {"mchan_2d", {0, 120, a32(l1), a32(l2 + 500), 40, 12}},
      {"mchan_wait", {0}},
  };
  EXPECT_EQ(calls, want);
}

// Contiguous transfers around the SDK's thresholds, split through the schedule to the PMSIS
// DMA's limits: every command stays below 32,768 B (on the hardware path, so the stand-in does
// not fail), ceil(n / 32,767) of them, and the bytes land exactly.
template <std::uint32_t N>
void check_split_1d() {
  reset();
  std::vector<unsigned char> l1v(N + 64), l2v(N + 64);
  regions = {{l1v.data(), l1v.size()}, {l2v.data(), l2v.size()}};
  for (std::size_t i = 0; i < l2v.size(); ++i) l2v[i] = static_cast<unsigned char>(i * 131 + 7);
  pmsis_dma dma;
  dma_transfer_group<dma_transfer::contiguous(dma_dir::l2_to_l1, N), pmsis_dma> g;
  g.start(dma, l1v.data() + 3, l2v.data() + 5);
  g.wait(dma);
  const std::size_t cmds = (N + 32766) / 32767;
  ASSERT_EQ(calls.size(), 2 * cmds) << N;
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < cmds; ++i) {
    EXPECT_EQ(calls[i].fn, "mchan") << N;
    EXPECT_LE(calls[i].args[1], 32767u) << N;
    EXPECT_GT(calls[i].args[1], 0u) << N;
    total += calls[i].args[1];
    EXPECT_EQ(calls[cmds + i].fn, "mchan_wait") << N;
  }
  EXPECT_EQ(total, N);
  EXPECT_EQ(0, std::memcmp(l1v.data() + 3, l2v.data() + 5, N)) << N;
  EXPECT_EQ(in_flight(), 0);
}

TEST(PmsisHal, SplitsAtTheSdkThresholds) {
  check_split_1d<32767>();
  check_split_1d<32768>();
  check_split_1d<65535>();
  check_split_1d<65536>();
  check_split_1d<70000>();
}

// 2-D: strides of 32,767 B go to the hardware as one 2-D command; 32,768 B would enter the
// SDK's 2-D emulation, so the schedule issues the lines as 1-D commands instead.
TEST(PmsisHal, TwoDimensionalStridesStayBelow32768) {
  for (const std::uint32_t stride : {32767u, 32768u, 40000u}) {
    reset();
    constexpr std::uint32_t lines = 3, line = 16;
    std::vector<unsigned char> l1v(lines * line), l2v(2 * 40000 + line);
    regions = {{l1v.data(), l1v.size()}, {l2v.data(), l2v.size()}};
    for (std::size_t i = 0; i < l2v.size(); ++i) l2v[i] = static_cast<unsigned char>(i * 13 + 1);
    pmsis_dma dma;
    auto run = [&]<std::uint32_t S>() {
      dma_transfer_group<dma_transfer::strided(dma_dir::l2_to_l1, lines, line, S), pmsis_dma> g;
      g.start(dma, l1v.data(), l2v.data());
      g.wait(dma);
    };
    if (stride == 32767u) run.template operator()<32767u>();
    if (stride == 32768u) run.template operator()<32768u>();
    if (stride == 40000u) run.template operator()<40000u>();
    for (std::uint32_t r = 0; r < lines; ++r)
      EXPECT_EQ(0, std::memcmp(l1v.data() + r * line, l2v.data() + r * stride, line)) << stride;
    for (const call& c : calls) {
      if (c.fn == "mchan_2d") {
        EXPECT_LT(c.args[4], 32768u) << stride;
      }
      EXPECT_NE(c.fn, "software_path");
    }
    EXPECT_EQ(calls.front().fn, stride < 32768u ? "mchan_2d" : "mchan") << stride;
  }
}

TEST(PmsisHal, ForkUsesTheClusterCoreCount) {
  reset();
  pmsis_cluster c;
  EXPECT_EQ(c.cores(), 8);  // outside a fork: the cluster
  std::vector<int> seen;
  c.fork(2, [&](int id) {
    seen.push_back(id * 100 + c.cores());
    c.barrier();
  });
  EXPECT_EQ(seen, (std::vector<int>{2, 102}));
  // After a team of 2, the cluster still has 8 cores and fork(0, ...) and fork(body) use them
  // all (the SDK's pi_cl_team_fork(0, ...) would reuse the team of 2).
  EXPECT_EQ(c.cores(), 8);
  seen.clear();
  c.fork(0, [&](int id) { seen.push_back(id * 100 + c.cores()); });
  EXPECT_EQ(seen, (std::vector<int>{8, 108, 208, 308, 408, 508, 608, 708}));
  c.fork(3, [](int) {});
  seen.clear();
  c.fork([&](int id) {
    if (id == c.core_id()) seen.push_back(c.cores());
  });
  EXPECT_EQ(seen, std::vector<int>(8, 8));
  EXPECT_EQ(c.cores(), 8);
  // Every fork set its team explicitly.
  std::vector<std::uint64_t> configs;
  for (const call& k : calls)
    if (k.fn == "team_config") configs.push_back(k.args[0]);
  EXPECT_EQ(configs, (std::vector<std::uint64_t>{0x3, 0xFF, 0x7, 0xFF}));
}

TEST(PmsisHal, RamRequestsGoThroughTheBspWithCLinkage) {
  reset();
  pi_device ram{};
  pmsis_l3 l3(&ram);
  static unsigned char l2[64];
  pmsis_l3::read_handle r;
  pmsis_l3::write_handle w;
  l3.read(l2, 0x1000, 64, r);
  l3.write(0x2000, l2, 32, w);
  l3.wait(w);  // the fabric controller serves the read first, then the write
  EXPECT_EQ(r.req.done, 1);
  EXPECT_EQ(w.req.done, 1);
  l3.wait(r);  // already served: returns without waiting
  const std::vector<call> want{
      {"ram_copy", {a32(&ram), 0x1000, a32(l2), 64, 1}},
      {"ram_copy", {a32(&ram), 0x2000, a32(l2), 32, 0}},
      {"ram_served", {0x1000}},
      {"ram_served", {0x2000}},
  };
  EXPECT_EQ(calls, want);
}
