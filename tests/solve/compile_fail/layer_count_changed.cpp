// expect: imported_plan_has_another_layer_count<3, 2>
// A header solved before a layer was added to the network.
#include <ctile/ctile.hpp>
#include <ctile/plan/plan.hpp>
using namespace ctile;
using net = network<input(32, 32, 16), conv2d(64, 3).same().named("big"), maxpool(2)>;
template <>
struct ctile::imported_plan<net, gap8, objective::model> {
  static constexpr bool available = true;
  static constexpr std::size_t size = 2;
  static constexpr imported_layer layers[size] = {
      {op::input, 32, 32, 16, 16, 16, 32, 32, {}, 0},
      {op::conv, 32, 32, 64, 16, 16, 4, 8, {split_kind::rows, 1, 1}, 1}};
};
static_assert(plan_of<net, gap8>.summary.ok());
