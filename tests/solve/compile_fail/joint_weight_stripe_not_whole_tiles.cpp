// expect: imported_plan_violates<1, ctile::fixed_string<4>\{"big"\}, ctile::imported_constraint::weight_stripe_not_whole_l1_tiles, [0-9]+, [0-9]+>.*the imported plan
// A joint header edited by hand: the conv's weights stream in stripes that split an L1 channel
// tile.
#include <ctile/ctile.hpp>
#include <ctile/plan/plan.hpp>
using namespace ctile;
using net = network<input(32, 32, 16), conv2d(64, 3).same().named("big")>;
constexpr layer_plan searched = plan_layer(net::layers[1], gap8);
constexpr int odd_stripe = searched.tile_c < 64 ? searched.tile_c + 1 : 63;
template <>
struct ctile::imported_plan<net, gap8, objective::model> {
  static constexpr bool available = true;
  static constexpr std::size_t size = 2;
  static constexpr imported_layer layers[size] = {
      {op::input, 32, 32, 16, 16, 0, 0, 0, {}, 0},
      {op::conv, 32, 32, 64, 16, searched.tile_c, searched.tile_h, searched.tile_w, searched.split,
       searched.l1_cycles}};
  static constexpr imported_l3 l3[size] = {{false, 16, false, 32, false},
                                           {true, odd_stripe, false, 32, false}};
};
static_assert(plan_of<net, gap8>.summary.ok());
