// The portable backend against each instruction's definition, written out here lane by lane
// from the CV32E40P manual, over every byte pair of a lane and on edge words.
#include <gtest/gtest.h>

#include <cstdint>
#include <ctile/kernels/arch/portable.hpp>
#include <random>

namespace {

namespace p = ctile::kernels::arch::portable;

// Independent definitions: lane i of a word, as unsigned or two's complement signed.
std::int64_t lane_u(std::uint32_t w, int i) {
  return (w >> (8 * i)) % 256u;
}
std::int64_t lane_s(std::uint32_t w, int i) {
  const std::int64_t u = lane_u(w, i);
  return u >= 128 ? u - 256 : u;
}
std::int32_t wrap32(std::int64_t v) {
  std::uint64_t u = static_cast<std::uint64_t>(v) & 0xFFFFFFFFull;
  return u >= 0x80000000ull
             ? static_cast<std::int32_t>(static_cast<std::int64_t>(u) - 0x100000000ll)
             : static_cast<std::int32_t>(u);
}

const std::uint32_t edges[] = {0u,          1u,          0x7Fu,       0x80u,
                               0xFFu,       0x7F7F7F7Fu, 0x80808080u, 0xFFFFFFFFu,
                               0x01FF807Fu, 0x807F01FFu, 0x00FF00FFu, 0x12345678u};
const std::int32_t accs[] = {0, 1, -1, 2147483647, -2147483647 - 1, 1000000, -123456};

TEST(Portable, SdotuspEveryLanePair) {
  for (std::uint32_t x = 0; x < 256; ++x)
    for (std::uint32_t y = 0; y < 256; ++y)
      for (int lane = 0; lane < 4; ++lane) {
        const std::uint32_t a = x << (8 * lane), b = y << (8 * lane);
        const std::int64_t want =
            static_cast<std::int64_t>(x) * (y >= 128 ? std::int64_t(y) - 256 : y);
        ASSERT_EQ(p::sdotusp4(a, b, 0), want) << x << " " << y;
        ASSERT_EQ(p::sdotsp4(a, b, 0),
                  (x >= 128 ? std::int64_t(x) - 256 : x) * (y >= 128 ? std::int64_t(y) - 256 : y));
      }
}

TEST(Portable, DotsOnEdgeWordsWrapAt32Bits) {
  for (auto a : edges)
    for (auto b : edges)
      for (auto acc : accs) {
        std::int64_t us = acc, ss = acc;
        for (int i = 0; i < 4; ++i) {
          us += lane_u(a, i) * lane_s(b, i);
          ss += lane_s(a, i) * lane_s(b, i);
        }
        EXPECT_EQ(p::sdotusp4(a, b, acc), wrap32(us));
        EXPECT_EQ(p::sdotsp4(a, b, acc), wrap32(ss));
      }
  // The extreme lane products: 255 * -128 four times, 255 * 127 four times.
  EXPECT_EQ(p::sdotusp4(0xFFFFFFFFu, 0x80808080u, 0), -4 * 255 * 128);
  EXPECT_EQ(p::sdotusp4(0xFFFFFFFFu, 0x7F7F7F7Fu, 0), 4 * 255 * 127);
  EXPECT_EQ(p::sdotsp4(0x80808080u, 0x80808080u, 0), 4 * 128 * 128);
  EXPECT_EQ(p::sdotusp4(0xFFFFFFFFu, 0x7F7F7F7Fu, 2147483647),
            wrap32(2147483647ll + 4 * 255 * 127));
}

TEST(Portable, MaxuPackClip) {
  std::mt19937 rng(7);
  for (int n = 0; n < 20000; ++n) {
    const std::uint32_t a = rng(), b = rng();
    std::uint32_t want = 0;
    for (int i = 0; i < 4; ++i)
      want |= static_cast<std::uint32_t>(std::max(lane_u(a, i), lane_u(b, i))) << (8 * i);
    ASSERT_EQ(p::maxu4(a, b), want);
    ASSERT_EQ(p::pack4(lane_u(a, 0), lane_u(a, 1), lane_u(a, 2), lane_u(a, 3)), a);
  }
  for (auto a : edges)
    for (auto b : edges) {
      std::uint32_t want = 0;
      for (int i = 0; i < 4; ++i)
        want |= static_cast<std::uint32_t>(std::max(lane_u(a, i), lane_u(b, i))) << (8 * i);
      EXPECT_EQ(p::maxu4(a, b), want);
    }
  // pack4 keeps only the low byte of each argument.
  EXPECT_EQ(p::pack4(0x1FFu, 0x100u, 0x80u, 0x7Fu), 0x7F8000FFu);
  // clipu_r: 0 when x <= 0, hi when x >= hi.
  const std::int32_t xs[] = {-2147483647 - 1, -256, -1, 0, 1, 127, 254, 255, 256, 2147483647};
  for (auto x : xs)
    for (std::int32_t hi : {0, 1, 15, 255, 65535, 2147483647}) {
      const std::int32_t want = x <= 0 ? 0 : (x >= hi ? hi : x);
      EXPECT_EQ(p::clipu_r(x, hi), want);
    }
  // clipu_bits(x, p): the GAP SDK's __CLIPU(x, p), bound 2^p - 1.
  EXPECT_EQ(p::clipu_bits(300, 8), 255);
  EXPECT_EQ(p::clipu_bits(-5, 8), 0);
  EXPECT_EQ(p::clipu_bits(200, 8), 200);
  EXPECT_EQ(p::clipu_bits(20, 4), 15);
  EXPECT_EQ(p::clipu_bits(7, 0), 0);
  EXPECT_EQ(p::clipu_bits(2147483647, 31), 2147483647);
  EXPECT_EQ(p::max(-3, 2), 2);
  EXPECT_EQ(p::min(-3, 2), -3);
  std::uint8_t buf[7] = {1, 2, 3, 4, 5, 6, 7};
  EXPECT_EQ(p::load4(buf + 1), 0x05040302u);  // misaligned, little-endian
  p::store4(buf + 3, 0xAABBCCDDu);
  EXPECT_EQ(buf[3], 0xDD);
  EXPECT_EQ(buf[6], 0xAA);
  EXPECT_EQ(buf[2], 3);
}

// The same functions are usable at compile time.
static_assert(p::sdotusp4(0x000000FFu, 0x00000080u, 0) == -255 * 128);
static_assert(p::maxu4(0x00FF0102u, 0x01000201u) == 0x01FF0202u);

}  // namespace
