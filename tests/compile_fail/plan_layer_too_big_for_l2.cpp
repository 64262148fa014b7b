// expect: layer_does_not_fit_in_l2<1, ctile::fixed_string<5>\{"wide"\}, ctile::op::conv, [0-9]+, 425984>.*L2 buffers do not fit
#include <ctile/ctile.hpp>
#include <ctile/plan/plan.hpp>
using namespace ctile;
// Without L3, a 256x256x8 input and output (512 KiB each) cannot both be in L2.
using wide = network<input(256, 256, 8), pointwise(8).named("wide")>;
static_assert(plan_of<wide, gap8.with_l3(0)>.summary.ok());
