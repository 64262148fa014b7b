// expect: layer_does_not_fit_in_l1<1, ctile::fixed_string<4>\{"big"\}, ctile::op::conv, [0-9]+, 36700>.*no tiling of this layer fits L1
#include <ctile/ctile.hpp>
#include <ctile/plan/plan.hpp>
using namespace ctile;
// A 3x3 conv over 512 channels: its im2col buffer alone (8 x 2 x 512 x 9 B) exceeds L1.
using too_big = network<input(8, 8, 512), conv2d(16, 3).same().named("big")>;
static_assert(plan_of<too_big, gap8>.summary.ok());
