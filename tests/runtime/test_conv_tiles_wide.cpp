// The specialised convolution loop (see conv_tiles_check.hpp) on layers with a 16-bit operand:
// an add whose unclipped sum is written as u16, and every kind that reads such a sum (standard
// and pointwise convolutions, depthwise, max and average pools, an add of a 16-bit and an 8-bit
// input). Each against the reference and the generic loop's commands, over plans of whole
// rows, of column tiles and of channel tiles (the boxes of partial rows and channels take one
// command per row), whole and by stripes, double- and single-buffered.
#include "conv_tiles_check.hpp"

namespace {

using namespace ctile;
using namespace conv_tiles_test;

/// Layer 2: u8 + u8 -> an unclipped u16 sum (0..510); layer 3: `Consumer` reads it.
template <auto Consumer>
using after_sum =
    network<input(10, 12, 8), conv2d(8, 1).with_bias().requantized(1, 64).named("a"),  //
            add("a", "a")
                .scaled(0, {32, 0, 0, false})
                .scaled(1, {32, 0, 0, false})
                .requantized(1, 32)
                .unclipped()
                .named("sum"),
            Consumer>;

using sum_net = after_sum<conv2d(6, 3).same().with_bias().requantized(1, 1024)>;
using pw_sum = after_sum<pointwise(12).bn().requantized(1, 4096)>;
using dw_sum = after_sum<depthwise(3).same().bn().requantized(1, 2048)>;
using max_sum = after_sum<maxpool(2)>;
using avg_sum = after_sum<avgpool(3).strides(2).padded(1).requantized(3, 64)>;
using add_sum = after_sum<
    add("a").scaled(0, {1, 0, 0, false}).scaled(1, {4, 0, 0, false}).requantized(1, 8).unclipped()>;

using fc_sum = after_sum<linear(13).with_bias().bn().requantized(1, 1 << 16)>;
using fc_sum_raw = after_sum<linear(7).with_bias().raw()>;

static_assert(sum_net::layers[2].output_bytes_per_element() == 2);
static_assert(sum_net::layers[3].input_bytes_per_element() == 2);
static_assert(max_sum::layers[3].output_bytes_per_element() == 2);
static_assert(add_sum::layers[3].input_bytes_per_element(0) == 2);
static_assert(add_sum::layers[3].input_bytes_per_element(1) == 1);

TEST(ConvTilesWide, AddWritesSixteenBits) {
  constexpr layer l = sum_net::layers[2];
  constexpr layer_plan rows = plan_with(l, 3, 12, 8);
  check<sum_net, rows, true, 2>({{{0, 10, 0, 8}}, {{0, 3, 0, 8}, {3, 10, 0, 8}}}, 8, 101);
  constexpr layer_plan boxes = plan_with(l, 4, 5, 3);  // partial rows and channels
  static_assert(!schedule::conv_detail::shapes_of<l, boxes>(hal::host_dma::limits).single);
  check<sum_net, boxes, true, 2>({{{0, 10, 0, 8}}, {{0, 10, 0, 3}, {0, 10, 3, 8}}}, 3, 102);
  check<sum_net, single_buffered(boxes), true, 2>({{{0, 10, 0, 8}}}, 8, 103);
}

TEST(ConvTilesWide, ConvolutionsRead16Bits) {
  constexpr layer l = sum_net::layers[3];
  constexpr layer_plan rows = plan_with(l, 3, 12, 6);
  check<sum_net, rows, true, 3>({{{0, 10, 0, 6}}, {{0, 4, 0, 6}, {4, 10, 0, 6}}}, 8, 104);
  constexpr layer_plan grid = plan_with(l, 4, 5, 4);
  check<sum_net, grid, true, 3>({{{0, 10, 0, 6}}}, 5, 105);
  check<sum_net, single_buffered(grid), true, 3>({{{0, 10, 0, 6}}}, 8, 106);
  constexpr layer pl = pw_sum::layers[3];
  check<pw_sum, plan_with(pl, 2, 12, 5), true, 3>(
      {{{0, 10, 0, 12}}, {{0, 10, 0, 5}, {0, 10, 5, 12}}}, 8, 107);
  check<pw_sum, plan_with(pl, 10, 12, 12), true, 3>({{{0, 10, 0, 12}}}, 8, 108);
}

TEST(ConvTilesWide, DepthwiseReads16Bits) {
  constexpr layer l = dw_sum::layers[3];
  // The HWC input marshalled to CHW channel by channel, 2 bytes an element.
  constexpr layer_plan rows = plan_with(l, 3, 12, 8);
  check<dw_sum, rows, true, 3>({{{0, 10, 0, 8}}, {{0, 3, 0, 8}, {3, 10, 0, 8}}}, 8, 109);
  constexpr layer_plan grid = plan_with(l, 4, 5, 3);
  check<dw_sum, grid, true, 3>({{{0, 10, 0, 8}}, {{0, 10, 0, 3}, {0, 10, 3, 8}}}, 3, 110);
}

TEST(ConvTilesWide, PoolsAndAddsRead16Bits) {
  constexpr layer m = max_sum::layers[3];
  check<max_sum, plan_with(m, 2, 6, 8), true, 3>({{{0, 5, 0, 8}}, {{0, 2, 0, 8}, {2, 5, 0, 8}}}, 8,
                                                 111);
  constexpr layer_plan mboxes = plan_with(m, 2, 3, 3);
  static_assert(!schedule::conv_detail::shapes_of<m, mboxes>(hal::host_dma::limits).single);
  check<max_sum, mboxes, true, 3>({{{0, 5, 0, 8}}}, 8, 112);
  constexpr layer a = avg_sum::layers[3];
  check<avg_sum, plan_with(a, 2, 6, 8), true, 3>({{{0, 5, 0, 8}}}, 8, 113);
  check<avg_sum, plan_with(a, 2, 3, 5), true, 3>({{{0, 5, 0, 8}}}, 5, 114);
  constexpr layer s = add_sum::layers[3];
  check<add_sum, plan_with(s, 3, 12, 8), true, 3>({{{0, 10, 0, 8}}, {{0, 3, 0, 8}, {3, 10, 0, 8}}},
                                                  8, 115);
  constexpr layer_plan sboxes = plan_with(s, 4, 5, 3);
  check<add_sum, sboxes, true, 3>({{{0, 10, 0, 8}}}, 8, 116);
  check<add_sum, single_buffered(sboxes), true, 3>({{{0, 10, 0, 8}}}, 3, 117);
}

// A linear layer's 16-bit input: whole or by K tiles (the partial sums carried across them),
// double- and single-buffered, with every merged and separate data layout the plans take.
TEST(ConvTilesWide, LinearReads16Bits) {
  constexpr layer l = fc_sum::layers[3];
  constexpr layer_plan k = plan_linear(l, 4, 240);  // 4 K tiles of 240 elements (480 B)
  static_assert(k.n_k == 4);
  check<fc_sum, k, true, 3>({{{0, 1, 0, 13}}, {{0, 1, 0, 8}, {0, 1, 8, 13}}}, 8, 118);
  check<fc_sum, single_buffered(k), true, 3>({{{0, 1, 0, 13}}}, 3, 119);
  constexpr layer_plan two = plan_linear(l, 5, 480);  // 2 K tiles: the steady loop
  static_assert(two.n_k == 2);
  check<fc_sum, two, true, 3>({{{0, 1, 0, 13}}}, 8, 120);
  constexpr layer_plan whole = plan_linear(l, 6, 0);
  check<fc_sum, whole, true, 3>({{{0, 1, 0, 13}}, {{0, 1, 0, 6}, {0, 1, 6, 13}}}, 8, 121);
  constexpr layer r = fc_sum_raw::layers[3];
  check<fc_sum_raw, plan_linear(r, 3, 320), true, 3>({{{0, 1, 0, 7}}}, 8, 122);
  check<fc_sum_raw, plan_linear(r, 7, 0), true, 3>({{{0, 1, 0, 7}}}, 5, 123);
}

}  // namespace
