// expect: dilation_must_be_positive_and_only_on_convolutions<1, .*"d"\}, ctile::op::conv, 3, 3, 0, 2>
#include <ctile/ctile.hpp>
using namespace ctile;
using bad = network<input(8, 8, 1), conv2d(1, 3).dilated(0, 2).named("d")>;
static_assert(bad::size > 0);
