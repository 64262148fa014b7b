// Splitting of DMA transfers to the DMA's limits: every command fits, and the commands move
// each byte of the transfer exactly once, between the right L1 and L2 offsets.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include <ctile/schedule/dma_split.hpp>

using ctile::hal::dma_dir;
using ctile::hal::dma_limits;
using ctile::hal::gap8_dma_limits;
using ctile::schedule::dma_piece;
using ctile::schedule::dma_split;
using ctile::schedule::dma_transfer;

namespace {

constexpr auto in = dma_dir::l2_to_l1;
constexpr auto out = dma_dir::l1_to_l2;

std::vector<dma_piece> pieces_of(const dma_transfer& t, const dma_limits& l) {
  std::vector<dma_piece> v;
  ctile::schedule::for_each_piece(t, l, [&](const dma_piece& p) { v.push_back(p); });
  return v;
}

// Expands the commands byte by byte and checks, against the transfer's own definition (L1 byte
// k of line i is L2 byte i * stride + k % line), that each L1 byte is moved exactly once.
void expect_exact_cover(const dma_transfer& t, const dma_limits& l) {
  const auto ps = pieces_of(t, l);
  const auto total = static_cast<std::size_t>(t.bytes());
  std::vector<int> seen(total, 0);
  for (const auto& p : ps) {
    ASSERT_TRUE(ctile::schedule::fits(p, l))
        << "piece at L1 +" << p.l1_offset << " of " << p.bytes << " B";
    const std::uint32_t line = p.is_2d() ? p.line_bytes : p.bytes;
    const std::uint32_t stride = p.is_2d() ? p.l2_stride : p.bytes;
    for (std::uint32_t k = 0; k < p.bytes; ++k) {
      const std::uint64_t l1 = std::uint64_t{p.l1_offset} + k;
      const std::uint64_t l2 =
          std::uint64_t{p.l2_offset} + std::uint64_t{k / line} * stride + k % line;
      ASSERT_LT(l1, total);
      const std::uint64_t want = l1 / t.line_bytes * t.l2_stride + l1 % t.line_bytes;
      ASSERT_EQ(l2, want) << "L1 byte " << l1;
      ++seen[static_cast<std::size_t>(l1)];
    }
  }
  for (std::size_t i = 0; i < total; ++i) ASSERT_EQ(seen[i], 1) << "L1 byte " << i;
}

}  // namespace

TEST(DmaSplit, ContiguousSizesAroundTheLimits) {
  for (std::uint32_t n : {1u, 2u, 4096u, 32767u, 32768u, 32769u, 65535u, 65536u, 65537u, 98304u,
                          100000u, 512u * 1024u}) {
    const auto t = dma_transfer::contiguous(in, n);
    const auto ps = pieces_of(t, gap8_dma_limits);
    EXPECT_EQ(ps.size(), (n + 32767u) / 32768u) << n;
    for (const auto& p : ps) {
      EXPECT_LE(p.bytes, 32768u);
      EXPECT_FALSE(p.is_2d());
    }
    expect_exact_cover(t, gap8_dma_limits);
  }
}

TEST(DmaSplit, EmptyTransferHasNoCommand) {
  EXPECT_EQ(ctile::schedule::piece_count(dma_transfer::contiguous(in, 0), gap8_dma_limits), 0u);
  EXPECT_EQ(ctile::schedule::piece_count(dma_transfer::strided(in, 0, 16, 32), gap8_dma_limits),
            0u);
}

TEST(DmaSplit, SafeMaximumIsConfigurable) {
  constexpr dma_limits l15{.max_command_bytes = 32767};
  const auto ps = pieces_of(dma_transfer::contiguous(out, 65535), l15);
  ASSERT_EQ(ps.size(), 3u);
  EXPECT_EQ(ps[0].bytes, 32767u);
  EXPECT_EQ(ps[1].bytes, 32767u);
  EXPECT_EQ(ps[2].bytes, 1u);
  EXPECT_EQ(ps[2].l1_offset, 65534u);
  constexpr dma_limits full{.max_command_bytes = 65535};
  EXPECT_EQ(pieces_of(dma_transfer::contiguous(out, 65535), full).size(), 1u);
  EXPECT_EQ(pieces_of(dma_transfer::contiguous(out, 65536), full).size(), 2u);
}

TEST(DmaSplit, StridedGroupsWholeLinesPerCommand) {
  // 100 lines of 400 B: 32768 / 400 = 81 lines fit in one command.
  const auto t = dma_transfer::strided(in, 100, 400, 1000);
  const auto ps = pieces_of(t, gap8_dma_limits);
  ASSERT_EQ(ps.size(), 2u);
  EXPECT_TRUE(ps[0].is_2d());
  EXPECT_EQ(ps[0].bytes, 81u * 400u);
  EXPECT_EQ(ps[0].l2_stride, 1000u);
  EXPECT_EQ(ps[1].bytes, 19u * 400u);
  EXPECT_EQ(ps[1].l1_offset, 81u * 400u);
  EXPECT_EQ(ps[1].l2_offset, 81u * 1000u);
  expect_exact_cover(t, gap8_dma_limits);
}

TEST(DmaSplit, LineAndStrideLimitsOf2d) {
  // Lines of 32767 B at the 2D line limit: only one line fits in 32 KiB, so each line is its
  // own 1D command.
  {
    const auto t = dma_transfer::strided(in, 3, 32767, 32767 + 16);
    EXPECT_EQ(pieces_of(t, gap8_dma_limits).size(), 3u);
    expect_exact_cover(t, gap8_dma_limits);
  }
  // Line over the 2D line limit: lines become 1D commands.
  {
    const auto t = dma_transfer::strided(out, 3, 32768, 40000);
    const auto ps = pieces_of(t, gap8_dma_limits);
    EXPECT_EQ(ps.size(), 3u);
    for (const auto& p : ps) EXPECT_FALSE(p.is_2d());
    expect_exact_cover(t, gap8_dma_limits);
  }
  // Lines longer than the safe maximum are split within the line.
  {
    const auto t = dma_transfer::strided(in, 2, 50000, 60000);
    EXPECT_EQ(pieces_of(t, gap8_dma_limits).size(), 4u);
    expect_exact_cover(t, gap8_dma_limits);
  }
  // Stride at the limit: 2D; one over: 1D per line.
  {
    const auto at = pieces_of(dma_transfer::strided(in, 10, 16, 32767), gap8_dma_limits);
    ASSERT_EQ(at.size(), 1u);
    EXPECT_TRUE(at[0].is_2d());
    const auto over = pieces_of(dma_transfer::strided(in, 10, 16, 32768), gap8_dma_limits);
    EXPECT_EQ(over.size(), 10u);
    expect_exact_cover(dma_transfer::strided(in, 10, 16, 32768), gap8_dma_limits);
  }
  // An engine without 2D commands gets one command per line.
  constexpr dma_limits no2d{.has_2d = false};
  EXPECT_EQ(pieces_of(dma_transfer::strided(in, 7, 16, 64), no2d).size(), 7u);
  expect_exact_cover(dma_transfer::strided(in, 7, 16, 64), no2d);
}

TEST(DmaSplit, StrideEqualToLineIsContiguous) {
  const auto ps = pieces_of(dma_transfer::strided(in, 200, 300, 300), gap8_dma_limits);
  ASSERT_EQ(ps.size(), 2u);  // 60000 B as 1D commands
  EXPECT_FALSE(ps[0].is_2d());
  EXPECT_EQ(ps[0].bytes, 32768u);
}

TEST(DmaSplit, OverlappingReadsAllowedOverlappingWritesRejected) {
  // Reading overlapping windows (stride < line) is a legal gather; writing them is not.
  EXPECT_TRUE(dma_transfer::strided(in, 4, 100, 50).valid());
  EXPECT_FALSE(dma_transfer::strided(out, 4, 100, 50).valid());
  expect_exact_cover(dma_transfer::strided(in, 4, 100, 50), gap8_dma_limits);
  EXPECT_FALSE(dma_transfer::strided(in, 70000, 70000, 70000).valid());
}

TEST(DmaSplit, RandomTransfersAndLimits) {
  std::mt19937 rng(7);
  auto pick = [&](std::uint32_t lo, std::uint32_t hi) {
    return std::uniform_int_distribution<std::uint32_t>(lo, hi)(rng);
  };
  for (int it = 0; it < 300; ++it) {
    dma_limits l;
    l.max_command_bytes = pick(1, 4096);
    l.length_field_max = l.max_command_bytes + pick(0, 100);
    l.max_line_bytes = pick(1, 600);
    l.max_stride = pick(1, 900);
    l.has_2d = pick(0, 4) != 0;
    const auto line = pick(1, 700);
    const auto t = dma_transfer::strided(in, pick(1, 40), line,
                                         line + pick(0, 1000) - (pick(0, 3) == 0 ? line / 2 : 0));
    ASSERT_TRUE(l.valid());
    expect_exact_cover(t, l);
  }
}

// The compile-time split: counts known by hand, and the static_asserts of dma_split prove that
// every command fits and that the commands add up to the transfer.
static_assert(dma_split<dma_transfer::contiguous(in, 32768)>::size == 1);
static_assert(dma_split<dma_transfer::contiguous(in, 32769)>::size == 2);
static_assert(dma_split<dma_transfer::contiguous(in, 65535)>::size == 2);
static_assert(dma_split<dma_transfer::contiguous(in, 65535)>::pieces[1].bytes == 32767);
static_assert(dma_split<dma_transfer::strided(out, 100, 400, 1000)>::size == 2);
static_assert(dma_split<dma_transfer::strided(out, 3, 32768, 40000)>::size == 3);
static_assert(
    dma_split<dma_transfer::contiguous(in, 65535), dma_limits{.max_command_bytes = 32767}>::size ==
    3);

TEST(DmaSplit, CompileTimeSplitMatchesRunTimeSplit) {
  constexpr auto t = dma_transfer::strided(in, 300, 250, 1024);
  using s = dma_split<t>;
  const auto rt = pieces_of(t, gap8_dma_limits);
  ASSERT_EQ(rt.size(), s::size);
  for (std::size_t i = 0; i < s::size; ++i) EXPECT_EQ(rt[i], s::pieces[i]);
}
