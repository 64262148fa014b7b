// The simulated DMA: data arrives at wait time (or later, randomly), every kind of misuse is
// reported with a readable description, and traffic is counted.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <ctile/hal/host.hpp>
#include <ctile/schedule/dma_split.hpp>

using namespace ctile::hal;
using ctile::schedule::dma_transfer;
using ctile::schedule::dma_transfer_group;

namespace {

struct fixture {
  explicit fixture(sim_memory::options o = {}) : mem(o), dma(mem) {
    l1 = mem.arena(mem_level::l1, 64 * 1024, "L1");
    l2 = mem.arena(mem_level::l2, 512 * 1024, "L2");
  }
  std::byte* a1(std::size_t off) { return l1.data() + off; }
  std::byte* a2(std::size_t off) { return l2.data() + off; }
  void fill_l2(std::size_t off, std::size_t n, unsigned seed) {
    std::mt19937 g(seed);
    for (std::size_t i = 0; i < n; ++i) l2[off + i] = static_cast<std::byte>(g());
  }
  bool has(violation_kind k) const { return mem.count(k) > 0; }
  std::string text() const { return mem.report_text(); }

  sim_memory mem;
  host_dma dma;
  std::span<std::byte> l1, l2;
};

constexpr auto in = dma_dir::l2_to_l1;
constexpr auto out = dma_dir::l1_to_l2;

}  // namespace

TEST(SimDma, OneDimensionalCopyArrivesAtWait) {
  fixture f;
  f.fill_l2(1000, 300, 1);
  host_dma::handle h;
  f.dma.copy_1d(in, f.a1(64), f.a2(1000), 300, h);
  EXPECT_EQ(f.mem.in_flight(), 1u);
  // Not yet waited: the destination still holds its old (zero) bytes.
  for (int i = 0; i < 300; ++i) ASSERT_EQ(f.l1[64 + i], std::byte{0});
  f.dma.wait(h);
  EXPECT_EQ(std::memcmp(f.a1(64), f.a2(1000), 300), 0);
  EXPECT_EQ(f.mem.in_flight(), 0u);
  EXPECT_TRUE(f.mem.violations().empty()) << f.text();
}

TEST(SimDma, TwoDimensionalCopiesBothWays) {
  fixture f;
  f.fill_l2(0, 10000, 2);
  host_dma::handle h;
  // 20 lines of 30 B, 100 B apart in L2, packed in L1.
  f.dma.copy_2d(in, f.a1(0), f.a2(0), 600, 30, 100, h);
  f.dma.wait(h);
  for (int line = 0; line < 20; ++line)
    for (int k = 0; k < 30; ++k) ASSERT_EQ(f.l1[line * 30 + k], f.l2[line * 100 + k]);
  // Back out to another place in L2 with a different stride.
  f.dma.copy_2d(out, f.a1(0), f.a2(20000), 600, 30, 45, h);
  f.dma.wait(h);
  for (int line = 0; line < 20; ++line) {
    for (int k = 0; k < 30; ++k) ASSERT_EQ(f.l2[20000 + line * 45 + k], f.l2[line * 100 + k]);
    for (int k = 30; k < 45 && line < 19; ++k) ASSERT_EQ(f.l2[20000 + line * 45 + k], std::byte{0});
  }
  EXPECT_TRUE(f.mem.violations().empty()) << f.text();
}

TEST(SimDma, RandomCompletionIsCorrectAndSeedDependent) {
  // 16 transfers in flight, waited in a scrambled order. Whatever the seed, the data is right
  // after each wait. Before any wait, some transfers have completed already (seen by peeking),
  // and which ones depends on the seed only.
  auto run = [](std::uint64_t seed) {
    fixture f({.mode = completion::random, .seed = seed, .completion_chance = 0.1});
    f.fill_l2(0, 16 * 1024, 5);
    std::array<host_dma::handle, 16> hs;
    for (int i = 0; i < 16; ++i) f.dma.copy_1d(in, f.a1(i * 1024), f.a2(i * 1024), 1024, hs[i]);
    std::vector<int> early;
    for (int i = 0; i < 16; ++i)
      if (std::memcmp(f.a1(i * 1024), f.a2(i * 1024), 1024) == 0) early.push_back(i);
    for (int i : {5, 0, 15, 3, 9, 1, 12, 7, 2, 14, 4, 10, 6, 13, 8, 11}) {
      f.dma.wait(hs[i]);
      EXPECT_EQ(std::memcmp(f.a1(i * 1024), f.a2(i * 1024), 1024), 0) << "seed " << seed;
    }
    EXPECT_TRUE(f.mem.violations().empty()) << f.text();
    return early;
  };
  std::vector<std::vector<int>> early;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) early.push_back(run(seed));
  bool some_early = false;
  bool differ = false;
  for (const auto& e : early) {
    some_early = some_early || !e.empty();
    differ = differ || e != early[0];
    EXPECT_LT(e.size(), 16u);
  }
  EXPECT_TRUE(some_early);
  EXPECT_TRUE(differ);
  EXPECT_EQ(run(3), early[2]);  // reproducible
}

TEST(SimDma, ImmediateModeCopiesAtStartButStillNeedsWait) {
  fixture f({.mode = completion::immediate});
  f.fill_l2(0, 64, 3);
  host_dma::handle h;
  f.dma.copy_1d(in, f.a1(0), f.a2(0), 64, h);
  EXPECT_EQ(std::memcmp(f.a1(0), f.a2(0), 64), 0);
  f.mem.check_read(f.a1(0), 64, "conv");
  EXPECT_TRUE(f.has(violation_kind::read_before_wait)) << f.text();
  EXPECT_NE(f.text().find("happened to be done"), std::string::npos) << f.text();
  f.dma.wait(h);
}

TEST(SimDma, ReadBeforeWaitNamesBufferTransferAndOffsets) {
  fixture f;
  f.mem.add_buffer(f.a1(4096), 512, "in[1]");
  f.mem.add_buffer(f.a2(8192), 512, "x");
  host_dma::handle h;
  f.dma.copy_1d(in, f.a1(4096), f.a2(8192), 512, h);
  f.mem.check_read(f.a1(4096 + 16), 32, "conv1");
  ASSERT_EQ(f.mem.count(violation_kind::read_before_wait), 1u) << f.text();
  const auto t = f.text();
  EXPECT_NE(t.find("conv1 reads bytes L1 buffer 'in[1]' +16 .. +32 B"), std::string::npos) << t;
  EXPECT_NE(t.find("DMA #1 (L2->L1, 512 B, from L2 buffer 'x' +0 to L1 buffer 'in[1]' +0)"),
            std::string::npos)
      << t;
  // Bytes next to the transfer are fine.
  f.mem.clear_violations();
  f.mem.check_read(f.a1(4096 + 512), 64);
  f.mem.check_read(f.a1(4000), 96);
  EXPECT_TRUE(f.mem.violations().empty()) << f.text();
  f.dma.wait(h);
  f.mem.check_read(f.a1(4096), 512);
  EXPECT_TRUE(f.mem.violations().empty()) << f.text();
}

TEST(SimDma, WriteBeforeWait) {
  fixture f;
  host_dma::handle h;
  // Kernel writes the L1 source of an outgoing transfer.
  f.dma.copy_1d(out, f.a1(0), f.a2(0), 256, h);
  f.mem.check_write(f.a1(100), 4, "relu");
  EXPECT_EQ(f.mem.count(violation_kind::write_before_wait), 1u) << f.text();
  EXPECT_NE(f.text().find("reads and was not waited for"), std::string::npos);
  // Reading it is fine: both only read.
  f.mem.check_read(f.a1(100), 4, "relu");
  EXPECT_EQ(f.mem.violations().size(), 1u) << f.text();
  f.dma.wait(h);
  // Kernel writes the destination of an incoming transfer.
  f.dma.copy_1d(in, f.a1(0), f.a2(0), 256, h);
  f.mem.check_write(f.a1(255), 1, "relu");
  EXPECT_EQ(f.mem.count(violation_kind::write_before_wait), 2u) << f.text();
  f.dma.wait(h);
}

TEST(SimDma, TransferIntoBufferInUse) {
  fixture f;
  {
    auto use = f.mem.use_read(f.a1(0), 1024, "conv2");
    host_dma::handle h;
    f.dma.copy_1d(in, f.a1(512), f.a2(0), 1024, h);  // overlaps the second half
    EXPECT_EQ(f.mem.count(violation_kind::transfer_into_busy), 1u) << f.text();
    EXPECT_NE(f.text().find("while conv2 is still reading it"), std::string::npos) << f.text();
    f.dma.wait(h);
  }
  // Released: the same transfer is fine now.
  host_dma::handle h;
  f.dma.copy_1d(in, f.a1(512), f.a2(0), 1024, h);
  f.dma.wait(h);
  EXPECT_EQ(f.mem.violations().size(), 1u) << f.text();
  // A write use forbids transfers reading the bytes too.
  {
    auto use = f.mem.use_write(f.a1(0), 64, "pool");
    f.dma.copy_1d(out, f.a1(0), f.a2(0), 64, h);
    EXPECT_EQ(f.mem.count(violation_kind::transfer_from_busy), 1u) << f.text();
    f.dma.wait(h);
  }
}

TEST(SimDma, ConflictingTransfers) {
  fixture f;
  host_dma::handle a, b, c;
  f.dma.copy_1d(in, f.a1(0), f.a2(0), 128, a);
  f.dma.copy_1d(in, f.a1(64), f.a2(4096), 128, b);  // both write L1 [64, 128)
  EXPECT_EQ(f.mem.count(violation_kind::transfer_into_busy), 1u) << f.text();
  f.dma.copy_1d(out, f.a1(0), f.a2(8192), 32, c);  // reads what a still writes
  EXPECT_EQ(f.mem.count(violation_kind::transfer_from_busy), 1u) << f.text();
  f.dma.wait(a);
  f.dma.wait(b);
  f.dma.wait(c);
  // Interleaved 2D transfers writing disjoint columns of the same L2 rows do not conflict.
  f.mem.clear_violations();
  f.dma.copy_2d(out, f.a1(0), f.a2(0), 160, 16, 64, a);      // columns [0, 16) of 10 rows
  f.dma.copy_2d(out, f.a1(1024), f.a2(16), 480, 48, 64, b);  // columns [16, 64)
  EXPECT_TRUE(f.mem.violations().empty()) << f.text();
  f.dma.copy_2d(out, f.a1(2048), f.a2(60), 40, 4, 64, c);  // columns [60, 64): overlaps b
  EXPECT_EQ(f.mem.count(violation_kind::transfer_into_busy), 1u) << f.text();
  f.dma.wait(a);
  f.dma.wait(b);
  f.dma.wait(c);
}

TEST(SimDma, OverlappingLiveBuffers) {
  fixture f;
  f.mem.add_buffer(f.a1(0), 1000, "w[0]");
  f.mem.add_buffer(f.a1(1000), 1000, "w[1]");
  EXPECT_TRUE(f.mem.violations().empty()) << f.text();
  f.mem.add_buffer(f.a1(1500), 100, "im2col");
  ASSERT_EQ(f.mem.count(violation_kind::overlapping_buffers), 1u) << f.text();
  EXPECT_NE(f.text().find("'im2col'"), std::string::npos);
  EXPECT_NE(f.text().find("'w[1]'"), std::string::npos);
  f.mem.remove_buffer(f.a1(1500));
  f.mem.remove_buffer(f.a1(1000));
  f.mem.add_buffer(f.a1(1500), 100, "im2col");  // w[1] is gone: fine
  EXPECT_EQ(f.mem.violations().size(), 1u) << f.text();
}

TEST(SimDma, BufferReleasedDuringTransfer) {
  fixture f;
  f.mem.add_buffer(f.a1(0), 256, "y[0]");
  host_dma::handle h;
  f.dma.copy_1d(out, f.a1(0), f.a2(0), 256, h);
  f.mem.remove_buffer(f.a1(0));
  EXPECT_EQ(f.mem.count(violation_kind::buffer_retired_in_flight), 1u) << f.text();
  f.dma.wait(h);
}

TEST(SimDma, CommandsOutsideTheirLevel) {
  fixture f;
  host_dma::handle h;
  f.dma.copy_1d(in, f.a2(0), f.a2(100), 16, h);  // "L1" pointer is in L2
  EXPECT_EQ(f.mem.count(violation_kind::outside_region), 1u) << f.text();
  f.dma.wait(h);
  f.dma.copy_1d(in, f.a1(64 * 1024 - 8), f.a2(0), 16, h);  // runs past the end of L1
  EXPECT_EQ(f.mem.count(violation_kind::outside_region), 2u) << f.text();
  f.dma.wait(h);
  // Rejected commands copy nothing.
  EXPECT_EQ(f.l2[0], std::byte{0});
}

TEST(SimDma, CommandsOverTheLimits) {
  fixture f;
  host_dma::handle h;
  f.dma.copy_1d(in, f.a1(0), f.a2(0), 32769, h);
  EXPECT_EQ(f.mem.count(violation_kind::command_out_of_limits), 1u) << f.text();
  EXPECT_NE(f.text().find("exceeds the safe maximum of 32768 B"), std::string::npos) << f.text();
  f.dma.wait(h);
  f.dma.copy_2d(in, f.a1(0), f.a2(0), 100, 10, 32768, h);
  EXPECT_NE(f.text().find("stride exceeds 32767"), std::string::npos) << f.text();
  f.dma.wait(h);
  f.dma.copy_2d(in, f.a1(0), f.a2(0), 100, 30, 40, h);
  EXPECT_NE(f.text().find("not a multiple of its line length"), std::string::npos) << f.text();
  f.dma.wait(h);
  EXPECT_EQ(f.mem.count(violation_kind::command_out_of_limits), 3u) << f.text();
}

TEST(SimDma, TooManyCommandsInFlight) {
  fixture f;
  std::array<host_dma::handle, 17> hs;
  for (int i = 0; i < 16; ++i) f.dma.copy_1d(in, f.a1(i * 16), f.a2(i * 16), 16, hs[i]);
  EXPECT_TRUE(f.mem.violations().empty()) << f.text();
  f.dma.copy_1d(in, f.a1(16 * 16), f.a2(16 * 16), 16, hs[16]);
  EXPECT_EQ(f.mem.count(violation_kind::too_many_in_flight), 1u) << f.text();
  for (auto& h : hs) f.dma.wait(h);
  EXPECT_EQ(f.mem.counters().max_in_flight, 17u);
}

TEST(SimDma, BadWaitsAndMissingWaits) {
  fixture f;
  host_dma::handle h;
  f.dma.wait(h);  // never started
  f.dma.copy_1d(in, f.a1(0), f.a2(0), 16, h);
  host_dma::handle copy = h;
  f.dma.wait(h);
  f.dma.wait(copy);  // the same transfer again
  EXPECT_EQ(f.mem.count(violation_kind::bad_wait), 2u) << f.text();
  f.dma.copy_1d(in, f.a1(0), f.a2(0), 16, h);
  f.mem.finish();
  EXPECT_EQ(f.mem.count(violation_kind::never_waited), 1u) << f.text();
  EXPECT_EQ(f.mem.in_flight(), 0u);
}

TEST(SimDmaDeathTest, AbortOnViolation) {
  EXPECT_DEATH(
      {
        fixture f({.abort_on_violation = true});
        host_dma::handle h;
        f.dma.copy_1d(in, f.a1(0), f.a2(0), 16, h);
        f.mem.check_read(f.a1(0), 1, "fc");
      },
      "read before wait: fc reads");
}

TEST(SimDma, CountsBytesCommandsAndLargestCommand) {
  fixture f;
  dma_transfer_group<dma_transfer::contiguous(in, 60000), host_dma> g;
  static_assert(decltype(g)::commands() == 2);
  f.fill_l2(0, 60000, 9);
  g.start(f.dma, f.a1(0), f.a2(0));
  g.wait(f.dma);
  EXPECT_EQ(std::memcmp(f.a1(0), f.a2(0), 60000), 0);
  dma_transfer_group<dma_transfer::strided(out, 64, 100, 300), host_dma> o;
  o.start(f.dma, f.a1(0), f.a2(200000));
  o.wait(f.dma);
  const auto c = f.mem.counters();
  EXPECT_EQ(c.bytes_on(traffic_path::l2_to_l1), 60000u);
  EXPECT_EQ(c.commands_on(traffic_path::l2_to_l1), 2u);
  EXPECT_EQ(c.bytes_on(traffic_path::l1_to_l2), 6400u);
  EXPECT_EQ(c.commands_on(traffic_path::l1_to_l2), 1u);
  EXPECT_EQ(c.bytes_on(traffic_path::l3_to_l2), 0u);
  EXPECT_EQ(c.max_command_bytes, 32768u);
  EXPECT_EQ(c.max_in_flight, 2u);
  for (int line = 0; line < 64; ++line)
    ASSERT_EQ(std::memcmp(f.a2(200000 + line * 300), f.a1(line * 100), 100), 0);
  EXPECT_TRUE(f.mem.violations().empty()) << f.text();
}

TEST(SimDma, StridedOverlapAgreesWithBruteForce) {
  std::mt19937 rng(11);
  auto pick = [&](std::uint32_t lo, std::uint32_t hi) {
    return std::uniform_int_distribution<std::uint32_t>(lo, hi)(rng);
  };
  for (int it = 0; it < 3000; ++it) {
    const byte_set a{pick(0, 300), pick(0, 6), pick(0, 20), pick(0, 40)};
    const byte_set b{pick(0, 300), pick(0, 6), pick(0, 20), pick(0, 40)};
    std::vector<bool> in_a(600, false);
    for (std::uint32_t i = 0; i < a.lines; ++i)
      for (std::uint32_t k = 0; k < a.line; ++k) in_a[a.base + i * a.stride + k] = true;
    std::vector<bool> in_b(600, false);
    bool brute = false;
    for (std::uint32_t i = 0; i < b.lines; ++i) {
      for (std::uint32_t k = 0; k < b.line; ++k) {
        brute = brute || in_a[b.base + i * b.stride + k];
        in_b[b.base + i * b.stride + k] = true;
      }
    }
    const auto r = overlap(a, b);
    ASSERT_EQ(r.has_value(), brute) << it;
    if (r) {
      ASSERT_LT(r->first, r->second);
      for (auto x = r->first; x < r->second; ++x) ASSERT_TRUE(in_a[x] && in_b[x]) << it;
    }
  }
}
