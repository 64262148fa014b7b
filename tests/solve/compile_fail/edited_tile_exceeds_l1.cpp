// expect: imported_plan_violates<1, ctile::fixed_string<4>\{"big"\}, ctile::imported_constraint::tile_buffers_exceed_l1, [0-9]+, 50196>.*the imported plan
// A generated header edited by hand: the first conv's tile made the whole 32x32x64 output.
#include <ctile/ctile.hpp>
#include <ctile/plan/plan.hpp>
using namespace ctile;
using net = network<input(32, 32, 16), conv2d(64, 3).same().named("big")>;
template <>
struct ctile::imported_plan<net, gap8, objective::model> {
  static constexpr bool available = true;
  static constexpr std::size_t size = 2;
  static constexpr imported_layer layers[size] = {
      {op::input, 32, 32, 16, 16, 16, 32, 32, {}, 0},
      {op::conv, 32, 32, 64, 16, 64, 32, 32, {split_kind::rows, 1, 1}, 1}};
};
static_assert(plan_of<net, gap8>.summary.ok());
