// expect: imported_plan_violates<1, ctile::fixed_string<4>\{"big"\}, ctile::imported_constraint::l3_placement_exceeds_l3, [0-9]+, 4096>.*the imported plan
// A joint header solved for a larger L3, used with 4 KiB of L3: the conv's weights no longer
// fit there.
#include <ctile/ctile.hpp>
#include <ctile/plan/plan.hpp>
using namespace ctile;
using net = network<input(32, 32, 16), conv2d(64, 3).same().named("big")>;
constexpr platform small_l3 = gap8.with_l3(4096);
constexpr layer_plan searched = plan_layer(net::layers[1], small_l3);
template <>
struct ctile::imported_plan<net, small_l3, objective::model> {
  static constexpr bool available = true;
  static constexpr std::size_t size = 2;
  static constexpr imported_layer layers[size] = {
      {op::input, 32, 32, 16, 16, 0, 0, 0, {}, 0},
      {op::conv, 32, 32, 64, 16, searched.tile_c, searched.tile_h, searched.tile_w, searched.split,
       searched.l1_cycles}};
  static constexpr imported_l3 l3[size] = {{false, 16, false, 32, false},
                                           {true, 64, false, 32, false}};
};
static_assert(plan_of<net, small_l3>.summary.ok());
