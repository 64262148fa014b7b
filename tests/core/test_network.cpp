// Shape inference, source resolution and data binding of declared networks.
#include <gtest/gtest.h>

#include <algorithm>
#include <ctile/ctile.hpp>
#include <vector>

namespace {

using namespace ctile;

using small = network<input(32, 32, 3),                                    //
                      conv2d(16, 3).same().bn().named("c1"),               //
                      maxpool(2).named("p1"),                              //
                      conv2d(16, 3, 3).strides(2).padded(1, 0, 1, 0),      //
                      depthwise(3).same().named("dw"),                     //
                      pointwise(16).named("pw"),                           //
                      conv2d(16, 1).strides(2).from("p1").named("short"),  //
                      add("pw").named("res"),                              //
                      global_avgpool(),                                    //
                      linear(10).raw().named("fc")>;

// Shapes are checked at compile time too: the type is usable in constant expressions.
static_assert(small::size == 10);
static_assert(small::layers[1].out == shape{32, 32, 16});
static_assert(small::layers[2].out == shape{16, 16, 16});
static_assert(small::index_of("res") == 7);
static_assert(small::output_shape == shape{1, 1, 10});

TEST(Network, InfersShapesLayerByLayer) {
  const auto& l = small::layers;
  EXPECT_EQ(l[0].out, (shape{32, 32, 3}));
  EXPECT_EQ(l[1].in, (shape{32, 32, 3}));
  EXPECT_EQ(l[1].out, (shape{32, 32, 16}));
  EXPECT_EQ(l[2].out, (shape{16, 16, 16}));
  // 3x3 stride 2 padded top/left only: (16 + 1 - 3) / 2 + 1 = 8.
  EXPECT_EQ(l[3].out, (shape{8, 8, 16}));
  EXPECT_EQ(l[4].out, (shape{8, 8, 16}));
  EXPECT_EQ(l[5].out, (shape{8, 8, 16}));
  // The shortcut reads p1 (16x16x16), 1x1 stride 2 -> 8x8x16.
  EXPECT_EQ(l[6].src[0], 2);
  EXPECT_EQ(l[6].out, (shape{8, 8, 16}));
  // The add takes the shortcut (previous layer) and pw (by name).
  EXPECT_EQ(l[7].src[0], 6);
  EXPECT_EQ(l[7].src[1], 5);
  EXPECT_EQ(l[8].kernel, (extent2{8, 8}));
  EXPECT_EQ(l[8].quant.d, 64);
  EXPECT_EQ(l[8].out, (shape{1, 1, 16}));
  EXPECT_EQ(l[9].out, (shape{1, 1, 10}));
  EXPECT_EQ(l[9].output(), output_kind::i32);
}

TEST(Network, CountsWeightsAndMacs) {
  const auto& l = small::layers;
  EXPECT_EQ(l[1].weight_count(), 16 * 3 * 3 * 3);
  EXPECT_EQ(l[1].macs(), 32 * 32 * 16 * 27);
  EXPECT_EQ(l[4].weight_count(), 16 * 9);
  EXPECT_EQ(l[9].weight_count(), 10 * 16);
  EXPECT_EQ(l[1].channel_params(), 16);
}

TEST(Network, ForEachLayerVisitsInOrderWithConstantIndices) {
  std::vector<int> seen;
  for_each_layer<small>([&](auto i) {
    static_assert(decltype(i)::value < small::size);
    constexpr const layer& l = small::layers[decltype(i)::value];
    seen.push_back(static_cast<int>(l.kind));
  });
  ASSERT_EQ(seen.size(), small::size);
  EXPECT_EQ(seen.front(), static_cast<int>(op::input));
  EXPECT_EQ(seen.back(), static_cast<int>(op::linear));
}

TEST(Network, RuntimeInferenceReportsTheFirstProblem) {
  std::vector<layer> ls{input(8, 8, 4), conv2d(8, 3).same(), conv2d(4, 3).expects_channels(4)};
  const diagnostic d = infer(ls);
  EXPECT_EQ(d.what, problem::input_channels);
  EXPECT_EQ(d.layer, 2);
  EXPECT_EQ(d.v[2], 4);  // expects
  EXPECT_EQ(d.v[4], 8);  // produced by layer 1

  std::vector<layer> big{input(4, 4, 1), conv2d(1, 5)};
  EXPECT_EQ(infer(big).what, problem::window_too_large);

  std::vector<layer> unknown{input(4, 4, 1), add("nowhere")};
  const auto u = infer(unknown);
  EXPECT_EQ(u.what, problem::unknown_source);
  EXPECT_EQ(u.other, name_t("nowhere"));

  std::vector<layer> shapes{input(4, 4, 2), conv2d(2, 1).named("a"), maxpool(2), add("a")};
  EXPECT_EQ(infer(shapes).what, problem::add_shapes_differ);

  std::vector<layer> raw{input(1, 1, 8), linear(4).raw(), linear(2)};
  EXPECT_EQ(infer(raw).what, problem::int32_output_consumed);

  std::vector<layer> dup{input(1, 1, 8), linear(4).named("x"), linear(2).named("x")};
  EXPECT_EQ(infer(dup).what, problem::duplicate_name);

  std::vector<layer> rq{input(1, 1, 8), linear(4).requantized(1, 0)};
  EXPECT_EQ(infer(rq).what, problem::bad_requant);

  std::vector<layer> dil{input(8, 8, 1), conv2d(1, 3).dilated(2, 0)};
  const auto dd = infer(dil);
  EXPECT_EQ(dd.what, problem::bad_dilation);
  EXPECT_EQ(dd.v[2], 2);
  EXPECT_EQ(dd.v[3], 0);
  std::vector<layer> pool_dil{input(8, 8, 1), maxpool(2).dilated(2)};
  EXPECT_EQ(infer(pool_dil).what, problem::bad_dilation);
  std::vector<layer> pool_pad{input(8, 8, 1), avgpool(2).padded(2)};
  EXPECT_EQ(infer(pool_pad).what, problem::padding_not_smaller_than_kernel);
  // The dilated window (3 - 1) * 4 + 1 = 9 does not fit 8 rows.
  std::vector<layer> wide{input(8, 8, 1), conv2d(1, 3).dilated(4)};
  const auto wd = infer(wide);
  EXPECT_EQ(wd.what, problem::window_too_large);
  EXPECT_EQ(wd.v[0], 9);
}

TEST(Network, DilationWidensTheWindowAndConvolutionsTakeAnyPadding) {
  // TCN style: a 1-D input of 256 steps, kernels of 3 taps at dilation 2, 4, 8 with causal
  // padding (k - 1) * d on the left.
  using tcn =
      network<input(1, 256, 4), conv2d(8, 1, 3).dilated(2).padded(0, 0, 4, 0),
              conv2d(8, 1, 3).dilated(4).padded(0, 0, 8, 0),
              depthwise(1, 5).dilated(1, 8).padded(0, 0, 32, 0), conv2d(8, 1, 3).dilated(8)>;
  EXPECT_EQ(tcn::layers[1].out, (shape{1, 256, 8}));
  EXPECT_EQ(tcn::layers[2].window(), (extent2{1, 9}));
  EXPECT_EQ(tcn::layers[3].out, (shape{1, 256, 8}));
  EXPECT_EQ(tcn::layers[4].out, (shape{1, 256 - 16, 8}));
  // Padding as large as the kernel or larger: 2x2 stride 2 with 2 on every side.
  using wide = network<input(6, 6, 1), conv2d(2, 2).strides(2).padded(2),
                       depthwise(3).dilated(2).padded(5, 4, 0, 6)>;
  EXPECT_EQ(wide::layers[1].out, (shape{5, 5, 2}));
  EXPECT_EQ(wide::layers[2].out, (shape{5 + 9 - 5 + 1, 5 + 6 - 5 + 1, 2}));
}

TEST(Network, OneDimensionalNetworksAreHeightOne) {
  using tcn = network<input(1, 100, 8), conv2d(16, 1, 5).padded(0, 0, 4, 0), maxpool(1, 2)>;
  EXPECT_EQ(tcn::layers[1].out, (shape{1, 100, 16}));
  EXPECT_EQ(tcn::layers[2].out, (shape{1, 50, 16}));
}

constexpr std::int8_t w1[2 * 1 * 1 * 3] = {1, 2, 3, 4, 5, 6};
constexpr std::int32_t k1[2] = {1, 1};
constexpr std::int32_t l1[2] = {0, 0};
using tiny = network<input(2, 2, 3), pointwise(2).bn()>;
constexpr tiny::params tiny_params{{{}, {w1, {}, k1, l1}}};
static_assert(verify_params<tiny, tiny_params>());

TEST(Network, ChecksBoundDataSizes) {
  EXPECT_TRUE(tiny::check(tiny_params).ok());
  tiny::params wrong = tiny_params;
  wrong[1].weights = std::span<const std::int8_t>(w1, 5);
  const auto r = tiny::check(wrong);
  EXPECT_EQ(r.what, params_problem::field::weights);
  EXPECT_EQ(r.layer, 1);
  EXPECT_EQ(r.expected, 6);
  EXPECT_EQ(r.got, 5);
}

// Range analysis: each tensor's range proven from the input's, the clips and the sums.
using signed_net = network<input(8, 8, 4).signed_bits(2),                 //
                           conv2d(8, 3).same().requantized(1, 8, -8, 7),  //
                           maxpool(2),                                    //
                           conv2d(8, 1).unsigned_bits(4).named("u4"),     //
                           avgpool(2).unclipped()>;
static_assert(signed_net::layers[0].out_range == value_range{-2, 1});
static_assert(signed_net::layers[1].in_range == value_range{-2, 1});
static_assert(signed_net::layers[1].out_range == value_range{-8, 7});
static_assert(signed_net::layers[2].out_range == value_range{-8, 7});  // a max keeps the range
static_assert(signed_net::layers[3].in_range == value_range{-8, 7});
static_assert(signed_net::layers[3].out_range == value_range{0, 15});
static_assert(signed_net::layers[4].out_range == value_range{0, 15});  // floor(4 * 15 / 4)

// A residual Mul(32) -> Add -> Div(32) -> Floor without Clip over two 8-bit inputs: 0..510.
using wide_sum = network<input(4, 4, 2), conv2d(2, 1).named("a"), conv2d(2, 1).named("b"),
                         add("a")
                             .scaled(0, {32, 0, 0, false})
                             .scaled(1, {32, 0, 0, false})
                             .requantized(1, 32)
                             .unclipped()>;
static_assert(wide_sum::layers[3].out_range == value_range{0, 510});
static_assert(!wide_sum::layers[3].out_range.fits_8bit());
// The same sum over two 7-bit inputs provably stays within 8 bits: 0..254.
using narrow_sum = network<input(4, 4, 2), conv2d(2, 1).unsigned_bits(7).named("a"),
                           conv2d(2, 1).unsigned_bits(7).named("b"),
                           add("a")
                               .scaled(0, {32, 0, 0, false})
                               .scaled(1, {32, 0, 0, false})
                               .requantized(1, 32)
                               .unclipped()>;
static_assert(narrow_sum::layers[3].out_range == value_range{0, 254});
static_assert(narrow_sum::layers[3].out_range.fits_8bit());
// Saturation on request clips only what provably exceeds the container.
using wide_saturated = network<input(4, 4, 2), conv2d(2, 1).named("a"), conv2d(2, 1).named("b"),
                               add("a")
                                   .scaled(0, {32, 0, 0, false})
                                   .scaled(1, {32, 0, 0, false})
                                   .requantized(1, 32)
                                   .unclipped()
                                   .saturating()>;
static_assert(wide_saturated::layers[3].saturated);
static_assert(wide_saturated::layers[3].out_range == value_range{0, 255});
using narrow_saturated = network<input(4, 4, 2), conv2d(2, 1).unsigned_bits(7).named("a"),
                                 conv2d(2, 1).unsigned_bits(7).named("b"),
                                 add("a").requantized(1, 1).unclipped().saturating()>;
static_assert(!narrow_saturated::layers[3].saturated);
static_assert(narrow_saturated::layers[3].out_range == value_range{0, 254});
// A signed sum saturates to -128..127.
using signed_saturated =
    network<input(4, 4, 2).signed_bits(8), conv2d(2, 1).signed_bits(8).named("a"),
            add(0, 1).requantized(1, 1).unclipped().saturating()>;
static_assert(signed_saturated::layers[2].out_range == value_range{-128, 127});

TEST(Network, RangesOfSignedAndSubByteTensors) {
  // Signed inputs widen an unclipped add's range below zero; a clip bounds it.
  std::vector<layer> ls{input(2, 2, 1).signed_bits(4), conv2d(1, 1).signed_bits(4).named("a"),
                        add(0, 1).requantized(1, 1).unclipped(),
                        add(0, 1).requantized(1, 2).range(-3, 3)};
  ASSERT_TRUE(infer(ls).ok());
  EXPECT_EQ(ls[2].out_range, (value_range{-16, 14}));
  EXPECT_EQ(ls[3].out_range, (value_range{-3, 3}));
  // A raw classifier's range is int32's.
  std::vector<layer> fc{input(1, 1, 4), linear(3).raw()};
  ASSERT_TRUE(infer(fc).ok());
  EXPECT_EQ(fc[1].out_range, no_clip);
}

TEST(Network, RangesThatDoNotFitAnEightBitContainerAreErrors) {
  std::vector<layer> in{input(2, 2, 1).range(0, 300), conv2d(1, 1)};
  auto d = infer(in);
  EXPECT_EQ(d.what, problem::bad_input_range);
  EXPECT_EQ(d.v[1], 300);
  std::vector<layer> both{input(2, 2, 1), conv2d(1, 1).range(-1, 200)};
  EXPECT_EQ(infer(both).what, problem::bad_requant);
  // A weighted layer's unclipped range would depend on its data: refused.
  std::vector<layer> conv{input(2, 2, 1), conv2d(1, 1).unclipped()};
  d = infer(conv);
  EXPECT_EQ(d.what, problem::bad_requant);
  EXPECT_EQ(d.layer, 1);
  std::vector<layer> ok{input(2, 2, 1).range(-128, 127), conv2d(1, 1).range(-128, 127)};
  EXPECT_TRUE(infer(ok).ok());
}

}  // namespace

namespace {

// TensorFlow's SAME padding as its documentation states it (tf.nn convolution, "SAME"
// padding): pad_along = max(k - s, 0) when in % s == 0, else max(k - in % s, 0);
// pad_before = pad_along / 2, pad_after = pad_along - pad_before; out = ceil(in / s).
struct tf_same {
  int before, after, out;
};
tf_same tf_same_of(int in, int k, int s) {
  const int along = in % s == 0 ? std::max(k - s, 0) : std::max(k - in % s, 0);
  return {along / 2, along - along / 2, (in + s - 1) / s};
}

// `.same()` gives TensorFlow's SAME padding for every stride, kernel and input size,
// asymmetric where the rule says so (e.g. 3x3 stride 2 on an even input: 0 before, 1 after,
// where symmetric padding of 1 would shift every window).
TEST(Network, SamePaddingFollowsTensorFlowForAnyStride) {
  int asymmetric = 0;
  for (int in = 1; in <= 13; ++in)
    for (int k = 1; k <= 7; ++k)
      for (int s = 1; s <= 4; ++s) {
        for (int rows = 0; rows < 2; ++rows) {
          const int h = rows ? in : 5, w = rows ? 5 : in;
          const int kh = rows ? k : 3, kw = rows ? 3 : k;
          const int sh = rows ? s : 1, sw = rows ? 1 : s;
          std::vector<layer> ls{input(h, w, 2), conv2d(4, kh, kw).strides(sh, sw).same()};
          const diagnostic d = infer(ls);
          ASSERT_TRUE(d.ok()) << in << " " << k << " " << s;
          const tf_same v = tf_same_of(h, kh, sh), u = tf_same_of(w, kw, sw);
          EXPECT_EQ(ls[1].pad, (padding{v.before, v.after, u.before, u.after}))
              << "in " << in << " k " << k << " s " << s;
          EXPECT_EQ(ls[1].out, (shape{v.out, u.out, 4})) << "in " << in << " k " << k << " s " << s;
          if (v.before != v.after || u.before != u.after) ++asymmetric;
        }
      }
  EXPECT_GT(asymmetric, 0);
  // The order of the setters does not matter; .padded() after .same() overrides it.
  using a = network<input(25, 10, 1), conv2d(8, 3).same().strides(2).named("c")>;
  using b = network<input(25, 10, 1), conv2d(8, 3).strides(2).same().named("c")>;
  static_assert(a::layers[1].pad == padding{1, 1, 0, 1} && b::layers[1].pad == a::layers[1].pad);
  static_assert(a::layers[1].out == shape{13, 5, 8});
  using c = network<input(25, 10, 1), conv2d(8, 3).same().strides(2).padded(1).named("c")>;
  static_assert(c::layers[1].pad == padding{1, 1, 1, 1});
}

// An activation's container (element_bytes) is the smallest of 8 and 16 bits whose width
// (value_range::bits, the range's bit count) holds the range, over ranges at and around every
// edge, signed and unsigned.
TEST(Network, ElementBytesFollowTheRangesWidth) {
  const std::int64_t edges[] = {-70000, -65536, -32769, -32768, -32767, -129,  -128, -127, -2,
                                -1,     0,      1,      126,    127,    128,   254,  255,  256,
                                32766,  32767,  32768,  65534,  65535,  65536, 70000};
  int checked = 0;
  for (std::int64_t lo : edges)
    for (std::int64_t hi : edges) {
      if (lo > hi) continue;
      const value_range r{static_cast<std::int32_t>(lo), static_cast<std::int32_t>(hi)};
      const int b = r.bits();
      EXPECT_EQ(element_bytes(r), b <= 8 ? 1 : b <= 16 ? 2 : 0) << lo << ".." << hi;
      ++checked;
    }
  EXPECT_EQ(element_bytes(value_range{5, 4}), 0);
  EXPECT_GT(checked, 300);
}

}  // namespace
