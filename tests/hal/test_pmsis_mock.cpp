// The PMSIS HAL compiled against a stand-in <pmsis.h> (mock_pmsis/): each HAL call must become
// the matching PMSIS call with the arguments in the SDK's order, and split transfers must issue
// one command per piece and wait for each.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <ctile/hal/pmsis.hpp>
#include <ctile/schedule/dma_split.hpp>

static_assert(ctile::hal::has_pmsis, "The stand-in <pmsis.h> must be found.");

namespace {

struct call {
  std::string fn;
  std::vector<std::uint64_t> args;
  const void* record;
  friend bool operator==(const call&, const call&) = default;
};
std::vector<call> calls;
int current_core = 0;
int team = 8;
int next_id = 0;

std::uint32_t a32(const void* p) {
  return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(p));
}

}  // namespace

extern "C" {
void pi_cl_dma_cmd(uint32_t ext, uint32_t loc, uint32_t size, pi_cl_dma_dir_e dir,
                   pi_cl_dma_cmd_t* cmd) {
  cmd->id = next_id++;
  calls.push_back({"dma_cmd", {ext, loc, size, static_cast<std::uint64_t>(dir)}, cmd});
}
void pi_cl_dma_cmd_2d(uint32_t ext, uint32_t loc, uint32_t size, uint32_t stride, uint32_t length,
                      pi_cl_dma_dir_e dir, pi_cl_dma_cmd_t* cmd) {
  cmd->id = next_id++;
  calls.push_back(
      {"dma_cmd_2d", {ext, loc, size, stride, length, static_cast<std::uint64_t>(dir)}, cmd});
}
void pi_cl_dma_cmd_wait(pi_cl_dma_cmd_t* cmd) {
  calls.push_back({"dma_wait", {static_cast<std::uint64_t>(cmd->id)}, cmd});
}
void pi_cl_team_fork(int nb_cores, void (*entry)(void*), void* arg) {
  team = nb_cores == 0 ? 8 : nb_cores;
  calls.push_back({"fork", {static_cast<std::uint64_t>(nb_cores)}, nullptr});
  for (current_core = 0; current_core < team; ++current_core) entry(arg);
  current_core = 0;
}
void pi_cl_team_barrier(void) {
  calls.push_back({"barrier", {}, nullptr});
}
int pi_cl_team_nb_cores(void) {
  return team;
}
uint32_t pi_core_id(void) {
  return static_cast<uint32_t>(current_core);
}
void pi_cl_ram_read(struct pi_device* device, uint32_t pi_ram_addr, void* addr, uint32_t size,
                    pi_cl_ram_req_t* req) {
  calls.push_back({"ram_read", {a32(device), pi_ram_addr, a32(addr), size}, req});
}
void pi_cl_ram_write(struct pi_device* device, uint32_t pi_ram_addr, void* addr, uint32_t size,
                     pi_cl_ram_req_t* req) {
  calls.push_back({"ram_write", {a32(device), pi_ram_addr, a32(addr), size}, req});
}
void pi_cl_ram_read_wait(pi_cl_ram_req_t* req) {
  calls.push_back({"ram_read_wait", {}, req});
}
void pi_cl_ram_write_wait(pi_cl_ram_req_t* req) {
  calls.push_back({"ram_write_wait", {}, req});
}
}

using namespace ctile::hal;
using ctile::schedule::dma_transfer;
using ctile::schedule::dma_transfer_group;

TEST(PmsisHal, DmaCallsAndArgumentOrder) {
  calls.clear();
  alignas(4) static unsigned char l1[256], l2[1024];
  pmsis_dma dma;
  pmsis_dma::handle h{};
  dma.copy_1d(dma_dir::l2_to_l1, l1, l2 + 8, 100, h);
  dma.wait(h);
  dma.copy_2d(dma_dir::l1_to_l2, l1, l2, 120, 12, 40, h);
  dma.wait(h);
  const std::vector<call> want{
      {"dma_cmd", {a32(l2 + 8), a32(l1), 100, PI_CL_DMA_DIR_EXT2LOC}, &h},
      {"dma_wait", {0}, &h},
      // (ext, loc, size, stride, length, dir): stride is the L2 step, length the line.
      {"dma_cmd_2d", {a32(l2), a32(l1), 120, 40, 12, PI_CL_DMA_DIR_LOC2EXT}, &h},
      {"dma_wait", {1}, &h},
  };
  EXPECT_EQ(calls, want);
}

TEST(PmsisHal, SplitTransferIssuesOneCommandPerPiece) {
  calls.clear();
  std::vector<unsigned char> l1v(70000), l2v(70000);
  unsigned char* l1 = l1v.data();
  unsigned char* l2 = l2v.data();
  pmsis_dma dma;
  dma_transfer_group<dma_transfer::contiguous(dma_dir::l2_to_l1, 70000), pmsis_dma> g;
  g.start(dma, l1, l2);
  g.wait(dma);
  ASSERT_EQ(calls.size(), 6u);
  const std::uint32_t sizes[] = {32768, 32768, 4464};
  std::uint32_t off = 0;
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(calls[i].fn, "dma_cmd");
    EXPECT_EQ(calls[i].args[0], a32(l2) + off);
    EXPECT_EQ(calls[i].args[1], a32(l1) + off);
    EXPECT_EQ(calls[i].args[2], sizes[i]);
    EXPECT_EQ(calls[3 + i].fn, "dma_wait");
    EXPECT_EQ(calls[3 + i].record, calls[i].record);  // each command waited on its own record
    off += sizes[i];
  }
}

TEST(PmsisHal, ForkPassesCoreIds) {
  calls.clear();
  pmsis_cluster c;
  std::vector<int> seen;
  c.fork(0, [&](int id) {
    seen.push_back(id * 100 + c.cores());
    if (id == c.core_id()) c.barrier();
  });
  EXPECT_EQ(seen, (std::vector<int>{8, 108, 208, 308, 408, 508, 608, 708}));
  EXPECT_EQ(calls.size(), 9u);  // the fork and 8 barriers
  c.fork(2, [&](int) {});
  EXPECT_EQ(calls.back().args[0], 2u);
}

TEST(PmsisHal, RamCallsUseTheRequestRecords) {
  calls.clear();
  pi_device ram{};
  pmsis_l3 l3(&ram);
  static unsigned char l2[64];
  pmsis_l3::read_handle r;
  pmsis_l3::write_handle w;
  l3.read(l2, 0x1000, 64, r);
  l3.write(0x2000, l2, 32, w);
  l3.wait(w);
  l3.wait(r);
  const std::vector<call> want{
      {"ram_read", {a32(&ram), 0x1000, a32(l2), 64}, &r.req},
      {"ram_write", {a32(&ram), 0x2000, a32(l2), 32}, &w.req},
      {"ram_write_wait", {}, &w.req},
      {"ram_read_wait", {}, &r.req},
  };
  EXPECT_EQ(calls, want);
}
