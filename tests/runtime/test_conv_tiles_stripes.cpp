// The loop nests run across L3 weight stripes (l2_operands::stripes): one call over the whole
// layer, each stripe packed into one of two buffers as the loop enters it, the input loaded
// once; the specialised and the generic loops, checked against the reference (see
// conv_tiles_check.hpp).
#include <ctile/plan/network_plan.hpp>

#include "conv_tiles_check.hpp"

namespace {

using namespace ctile;
using namespace conv_tiles_test;

std::vector<std::vector<stripe>> whole_layer(const layer& l) {
  return {{{0, l.out.h, 0, l.out.c}}};
}

static_assert(!schedule::spans_stripes(pw_net::layers[1], plan_with(pw_net::layers[1], 16, 16, 5)),
              "A plan without L3 weight stripes runs none.");
static_assert(schedule::spans_stripes(pw_net::layers[1],
                                      striped(plan_with(pw_net::layers[1], 16, 16, 5), 10)),
              "A plan whose weights come in stripes and whose output is one band spans them.");

TEST(ConvTilesAcrossStripes, Pointwise) {
  constexpr layer l = pw_net::layers[1];
  // One tile per channel tile: 5 channel tiles (the last 4 wide) in stripes of 2, 1 and all but
  // one of them.
  constexpr layer_plan deep = plan_with(l, 16, 16, 5);
  check<pw_net, striped(deep, 10)>(whole_layer(l), 8, 70, 10);
  check<pw_net, striped(deep, 5)>(whole_layer(l), 8, 71, 5);
  check<pw_net, striped(deep, 20)>(whole_layer(l), 3, 72, 20);
  check<pw_net, single_buffered(striped(deep, 10))>(whole_layer(l), 8, 73, 10);
  // Row tiles inside each channel tile.
  constexpr layer_plan rows = plan_with(l, 3, 16, 8);
  check<pw_net, striped(rows, 8)>(whole_layer(l), 8, 74, 8);
  check<pw_net, striped(rows, 16)>(whole_layer(l), 8, 75, 16);
}

TEST(ConvTilesAcrossStripes, ConvolutionAndDepthwise) {
  constexpr layer c = conv3x3::layers[1];
  constexpr layer_plan rows = plan_with(c, 4, 23, 5);  // 5 row tiles x 3 channel tiles
  check<conv3x3, striped(rows, 5)>(whole_layer(c), 8, 76, 5);
  check<conv3x3, striped(rows, 10)>(whole_layer(c), 3, 77, 10);
  constexpr layer_plan boxes = plan_with(c, 5, 7, 5);  // column tiles, copy_box commands
  check<conv3x3, striped(boxes, 5)>(whole_layer(c), 8, 78, 5);
  constexpr layer d = dwise::layers[1];
  constexpr layer_plan dw = plan_with(d, 5, 17, 8);  // 3 x 3 tiles, the last 4 channels wide
  check<dwise, striped(dw, 8)>(whole_layer(d), 8, 79, 8);
  check<dwise, striped(dw, 16)>(whole_layer(d), 5, 80, 16);
  check<dwise, single_buffered(striped(dw, 8))>(whole_layer(d), 8, 81, 8);
}

TEST(ConvTilesAcrossStripes, Linear) {
  constexpr layer f = fc::layers[1];
  // K tiles (int32 partial sums): a stripe is entered at its first K tile only.
  constexpr layer_plan k = plan_linear(f, 8, 192);  // 5 x 4 tiles
  check<fc, striped(k, 8)>(whole_layer(f), 8, 82, 8);
  check<fc, striped(k, 16)>(whole_layer(f), 8, 83, 16);
  check<fc, single_buffered(striped(k, 16))>(whole_layer(f), 3, 84, 16);
  // The steady loops: two K tiles read in place, and one.
  constexpr layer_plan two = plan_linear(f, 8, 320);
  check<fc, striped(two, 8)>(whole_layer(f), 8, 85, 8);
  check<fc, striped(two, 24)>(whole_layer(f), 8, 86, 24);
  constexpr layer fo = fc_odd::layers[1];  // parameters apart from the weights
  constexpr layer_plan apart = plan_linear(fo, 3, 56);
  check<fc_odd, striped(apart, 6)>(whole_layer(fo), 8, 87, 6);
}

// MobileNet-v1's classifier: its merged data streams through L1, each command where the last
// ended; across stripes the stream continues in the next stripe's buffer.
TEST(ConvTilesAcrossStripes, StreamingClassifier) {
  using cls = network<input(1, 1, 1024), linear(1000).with_bias().raw()>;
  constexpr layer_plan p = plan_of<cls, gap8_dory>.layers[1];
  static_assert(p.tile_c == 32 && schedule::tile_data_merged(cls::layers[1], p));
  check<cls, striped(p, 96)>(whole_layer(cls::layers[1]), 8, 88, 96);
  check<cls, striped(p, 32)>(whole_layer(cls::layers[1]), 8, 89, 32);
}

}  // namespace
