// The bare-metal DMA: synchronous copies, 1D and 2D, any alignment; split transfers on it.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <ctile/hal/baremetal.hpp>
#include <ctile/schedule/dma_split.hpp>

using namespace ctile::hal;
using ctile::schedule::dma_transfer;
using ctile::schedule::dma_transfer_group;

TEST(BaremetalDma, OneDimensionalAnyAlignment) {
  std::vector<std::uint8_t> l2(4096), l1(4096);
  for (std::size_t i = 0; i < l2.size(); ++i) l2[i] = static_cast<std::uint8_t>(i * 13 + 5);
  baremetal_dma dma;
  baremetal_dma::handle h;
  for (std::uint32_t a : {0u, 1u, 2u, 3u, 4u})
    for (std::uint32_t b : {0u, 1u, 3u, 4u})
      for (std::uint32_t n : {0u, 1u, 3u, 4u, 5u, 64u, 1001u}) {
        std::fill(l1.begin(), l1.end(), 0);
        dma.copy_1d(dma_dir::l2_to_l1, l1.data() + a, l2.data() + b, n, h);
        dma.wait(h);
        for (std::uint32_t i = 0; i < n; ++i) ASSERT_EQ(l1[a + i], l2[b + i]);
        ASSERT_EQ(l1[a + n], 0);
        if (a > 0) {
          ASSERT_EQ(l1[a - 1], 0);
        }
      }
}

TEST(BaremetalDma, TwoDimensionalBothWays) {
  std::vector<std::uint8_t> l2(8192, 0), l1(2048, 0), back(8192, 0);
  for (std::size_t i = 0; i < l2.size(); ++i) l2[i] = static_cast<std::uint8_t>(i * 7 + 1);
  baremetal_dma dma;
  baremetal_dma::handle h;
  dma.copy_2d(dma_dir::l2_to_l1, l1.data(), l2.data() + 3, 12 * 37, 37, 101, h);
  for (int line = 0; line < 12; ++line)
    for (int k = 0; k < 37; ++k) ASSERT_EQ(l1[line * 37 + k], l2[3 + line * 101 + k]);
  dma.copy_2d(dma_dir::l1_to_l2, l1.data(), back.data(), 12 * 37, 37, 50, h);
  for (int line = 0; line < 12; ++line)
    for (int k = 0; k < 50; ++k)
      ASSERT_EQ(back[line * 50 + k], k < 37 ? l1[line * 37 + k] : 0) << line << " " << k;
}

TEST(BaremetalDma, SplitTransferGroup) {
  std::vector<std::uint8_t> l2(200000), l1(100000);
  for (std::size_t i = 0; i < l2.size(); ++i) l2[i] = static_cast<std::uint8_t>(i ^ (i >> 8));
  baremetal_dma dma;
  dma_transfer_group<dma_transfer::strided(dma_dir::l2_to_l1, 90, 1000, 2000), baremetal_dma> g;
  static_assert(decltype(g)::commands() == 3);  // 32 lines of 1000 B per command
  g.start(dma, l1.data(), l2.data());
  g.wait(dma);
  for (int line = 0; line < 90; ++line)
    for (int k = 0; k < 1000; ++k) ASSERT_EQ(l1[line * 1000 + k], l2[line * 2000 + k]);
}

static_assert(dma_engine<baremetal_dma>);
