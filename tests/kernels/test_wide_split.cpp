// The kernels of tiles with a 16-bit operand (wide.hpp) split a tile over the cluster's cores
// as the 8-bit kernels do: under each split (rows, columns, channels, a grid; a linear layer
// always by output channels) core i of 8 writes exactly its part of the output, the parts
// written as the split documents them (contiguous bands of ceil(n / parts)), and the cores'
// outputs together equal one core's run of the whole tile.
#include <gtest/gtest.h>

#include <cstring>
#include <ctile/kernels/kernels.hpp>
#include <string>
#include <vector>

namespace {

using namespace ctile;
using namespace ctile::kernels;

constexpr int H = 5, W = 6, C = 7, CI = 4, CORES = 8;
/// The variant of a loop nest whose tiles have a 16-bit operand (only the wide kernels).
constexpr kernel_variant kWide{-1, -1, -1, -1, -1, 1};

struct tile {
  std::vector<std::uint8_t> in, in2;
  std::vector<std::int8_t> w;
  std::vector<std::int32_t> bias;
  tile_args a;
};

tile make(kernel_kind k) {
  tile t;
  tile_args& a = t.a;
  a.h_out = H, a.w_out = W, a.c_out = C;
  a.h_in = H, a.w_in = W, a.c_in = C;
  int taps = 1;
  if (k == kernel_kind::conv) a.kh = a.kw = 3, a.h_in = H + 2, a.w_in = W + 2, a.c_in = CI;
  if (k == kernel_kind::pointwise) a.c_in = CI;
  if (k == kernel_kind::depthwise) a.kh = a.kw = 3, a.h_in = H + 2, a.w_in = W + 2;
  if (k == kernel_kind::linear) a.h_out = a.w_out = 1, a.h_in = a.w_in = 1, a.c_in = 20;
  taps = a.kh * a.kw;
  const int n_in = a.h_in * a.w_in * a.c_in;
  t.in.resize(2 * static_cast<std::size_t>(n_in));
  t.in2.resize(t.in.size());
  for (std::size_t i = 0; i < t.in.size(); ++i) {
    t.in[i] = static_cast<std::uint8_t>(i * 37 + 11);
    t.in2[i] = static_cast<std::uint8_t>(i * 53 + 3);
    if (i % 2 == 1) t.in[i] &= 3, t.in2[i] &= 3;  // u16 values up to 1023
  }
  const int per_out = k == kernel_kind::depthwise ? taps : taps * a.c_in;
  t.w.resize(static_cast<std::size_t>(C) * per_out);
  for (std::size_t i = 0; i < t.w.size(); ++i) t.w[i] = static_cast<std::int8_t>(i * 29 - 64);
  t.bias.assign(C, 100);
  a.in = t.in.data();
  a.in2 = k == kernel_kind::add ? t.in2.data() : nullptr;
  a.in_bytes = 2, a.in2_bytes = 2, a.out_bytes = 2;
  if (k == kernel_kind::conv || k == kernel_kind::pointwise || k == kernel_kind::depthwise ||
      k == kernel_kind::linear) {
    a.weights = t.w.data();
    a.bias = t.bias.data();
  }
  a.quant = plan_requant(requant{1, 8, 0, 65535}, {-(1 << 24), 1 << 24});
  a.scale0 = rescale{1, 0, 0, false}, a.scale1 = rescale{1, 0, 0, false};
  return t;
}

/// The output elements core `i` of `n` owns: contiguous bands of ceil(len / parts).
bool owns(core_split s, int i, int n, int y, int x, int c, bool linear) {
  const auto in_band = [](int v, int len, int parts, int part) {
    const int chunk = (len + parts - 1) / parts;
    return v >= part * chunk && v < (part + 1) * chunk && v < len;
  };
  if (linear) return in_band(c, C, n, i);
  switch (s.kind) {
    case split_kind::rows:
      return in_band(y, H, n, i);
    case split_kind::cols:
      return in_band(x, W, n, i);
    case split_kind::channels:
      return in_band(c, C, n, i);
    case split_kind::grid:
      return i < s.v * s.k && in_band(y, H, s.v, i / s.k) && in_band(c, C, s.k, i % s.k);
  }
  return false;
}

TEST(WideKernels, EachCoreWritesItsPartOfTheTile) {
  const kernel_kind kinds[] = {kernel_kind::conv,   kernel_kind::pointwise, kernel_kind::depthwise,
                               kernel_kind::linear, kernel_kind::maxpool,   kernel_kind::avgpool,
                               kernel_kind::add};
  const core_split splits[] = {{split_kind::rows, 1, 1},
                               {split_kind::cols, 1, 1},
                               {split_kind::channels, 1, 1},
                               {split_kind::grid, 4, 2},
                               {split_kind::grid, 2, 3}};
  for (kernel_kind k : kinds) {
    tile t = make(k);
    const bool linear = k == kernel_kind::linear;
    const int oh = t.a.h_out, ow = t.a.w_out, n = oh * ow * C;
    // One core, the whole tile.
    std::vector<std::uint16_t> whole(static_cast<std::size_t>(n), 0);
    t.a.out = whole.data();
    t.a.cores = 1, t.a.core = 0;
    run_as<kWide>(k, t.a, 0);
    for (core_split s : splits) {
      const std::string what = std::to_string(static_cast<int>(k)) + " split " +
                               std::to_string(static_cast<int>(s.kind)) + " " +
                               std::to_string(s.v) + "x" + std::to_string(s.k);
      t.a.cores = CORES, t.a.split = s;
      std::vector<int> writers(static_cast<std::size_t>(n), 0);
      for (int i = 0; i < CORES; ++i) {
        // Two runs on outputs filled with 0x0000 and 0xffff: an element the core leaves alone
        // keeps each fill, one it writes holds the same value in both.
        std::vector<std::uint16_t> a0(static_cast<std::size_t>(n), 0x0000);
        std::vector<std::uint16_t> a1(static_cast<std::size_t>(n), 0xffff);
        t.a.out = a0.data();
        run_as<kWide>(k, t.a, i);
        t.a.out = a1.data();
        run_as<kWide>(k, t.a, i);
        for (int y = 0; y < oh; ++y)
          for (int x = 0; x < ow; ++x)
            for (int c = 0; c < C; ++c) {
              const auto e = static_cast<std::size_t>((y * ow + x) * C + c);
              const bool wrote = a0[e] != 0x0000 || a1[e] != 0xffff;
              ASSERT_EQ(wrote, owns(s, i, CORES, y, x, c, linear))
                  << what << " core " << i << " y " << y << " x " << x << " c " << c;
              if (wrote) {
                ASSERT_EQ(a0[e], whole[e]) << what << " core " << i;
                ++writers[e];
              }
            }
      }
      for (int e = 0; e < n; ++e) ASSERT_EQ(writers[static_cast<std::size_t>(e)], 1) << what;
    }
  }
}

// Long reductions of the largest products a wide tile can hold (u16 65,535 or s16 -32,768
// times -128, and times 127): the sums leave 32 bits by far and must stay exact. A pointwise
// tile requantizes them by a power of two into an int32 output; a linear tile of a cut
// reduction carries them to the next K tile as 64-bit partial sums, compared byte by byte.
TEST(WideKernels, LongReductionsOfExtremeProductsStayExact) {
  for (const bool sgn : {false, true})
    for (const int wv : {-128, 127})
      for (const int n : {255, 256, 257, 1000, 3001}) {
        const std::int64_t x = sgn ? -32768 : 65535;
        const std::int64_t want = x * wv * n;
        std::vector<std::uint8_t> in(2 * static_cast<std::size_t>(n));
        for (std::size_t i = 0; i < in.size(); i += 2) {
          in[i] = static_cast<std::uint8_t>(x & 0xff);
          in[i + 1] = static_cast<std::uint8_t>((x >> 8) & 0xff);
        }
        const std::vector<std::int8_t> w(static_cast<std::size_t>(n), static_cast<std::int8_t>(wv));
        const std::string what = std::string(sgn ? "s16" : "u16") + " x " + std::to_string(wv) +
                                 ", " + std::to_string(n) + " terms";
        // Pointwise, one pixel, one channel: floor(sum / 2^12) as int32.
        tile_args a;
        a.h_in = a.w_in = a.h_out = a.w_out = 1, a.c_in = n, a.c_out = 1;
        a.in = in.data(), a.weights = w.data(), a.in_bytes = 2, a.in_signed = sgn;
        a.out_bytes = 4;
        a.quant = plan_requant(requant{1, 1 << 12, -(1 << 30), 1 << 30}, {-(1 << 30), 1 << 30});
        std::int32_t out = 0;
        a.out = &out;
        run_as<kWide>(kernel_kind::pointwise, a, 0);
        const std::int64_t q = want >= 0 ? want / 4096 : -((-want + 4095) / 4096);
        EXPECT_EQ(out, q) << "pointwise, " << what;
        // Linear, a first K tile of a cut reduction: the 64-bit partial sum.
        tile_args l = a;
        l.c_in = n, l.h_in = l.w_in = 1;
        std::vector<std::int32_t> partial(2, 0);
        l.partial = partial.data(), l.k_first = true, l.k_last = false;
        run_as<kWide>(kernel_kind::linear, l, 0);
        std::int64_t got = 0;
        std::memcpy(&got, partial.data(), 8);
        EXPECT_EQ(got, want) << "linear, " << what;
      }
}

// A 16-bit operand at an odd address (the kernels then assemble each element from two bytes)
// gives the same outputs as at an even one (one halfword load an element): every kind that
// reads a 16-bit input, both signednesses, the tile copied one byte further on.
TEST(WideKernels, OddAddressesGiveTheSameOutputs) {
  for (const kernel_kind k :
       {kernel_kind::conv, kernel_kind::pointwise, kernel_kind::depthwise, kernel_kind::linear,
        kernel_kind::maxpool, kernel_kind::avgpool, kernel_kind::add})
    for (const bool sgn : {false, true}) {
      tile t = make(k);
      if (k == kernel_kind::maxpool || k == kernel_kind::avgpool) t.a.kh = t.a.kw = 1;
      t.a.in_signed = sgn;
      const std::size_t n_out = static_cast<std::size_t>(t.a.h_out) * t.a.w_out * t.a.c_out * 2;
      std::vector<std::uint8_t> even(n_out, 0), odd(n_out, 0);
      t.a.out = even.data();
      run_as<kWide>(k, t.a, 0);
      std::vector<std::uint8_t> shifted(t.in.size() + 1);
      std::memcpy(shifted.data() + 1, t.in.data(), t.in.size());
      ASSERT_EQ(reinterpret_cast<std::uintptr_t>(t.in.data()) % 2, 0u);
      t.a.in = shifted.data() + 1;
      t.a.out = odd.data();
      run_as<kWide>(k, t.a, 0);
      EXPECT_EQ(odd, even) << "kind " << static_cast<int>(k) << (sgn ? " s16" : " u16");
      EXPECT_NE(even, std::vector<std::uint8_t>(n_out, 0)) << static_cast<int>(k);
    }
}

}  // namespace
