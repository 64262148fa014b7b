// expect: imported_plan_violates<1, ctile::fixed_string<2>\{"a"\}, ctile::imported_constraint::prefetch_of_weights_not_in_l3, [0-9]+, 0>.*the imported plan
// A joint header edited by hand: layer "a" prefetches the next layer's weights, which stay
// resident in L2 (only weights read from L3, whole or by stripes, are prefetched).
#include <ctile/ctile.hpp>
#include <ctile/plan/plan.hpp>
using namespace ctile;
using net =
    network<input(16, 16, 16), conv2d(32, 3).same().named("a"), conv2d(64, 3).same().named("b")>;
constexpr layer_plan pa = plan_layer(net::layers[1], gap8);
constexpr layer_plan pb = plan_layer(net::layers[2], gap8);
template <>
struct ctile::imported_plan<net, gap8, objective::model> {
  static constexpr bool available = true;
  static constexpr std::size_t size = 3;
  static constexpr imported_layer layers[size] = {
      {op::input, 16, 16, 16, 16, 0, 0, 0, {}, 0},
      {op::conv, 16, 16, 32, 16, pa.tile_c, pa.tile_h, pa.tile_w, pa.split, pa.l1_cycles},
      {op::conv, 16, 16, 64, 32, pb.tile_c, pb.tile_h, pb.tile_w, pb.split, pb.l1_cycles}};
  static constexpr imported_l3 l3[size] = {
      {false, 16, false, 16, false}, {true, 32, false, 16, true}, {false, 64, false, 16, false}};
};
static_assert(plan_of<net, gap8>.summary.ok());
