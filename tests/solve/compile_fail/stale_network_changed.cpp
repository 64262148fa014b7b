// expect: imported_plan_violates<1, ctile::fixed_string<4>\{"big"\}, ctile::imported_constraint::output_channels_changed, 48, 64>
// A header solved for a network whose first conv had 64 output channels; it now has 48.
#include <ctile/ctile.hpp>
#include <ctile/plan/plan.hpp>
using namespace ctile;
using net = network<input(32, 32, 16), conv2d(48, 3).same().named("big")>;
template <>
struct ctile::imported_plan<net, gap8, objective::model> {
  static constexpr bool available = true;
  static constexpr std::size_t size = 2;
  static constexpr imported_layer layers[size] = {
      {op::input, 32, 32, 16, 16, 16, 32, 32, {}, 0},
      {op::conv, 32, 32, 64, 16, 16, 8, 32, {split_kind::rows, 1, 1}, 1}};
};
static_assert(plan_of<net, gap8>.summary.ok());
