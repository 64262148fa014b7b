// expect: imported_plan_violates<1, ctile::fixed_string<2>\{"p"\}, ctile::imported_constraint::row_tile_reads_only_padding, 1, 2>.*the imported plan
// A generated header edited by hand: row tiles of one output for a 2x2 stride-2 conv padded by
// 2, whose first output row reads padding only.
#include <ctile/ctile.hpp>
#include <ctile/plan/plan.hpp>
using namespace ctile;
using net = network<input(8, 8, 4), conv2d(8, 2).strides(2).padded(2).named("p")>;
template <>
struct ctile::imported_plan<net, gap8, objective::model> {
  static constexpr bool available = true;
  static constexpr std::size_t size = 2;
  static constexpr imported_layer layers[size] = {
      {op::input, 8, 8, 4, 4, 4, 8, 8, {}, 0},
      {op::conv, 6, 6, 8, 4, 8, 1, 6, {split_kind::rows, 1, 1}, 1}};
};
static_assert(plan_of<net, gap8>.summary.ok());
