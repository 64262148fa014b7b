// The reference on small cases computed by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include <ctile/ctile.hpp>
#include <ctile/reference/reference.hpp>
#include <random>
#include <vector>

namespace {

using namespace ctile;
using reference::values;

layer inferred(std::vector<layer> ls) {
  EXPECT_TRUE(infer(ls).ok());
  return ls.back();
}

TEST(Requant, ExactDivisionByAnyDivisor) {
  // floor(t * m / d) with d = 2^24 - 1, where a shift by 24 would be off by one.
  const requant q{1, 16777215, 0, 255};
  EXPECT_EQ(apply(q, 16777215), 1);
  EXPECT_EQ(apply(q, 16777214), 0);
  // t * m needs 64 bits: 3e9 does not fit int32.
  const requant big{3, 1LL << 32, 0, 255};
  EXPECT_EQ(apply(big, 1'000'000'000), 0);         // 3e9 / 4294967296 = 0.69
  EXPECT_EQ(apply(big, 2'000'000'000), 1);         // 6e9 / 2^32 = 1.39
  EXPECT_EQ(apply(q, -5), 0);                      // ReLU
  EXPECT_EQ(apply(requant{1, 1, 0, 15}, 40), 15);  // 4-bit clip
  EXPECT_EQ(requant({1, 1, 0, 15}).bits(), 4);
  EXPECT_EQ(floor_div(-7, 2), -4);
  EXPECT_EQ(floor_div(7, 2), 3);
}

TEST(Reference, Conv3x3WithPaddingBatchnormAndRequant) {
  // 3x3 single-channel input, 3x3 kernel of ones except a -1 centre, same padding.
  const layer l = inferred({input(3, 3, 1), conv2d(1, 3).same().bn().requantized(3, 2)});
  const std::int8_t w[9] = {1, 1, 1, 1, -1, 1, 1, 1, 1};
  const std::int32_t kappa[1] = {2};
  const std::int32_t lambda[1] = {-10};
  const values x = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const values y = reference::run_layer(l, {w, {}, kappa, lambda}, x);
  // Top-left output: window {1,2,4,5} with the centre tap on 1: acc = -1 + 2 + 4 + 5 = 10;
  // t = 2*10 - 10 = 10; 10*3/2 = 15.
  // Centre: sum of all = 45, minus 2*5 -> 35; t = 60; 60*3/2 = 90.
  // Bottom-right: {5,6,8,9}, acc = 5 + 6 + 8 - 9 = 10; t = 10; 10*3/2 = 15.
  ASSERT_EQ(y.size(), 9u);
  EXPECT_EQ(y[0], 15);
  EXPECT_EQ(y[4], 90);
  EXPECT_EQ(y[8], 15);
  // Top-centre: {1,2,3,4,5,6} with -1 on 2: 1 - 2 + 3 + 4 + 5 + 6 = 17; t = 24; 36.
  EXPECT_EQ(y[1], 36);
  // Negative t is clipped to 0 (ReLU): kappa -1.
  const std::int32_t neg[1] = {-1};
  EXPECT_EQ(reference::run_layer(l, {w, {}, neg, lambda}, x)[4], 0);
}

TEST(Reference, ConvMultiChannelStridedAsymmetricPadWithBias) {
  // 2x4x2 input, 2 filters of 1x2, stride (1, 2), padding left 1.
  const layer l =
      inferred({input(2, 4, 2), conv2d(2, 1, 2).strides(1, 2).padded(0, 0, 1, 0).with_bias()});
  EXPECT_EQ(l.out, (shape{2, 2, 2}));
  // weights [co][ky][kx][ci]
  const std::int8_t w[2 * 2 * 2] = {1,  0, 0, 1,  // co0: x[kx=0].c0 + x[kx=1].c1
                                    -1, 2, 3, -4};
  const std::int32_t bias[2] = {100, 50};
  // x[y][x][c]
  const values x = {1, 2,  3,  4,  5,  6,  7,  8,  //
                    9, 10, 11, 12, 13, 14, 15, 16};
  const values y = reference::run_layer(l, {w, bias}, x);
  // Output (0,0): window x = -1 (pad), 0. co0 = 0 + x(0,0).c1 = 2 -> 102.
  // co1 = 0 (pad) + 3 * x(0,0).c0 - 4 * x(0,0).c1 = 3 - 8 = -5 -> 45.
  EXPECT_EQ(y[0], 102);
  EXPECT_EQ(y[1], 45);
  // Output (1,1): window x = 1, 2 of row 1. co0 = x(1,1).c0 + x(1,2).c1 = 11 + 14 = 25 -> 125
  // co1 = -11 + 2*12 + 3*13 - 4*14 = -11 + 24 + 39 - 56 = -4 -> 46.
  EXPECT_EQ(y[6], 125);
  EXPECT_EQ(y[7], 46);
}

TEST(Reference, DepthwisePerChannelFilters) {
  const layer l = inferred({input(2, 2, 2), depthwise(2).requantized(1, 1)});
  EXPECT_EQ(l.out, (shape{1, 1, 2}));
  const std::int8_t w[2 * 4] = {1, 1, 1, 1, 1, -1, 0, 2};  // [c][ky][kx]
  const values x = {1, 10, 2, 20, 3, 30, 4, 40};
  const values y = reference::run_layer(l, {w}, x);
  EXPECT_EQ(y[0], 1 + 2 + 3 + 4);
  EXPECT_EQ(y[1], 10 - 20 + 0 + 80);
}

TEST(Reference, LinearRawAndRequantized) {
  const std::int8_t w[2 * 4] = {1, 2, 3, 4, -1, -1, -1, -1};
  const std::int32_t bias[2] = {-5, 3};
  const values x = {1, 1, 2, 2};
  const layer raw = inferred({input(1, 2, 2), linear(2).with_bias().raw()});
  const values r = reference::run_layer(raw, {w, bias}, x);
  EXPECT_EQ(r[0], 1 + 2 + 6 + 8 - 5);
  EXPECT_EQ(r[1], -6 + 3);
  const layer rq = inferred({input(1, 2, 2), linear(2).with_bias().requantized(1, 4)});
  const values q = reference::run_layer(rq, {w, bias}, x);
  EXPECT_EQ(q[0], 12 / 4);
  EXPECT_EQ(q[1], 0);
}

TEST(Reference, MaxAndAveragePools) {
  const values x = {1, 9, 3, 4, 5, 6, 7, 8, 2, 250, 11, 12, 13, 14, 15, 16};  // 4x4x1
  const layer mp = inferred({input(4, 4, 1), maxpool(2)});
  EXPECT_EQ(reference::run_layer(mp, {}, x), (values{9, 8, 250, 16}));
  const layer ap = inferred({input(4, 4, 1), avgpool(2)});
  EXPECT_EQ(reference::run_layer(ap, {}, x),
            (values{(1 + 9 + 5 + 6) / 4, (3 + 4 + 7 + 8) / 4, (2 + 250 + 13 + 14) / 4,
                    (11 + 12 + 15 + 16) / 4}));
  // Global average with NEMO-style constants: floor(sum * 3 / 64).
  const layer gp = inferred({input(4, 4, 1), global_avgpool().requantized(3, 64)});
  std::int64_t sum = 0;
  for (auto v : x) sum += v;
  EXPECT_EQ(reference::run_layer(gp, {}, x), (values{static_cast<int>(sum * 3 / 64)}));
  // Padded max pool: padding never wins.
  const layer pp = inferred({input(2, 2, 1), maxpool(2).strides(1).padded(1, 0, 1, 0)});
  EXPECT_EQ(reference::run_layer(pp, {}, values{5, 1, 2, 3}), (values{5, 5, 5, 5}));
}

TEST(Reference, ResidualAddWithPerInputRescale) {
  const layer l = inferred({input(1, 1, 3), conv2d(3, 1).named("a"),
                            add("a").scaled(0, {3, 1, 1, true}).scaled(1, {1, 0, 2, false})});
  const values a = {10, 100, 200};
  const values b = {8, 255, 3};
  const values y = reference::run_layer(l, {}, a, b);
  // s0 = clip((x*3 + 1) >> 1), s1 = b >> 2; y = clip(s0 + s1).
  EXPECT_EQ(y[0], 15 + 2);
  EXPECT_EQ(y[1], 150 + 63);  // (100 * 3 + 1) >> 1 = 150, 255 >> 2 = 63
  EXPECT_EQ(y[2], 255);
}

TEST(Reference, DilatedConvHandComputed) {
  // 1-D: a 1x7 input, 3 taps two apart (window 5), padding 2 each side, stride 1.
  const layer l =
      inferred({input(1, 7, 1), conv2d(1, 1, 3).dilated(2).padded(0, 0, 2, 2).requantized(1, 1)});
  EXPECT_EQ(l.window(), (extent2{1, 5}));
  EXPECT_EQ(l.out, (shape{1, 7, 1}));
  const std::int8_t w[3] = {1, 10, 100};
  const values x = {1, 2, 3, 4, 5, 6, 7};
  const values y = reference::run_layer(l, {w}, x);
  // y[i] = x[i-2] + 10 x[i] + 100 x[i+2], zero outside 0..6 (then clipped to 255).
  EXPECT_EQ(y[0], 10 * 1 + 100 * 3 > 255 ? 255 : 10 * 1 + 100 * 3);
  EXPECT_EQ(y[4], 3 + 10 * 5 + 100 * 7 > 255 ? 255 : 3 + 10 * 5 + 100 * 7);
  const std::int8_t w2[3] = {1, 2, 3};
  const values y2 = reference::run_layer(l, {w2}, x);
  EXPECT_EQ(y2, (values{0 + 2 * 1 + 3 * 3, 2 * 2 + 3 * 4, 1 + 2 * 3 + 3 * 5, 2 + 2 * 4 + 3 * 6,
                        3 + 2 * 5 + 3 * 7, 4 + 2 * 6, 5 + 2 * 7}));
}

// A dilated convolution is the dense convolution whose kernel has d - 1 zeros stuffed between
// taps: checks the reference's dilation against its dense path, for conv and depthwise.
TEST(Reference, DilatedConvEqualsDenseConvWithZeroStuffedKernel) {
  std::uint32_t seed = 12345;
  const auto next = [&](int lo, int hi) {
    seed = seed * 1664525u + 1013904223u;
    return lo + static_cast<int>((seed >> 8) % static_cast<std::uint32_t>(hi - lo + 1));
  };
  for (int trial = 0; trial < 60; ++trial) {
    const bool dw = trial % 3 == 2;
    const int kh = next(1, 3), kw = next(1, 3), dh = next(1, 4), dw_ = next(1, 4);
    const int sh = next(1, 3), sw = next(1, 3);
    const padding pad{next(0, 5), next(0, 5), next(0, 5), next(0, 5)};
    const int c = next(1, 3), co = dw ? c : next(1, 3);
    const int eh = (kh - 1) * dh + 1, ew = (kw - 1) * dw_ + 1;
    const int h = std::max(1, eh - pad.t - pad.b) + next(0, 4);
    const int w = std::max(1, ew - pad.l - pad.r) + next(0, 4);
    const layer base = dw ? depthwise(kh, kw) : conv2d(co, kh, kw);
    const layer l = inferred({input(h, w, c), base.dilated(dh, dw_)
                                                  .strides(sh, sw)
                                                  .padded(pad.t, pad.b, pad.l, pad.r)
                                                  .with_bias()
                                                  .requantized(1, 3)});
    const layer dense = inferred({input(h, w, c), (dw ? depthwise(eh, ew) : conv2d(co, eh, ew))
                                                      .strides(sh, sw)
                                                      .padded(pad.t, pad.b, pad.l, pad.r)
                                                      .with_bias()
                                                      .requantized(1, 3)});
    ASSERT_EQ(l.out, dense.out);
    const int ci = dw ? 1 : c;
    std::vector<std::int8_t> wt(static_cast<std::size_t>(co * kh * kw * ci));
    for (auto& v : wt) v = static_cast<std::int8_t>(next(-128, 127));
    std::vector<std::int8_t> stuffed(static_cast<std::size_t>(co * eh * ew * ci), 0);
    for (int o = 0; o < co; ++o)
      for (int ky = 0; ky < kh; ++ky)
        for (int kx = 0; kx < kw; ++kx)
          for (int i = 0; i < ci; ++i)
            stuffed[static_cast<std::size_t>(((o * eh + ky * dh) * ew + kx * dw_) * ci + i)] =
                wt[static_cast<std::size_t>(((o * kh + ky) * kw + kx) * ci + i)];
    std::vector<std::int32_t> bias(static_cast<std::size_t>(co));
    for (auto& v : bias) v = next(-300, 300);
    values x(static_cast<std::size_t>(h * w * c));
    for (auto& v : x) v = next(0, 255);
    const values a = reference::run_layer(l, {wt, bias}, x);
    const values b = reference::run_layer(dense, {stuffed, bias}, x);
    ASSERT_EQ(a, b) << "trial " << trial;
  }
}

TEST(Reference, PaddingLargerThanKernelGivesBiasOnlyRows) {
  // 2x2 kernel, stride 2, pads 2 on every side: the outer ring of outputs reads only padding.
  const layer l = inferred({input(4, 4, 1), conv2d(1, 2).strides(2).padded(2).with_bias()});
  EXPECT_EQ(l.out, (shape{4, 4, 1}));
  const std::int8_t w[4] = {1, 1, 1, 1};
  const std::int32_t bias[1] = {7};
  values x(16);
  for (int i = 0; i < 16; ++i) x[static_cast<std::size_t>(i)] = i;
  const values y = reference::run_layer(l, {w, bias}, x);
  // Output (1,1) reads input rows/cols 0..1: 0 + 1 + 4 + 5 + 7.
  EXPECT_EQ(y[5], 17);
  EXPECT_EQ(y[10], 10 + 11 + 14 + 15 + 7);
  for (int i : {0, 1, 2, 3, 4, 7, 8, 11, 12, 13, 14, 15})
    EXPECT_EQ(y[static_cast<std::size_t>(i)], 7);
}

// ---- Signed and sub-byte ranges, sums wider than 8 bits.

TEST(Requant, SignedClipFloorsTowardsMinusInfinity) {
  // floor, not truncation: -5 / 4 = -1.25 -> -2 (truncation would give -1).
  EXPECT_EQ(apply(requant{1, 4, -8, 7}, -5), -2);
  EXPECT_EQ(apply(requant{1, 4, -8, 7}, -9), -3);
  EXPECT_EQ(apply(requant{1, 4, -2, 1}, -40), -2);  // signed 2-bit clip
  EXPECT_EQ(apply(requant{1, 4, -2, 1}, 40), 1);
  EXPECT_EQ(apply(requant{1, 1, 0, 3}, 40), 3);  // unsigned 2-bit clip
  EXPECT_EQ(requant({1, 1, -8, 7}).bits(), 4);
  EXPECT_EQ(signed_range(2), (value_range{-2, 1}));
  EXPECT_EQ(unsigned_range(4), (value_range{0, 15}));
  EXPECT_EQ((value_range{-128, 127}).bits(), 8);
  EXPECT_EQ((value_range{0, 358}).bits(), 9);
  EXPECT_FALSE((value_range{0, 358}).fits_8bit());
  EXPECT_FALSE((value_range{-1, 128}).fits_8bit());
  EXPECT_TRUE((value_range{-2, 1}).fits_8bit());
}

// An independent oracle for the signed-input property sweep: a plain int loop over a dense
// NCHW-free layout, written from the definition (no code shared with the reference).
struct plain_conv {
  int h, w, c, co, k, stride, pad;
  int oh() const { return (h + 2 * pad - k) / stride + 1; }
  int ow() const { return (w + 2 * pad - k) / stride + 1; }
  // out[y][x][o] = clip(floor(sum x * w * m / d), lo, hi)
  std::vector<int> run(const std::vector<int>& in, const std::vector<int>& wt, bool dw, int m,
                       int d, int lo, int hi) const {
    std::vector<int> out;
    for (int y = 0; y < oh(); ++y)
      for (int x = 0; x < ow(); ++x)
        for (int o = 0; o < co; ++o) {
          long long acc = 0;
          for (int i = 0; i < k; ++i)
            for (int j = 0; j < k; ++j) {
              const int iy = y * stride + i - pad, ix = x * stride + j - pad;
              if (iy < 0 || ix < 0 || iy >= h || ix >= w) continue;
              if (dw) {
                acc += static_cast<long long>(in[(iy * w + ix) * c + o]) * wt[(o * k + i) * k + j];
              } else {
                for (int ci = 0; ci < c; ++ci)
                  acc += static_cast<long long>(in[(iy * w + ix) * c + ci]) *
                         wt[((o * k + i) * k + j) * c + ci];
              }
            }
          long long num = acc * m;
          long long q = num / d;
          if (num % d != 0 && num < 0) --q;  // floor
          out.push_back(static_cast<int>(q < lo ? lo : (q > hi ? hi : q)));
        }
    return out;
  }
};

TEST(Reference, SignedAndSubByteInputsMatchAPlainLoop) {
  std::mt19937 rng(7);
  const value_range ins[] = {signed_range(8),   signed_range(2),   signed_range(4),
                             unsigned_range(2), unsigned_range(4), unsigned_range(8)};
  const value_range outs[] = {signed_range(2),   signed_range(4),   signed_range(8),
                              unsigned_range(2), unsigned_range(4), unsigned_range(8)};
  int cases = 0;
  for (const value_range in : ins)
    for (const value_range oc : outs)
      for (const bool dw : {false, true}) {
        const plain_conv g{5, 6, 3, dw ? 3 : 4, 3, 1 + cases % 2, 1};
        const layer decl = dw ? depthwise(3).strides(g.stride).padded(1)
                              : conv2d(g.co, 3).strides(g.stride).padded(1);
        const layer l = inferred(
            {input(g.h, g.w, g.c).range(in.lo, in.hi), decl.requantized(3, 16, oc.lo, oc.hi)});
        ASSERT_EQ(l.in_range, in);
        ASSERT_EQ(l.out_range, oc);
        std::uniform_int_distribution<int> xv(in.lo, in.hi), wv(-128, 127);
        std::vector<int> x(static_cast<std::size_t>(g.h * g.w * g.c)), w;
        for (auto& v : x) v = xv(rng);
        w.resize(static_cast<std::size_t>(l.weight_count()));
        for (auto& v : w) v = wv(rng);
        const std::vector<std::int8_t> w8(w.begin(), w.end());
        const values xs(x.begin(), x.end());
        const values y = reference::run_layer(l, {w8, {}, {}, {}}, xs);
        const std::vector<int> want = g.run(x, w, dw, 3, 16, oc.lo, oc.hi);
        ASSERT_EQ(y, values(want.begin(), want.end())) << "in " << in.lo << ".." << in.hi;
        ++cases;
      }
  EXPECT_EQ(cases, 72);
}

TEST(Reference, SignedLinearAndPools) {
  // Linear: signed inputs times signed weights, signed 4-bit output.
  const layer fc = inferred({input(1, 1, 3).signed_bits(8), linear(2).requantized(1, 8, -8, 7)});
  const std::int8_t w[6] = {1, -2, 3, -4, 5, -6};
  const values x = {-100, 50, -7};
  // o0 = -100 - 100 - 21 = -221 -> floor(-221 / 8) = -28 -> -8; o1 = 400 + 250 + 42 = 692 -> 7.
  EXPECT_EQ(reference::run_layer(fc, {w, {}, {}, {}}, x), (values{-8, 7}));
  const std::int8_t w2[6] = {1, 1, 1, 0, 0, 1};
  // o0 = -57 -> floor(-57 / 8) = -8 (-7.1 floors to -8); o1 = -7 -> -1.
  EXPECT_EQ(reference::run_layer(fc, {w2, {}, {}, {}}, x), (values{-8, -1}));
  // Max pool of negative values with padding: the padding (skipped) never wins.
  const layer pp =
      inferred({input(2, 2, 1).signed_bits(8), maxpool(2).strides(1).padded(1, 0, 1, 0)});
  EXPECT_EQ(pp.out_range, signed_range(8));
  EXPECT_EQ(reference::run_layer(pp, {}, values{-5, -1, -2, -3}), (values{-5, -1, -2, -1}));
  // Average of signed values floors: (-1 - 2 - 3 + 1) / 4 = -1.25 -> -2.
  const layer ap = inferred({input(2, 2, 1).signed_bits(4), avgpool(2).range(-8, 7)});
  EXPECT_EQ(reference::run_layer(ap, {}, values{-1, -2, -3, 1}), (values{-2}));
}

TEST(Reference, UnclippedResidualSumIsCarriedWide) {
  // Mul(32) -> Add -> Div(32) -> Floor, no Clip: 200 + 158 = 358 does not fit 8 bits.
  std::vector<layer> ls{input(1, 1, 2), conv2d(2, 1).named("a"), conv2d(2, 1).from("a"),
                        add("a")
                            .scaled(0, {32, 0, 0, false})
                            .scaled(1, {32, 0, 0, false})
                            .requantized(1, 32)
                            .unclipped()};
  ASSERT_TRUE(infer(ls).ok());
  EXPECT_EQ(ls[3].out_range, (value_range{0, 510}));
  const values a = {200, 7}, b = {158, 9};
  EXPECT_EQ(reference::run_layer(ls[3], {}, a, b), (values{358, 16}));
  // On request, DORY's saturation to the container.
  ls[3] = ls[3].saturating();
  ASSERT_TRUE(infer(ls).ok());
  EXPECT_TRUE(ls[3].saturated);
  EXPECT_EQ(ls[3].out_range, (value_range{0, 255}));
  EXPECT_EQ(reference::run_layer(ls[3], {}, a, b), (values{255, 16}));
  // The per-layer report counts the values saturation changed: 358 and 300, not 16 or 255.
  const std::int8_t one[4] = {1, 0, 0, 1};
  const std::vector<layer_params> ps{{}, {one}, {one}, {}};
  const values x = {200, 7};
  std::vector<values> outs = reference::run(ls, ps, x);
  outs[2] = {158, 9};  // as if the second conv had produced these
  EXPECT_EQ(reference::saturation_counts(ls, ps, outs), (std::vector<std::int64_t>{0, 0, 0, 1}));
  outs[1] = {142, 255};  // sums 300 and 264: both saturate
  EXPECT_EQ(reference::saturation_counts(ls, ps, outs)[3], 2);
}

}  // namespace
