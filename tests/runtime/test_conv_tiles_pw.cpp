// The specialised convolution loop (see conv_tiles_check.hpp) on pointwise and linear layers.
#include <ctile/plan/network_plan.hpp>

#include "conv_tiles_check.hpp"

namespace {

using namespace ctile;
using namespace conv_tiles_test;

TEST(ConvTiles, PointwiseWholeRows) {
  // Tiles of whole rows: 1-D inputs; 2-D outputs, or 1-D when a tile has every channel.
  constexpr layer_plan p = plan_with(pw_net::layers[1], 3, 16, 8);
  check<pw_net, p>({{{0, 16, 0, 24}}, {{0, 3, 0, 24}, {3, 6, 0, 24}, {6, 16, 0, 24}}}, 8, 11);
  constexpr layer_plan whole = plan_with(pw_net::layers[1], 4, 16, 24);
  check<pw_net, whole>({{{0, 16, 0, 24}}, {{0, 4, 0, 24}, {4, 16, 0, 24}}}, 8, 12);
  check<pw_net, single_buffered(whole)>({{{0, 16, 0, 24}}}, 8, 13);
  // One tile per channel tile (the input loaded once per stripe).
  constexpr layer_plan deep = plan_with(pw_net::layers[1], 16, 16, 5);
  check<pw_net, deep>({{{0, 16, 0, 24}}, {{0, 16, 0, 10}, {0, 16, 10, 24}}}, 8, 14);
}

// Linear layers, whole reductions and reductions cut in K tiles (int32 partial sums), with
// short last channel and K tiles, over channel stripes; int32 outputs.
TEST(ConvTiles, Linear) {
  constexpr layer_plan k = plan_linear(fc::layers[1], 8, 192);  // 5 x 4 tiles
  check<fc, k>({{{0, 1, 0, 37}}, {{0, 1, 0, 16}, {0, 1, 16, 37}}}, 8, 20);
  check<fc, single_buffered(k)>({{{0, 1, 0, 37}}}, 3, 21);
  constexpr layer_plan whole = plan_linear(fc::layers[1], 12, 0);
  check<fc, whole>({{{0, 1, 0, 37}}, {{0, 1, 0, 24}, {0, 1, 24, 37}}}, 8, 22);
  constexpr layer_plan raw = plan_linear(fc_raw::layers[1], 3, 128);
  check<fc_raw, raw>({{{0, 1, 0, 10}}}, 8, 23);
}

// Linear layers whose whole input and whole output stay in L1: two K tiles read the input in
// place (the loop whose arguments are set per parity), one K tile too, over channel stripes.
TEST(ConvTiles, LinearWholeInputAndOutput) {
  constexpr layer_plan two = plan_linear(fc::layers[1], 8, 320);  // 5 x 2 tiles
  static_assert(two.n_k == 2 && two.x_copies == 1 && two.y_copies == 1 && two.n_c == 5,
                "Two K tiles of a 640-byte reduction keep the input whole.");
  static_assert(two.x_bytes == 640 && two.y_bytes == 37,
                "The whole input and the whole output are one buffer each.");
  check<fc, two>({{{0, 1, 0, 37}}, {{0, 1, 0, 16}, {0, 1, 16, 24}, {0, 1, 24, 37}}}, 8, 24);
  check<fc, single_buffered(two)>({{{0, 1, 0, 37}}}, 5, 25);
  // An odd K tile: the second slice starts on a word, the last one is short.
  constexpr layer_plan odd = plan_linear(fc_raw::layers[1], 4, 152);  // 3 x 2 tiles
  static_assert(odd.n_k == 2 && odd.x_copies == 1 && odd.last_k == 148 && odd.last_c == 2,
                "A 300-byte reduction cut in two keeps the input whole.");
  check<fc_raw, odd>({{{0, 1, 0, 10}}, {{0, 1, 0, 4}, {0, 1, 4, 10}}}, 8, 26);
  constexpr layer_plan one = plan_linear(fc_raw::layers[1], 3, 0);  // 4 x 1 tiles
  static_assert(one.n_k == 1 && one.y_copies == 1 && one.y_bytes == 40,
                "Four channel tiles share one output buffer of the whole layer.");
  check<fc_raw, one>({{{0, 1, 0, 10}}, {{0, 1, 0, 6}, {0, 1, 6, 10}}}, 8, 27);
  // A last K tile of 49 bytes: tiles of 3 channels do not end on a word, so the parameters
  // are commands of their own.
  constexpr layer_plan apart = plan_linear(fc_odd::layers[1], 3, 56);  // 3 x 2 tiles
  static_assert(apart.n_k == 2 && apart.x_copies == 1 &&
                    !schedule::tile_data_merged(fc_odd::layers[1], apart),
                "Three channels of 49 bytes are not a whole number of words.");
  check<fc_odd, apart>({{{0, 1, 0, 9}}, {{0, 1, 0, 3}, {0, 1, 3, 9}}}, 8, 28);
}

// MobileNet-v1's classifier as GAP-8's planner tiles it in DORY's L1 budget (gap8_dory): 1 MB of
// weights through L1 in 64 tiles, each one command of data and the fork, the int32 outputs by
// buffers of channel tiles; whole, and by L3-sized channel stripes.
TEST(ConvTiles, MobileNetClassifier) {
  using cls = network<input(1, 1, 1024), linear(1000).with_bias().raw()>;
  constexpr layer_plan p = plan_of<cls, gap8_dory>.layers[1];
  static_assert(p.n_k == 2 && p.tile_c == 32 && p.x_copies == 1 && p.y_copies == 2 &&
                    p.y_bytes > p.tile_c * 4 && schedule::tile_data_merged(cls::layers[1], p),
                "The classifier's tiles stream: two K tiles of one command each, the input "
                "whole, outputs by buffers of several channel tiles.");
  check<cls, p>({{{0, 1, 0, 1000}}, {{0, 1, 0, 384}, {0, 1, 384, 768}, {0, 1, 768, 1000}}}, 8, 33);
  // GAP-8's budget: three K tiles of 64 channels, the input by slices alternating between two
  // buffers; steady with its K tile set per tile (a channel tile's first K tile has either
  // parity), and each stripe starts on parity 0 whatever its first channel tile.
  constexpr layer_plan three = plan_linear(cls::layers[1], 64, 344);
  static_assert(three.n_k == 3 && three.last_k == 336 && three.x_copies == 2 &&
                    three.x_bytes == 344 && schedule::tile_data_merged(cls::layers[1], three),
                "Three K tiles of a 1,024-byte reduction: 344-byte slices, twice.");
  check<cls, three>({{{0, 1, 0, 1000}}, {{0, 1, 0, 320}, {0, 1, 320, 640}, {0, 1, 640, 1000}}}, 8,
                    36);
  check<cls, three>({{{0, 1, 0, 1000}}, {{0, 1, 0, 448}, {0, 1, 448, 1000}}}, 3, 37);
  check<cls, single_buffered(three)>({{{0, 1, 0, 1000}}}, 8, 38);
}

// Linear layers whose output buffers hold a group of channel tiles: as many as the L1 budget
// leaves room for, double-buffered; each leaves in one command when full or when the run ends.
TEST(ConvTiles, LinearOutputGroups) {
  // 11 channel tiles of 8 int32 outputs: two buffers of 3 tiles take 2,592 bytes of 2,600.
  using wide = network<input(1, 1, 256), linear(84).with_bias().raw()>;
  constexpr layer_plan grouped = plan_linear_in(wide::layers[1], 8, 128, 2600);
  static_assert(grouped.n_c == 11 && grouped.n_k == 2 && grouped.y_copies == 2 &&
                    grouped.y_bytes == 3 * 8 * 4 && grouped.l1.total == 2592,
                "The budget leaves room for output buffers of three channel tiles.");
  check<wide, grouped>({{{0, 1, 0, 84}}, {{0, 1, 0, 32}, {0, 1, 32, 40}, {0, 1, 40, 84}}}, 8, 29);
  check<wide, single_buffered(grouped)>({{{0, 1, 0, 84}}}, 4, 30);
  // One channel tile a buffer: the budget is one byte short of two (2,528 bytes).
  constexpr layer_plan one = plan_linear_in(wide::layers[1], 8, 128, 2527);
  static_assert(one.y_copies == 2 && one.y_bytes == 8 * 4,
                "One byte short of two channel tiles, the buffers hold one.");
  check<wide, one>({{{0, 1, 0, 84}}, {{0, 1, 0, 48}, {0, 1, 48, 84}}}, 8, 31);
  // A whole K per tile, the output in groups.
  constexpr layer_plan whole_k = plan_linear_in(wide::layers[1], 8, 0, 4700);
  static_assert(whole_k.n_k == 1 && whole_k.y_copies == 2 && whole_k.y_bytes == 4 * 8 * 4,
                "A 4,700-byte budget leaves room for two buffers of four tiles, not the whole "
                "output.");
  check<wide, whole_k>({{{0, 1, 0, 84}}, {{0, 1, 0, 80}, {0, 1, 80, 84}}}, 8, 32);
}

// A reduction longer than the DMA's 2-D stride (K = 33,001 > 32,767): a tile's weight rows,
// K bytes apart, cannot be one 2-D command, and a whole input is more than one command. The
// specialised loop programs those transfers through copy_box, the same commands as the generic
// loop's, which check() compares.
using fc_long = network<input(1, 1, 33001), linear(3).with_bias().bn().requantized(1, 1 << 20)>;
TEST(ConvTiles, LinearBeyondOneCommand) {
  constexpr layer l = fc_long::layers[1];
  constexpr layer_plan k = plan_linear(l, 2, 8192);  // 2 channel tiles x 5 K tiles
  static_assert(k.n_k == 5 && !schedule::tile_data_merged(l, k));
  static_assert(!schedule::linear_detail::commands_of<l, k>(hal::host_dma::limits).w);
  check<fc_long, k>({{{0, 1, 0, 3}}, {{0, 1, 0, 2}, {0, 1, 2, 3}}}, 8, 26);
  check<fc_long, single_buffered(k)>({{{0, 1, 0, 3}}}, 3, 27);
  // Two K tiles keep the whole input in L1: 33,001 B, two commands.
  constexpr layer_plan two = plan_linear(l, 1, 16501);
  static_assert(two.n_k == 2 && two.x_copies == 1);
  static_assert(!schedule::linear_detail::commands_of<l, two>(hal::host_dma::limits).x);
  check<fc_long, two>({{{0, 1, 0, 3}}, {{0, 1, 0, 1}, {0, 1, 1, 3}}}, 8, 28);
}

// An output beyond one command: 8,200 int32 outputs (32,800 B) whole in one L1 buffer leave
// through copy_box, as several commands, at the end of the run (and of each stripe).
using fc_tall = network<input(1, 1, 20), linear(8200).with_bias().raw()>;
TEST(ConvTiles, LinearOutputBeyondOneCommand) {
  constexpr layer l = fc_tall::layers[1];
  constexpr layer_plan p = plan_linear(l, 512, 0);  // 17 channel tiles, the last of 8
  static_assert(p.n_c == 17 && p.y_copies == 1 && p.y_bytes == 8200 * 4,
                "The whole output is one buffer of 32,800 B.");
  static_assert(!schedule::linear_detail::commands_of<l, p>(hal::host_dma::limits).y &&
                    schedule::linear_detail::commands_of<l, p>(hal::host_dma::limits).w,
                "Only the output is beyond one command.");
  check<fc_tall, p>({{{0, 1, 0, 8200}}, {{0, 1, 0, 3072}, {0, 1, 3072, 8200}}}, 8, 34);
  check<fc_tall, single_buffered(p)>({{{0, 1, 0, 8200}}}, 3, 35);
}

// Channel-major outputs with one spatial tile in buffers of several channel tiles
// (plan::choose_output_groups): each tile writes its planes after the previous one's and a
// buffer leaves in one command once full or when the call ends. Against the reference and the
// generic loop; the commands saved counted from the stripes: a call of t channel tiles sends
// ceil(t / g) outputs instead of t.
using pw_deep = network<input(8, 8, 64), pointwise(52).bn().requantized(1, 1024)>;
using conv_deep =
    network<input(6, 5, 8), conv2d(20, 3).same().with_bias().bn().requantized(1, 512)>;

// Commands saved by groups of `g` over calls of `tiles[k]` channel tiles each.
std::uint64_t saved_by(int g, std::initializer_list<int> tiles) {
  std::uint64_t s = 0;
  for (int t : tiles) s += static_cast<std::uint64_t>(t - (t + g - 1) / g);
  return s;
}

TEST(ConvTiles, ChannelMajorOutputGroups) {
  constexpr layer_plan p = plan_with(pw_deep::layers[1], 8, 8, 8);  // 7 channel tiles, last 4
  static_assert(p.n_c == 7 && p.last_c == 4 && !p.spatial());
  constexpr layer_plan one = channel_major(p), three = channel_major(p, 3);
  static_assert(three.y_bytes == 3 * 8 * 8 * 8 && three.y_copies == 2 && three.y_group(1) == 3 &&
                three.l1.total == p.l1.total + 2 * 2 * 8 * 8 * 8);
  const std::vector<std::vector<stripe>> runs = {{{0, 8, 0, 52}},
                                                 {{0, 8, 0, 24}, {0, 8, 24, 52}},
                                                 {{0, 8, 0, 8}, {0, 8, 8, 40}, {0, 8, 40, 52}}};
  const auto base = check<pw_deep, one>(runs, 8, 41);
  const auto grouped = check<pw_deep, three>(runs, 8, 42);
  ASSERT_EQ(base.size(), 3u);
  ASSERT_EQ(grouped.size(), 3u);
  EXPECT_EQ(base[0] - grouped[0], saved_by(3, {7}));
  EXPECT_EQ(base[1] - grouped[1], saved_by(3, {3, 4}));
  EXPECT_EQ(base[2] - grouped[2], saved_by(3, {1, 4, 2}));
  // Single-buffered, a group of two, the whole output in one buffer, across weight stripes.
  check<pw_deep, single_buffered(three)>(runs, 3, 43);
  const auto two = check<pw_deep, channel_major(p, 2)>(runs, 8, 44);
  EXPECT_EQ(base[0] - two[0], saved_by(2, {7}));
  constexpr layer_plan whole = channel_major(p, 7);
  static_assert(whole.y_copies == 1 && whole.y_bytes == 52 * 8 * 8 && whole.y_group(1) == 7);
  const auto all = check<pw_deep, whole>(runs, 8, 45);
  EXPECT_EQ(base[2] - all[2], saved_by(7, {1, 4, 2}));
  // Weight stripes of two channel tiles: the groups of three span them.
  check<pw_deep, striped(three, 16)>({{{0, 8, 0, 52}}, {{0, 8, 0, 32}, {0, 8, 32, 52}}}, 8, 46, 16);
  // A 3 x 3 convolution (im2col, padding), 4 channel tiles of 6, the last of 2.
  constexpr layer_plan c = plan_with(conv_deep::layers[1], 6, 5, 6);
  static_assert(c.n_c == 4 && c.last_c == 2 && !c.spatial());
  const std::vector<std::vector<stripe>> cruns = {{{0, 6, 0, 20}}, {{0, 6, 0, 6}, {0, 6, 6, 20}}};
  const auto cbase = check<conv_deep, channel_major(c)>(cruns, 8, 47);
  const auto cgrouped = check<conv_deep, channel_major(c, 3)>(cruns, 5, 48);
  EXPECT_EQ(cbase[0] - cgrouped[0], saved_by(3, {4}));
  EXPECT_EQ(cbase[1] - cgrouped[1], saved_by(3, {1, 3}));
}

}  // namespace
