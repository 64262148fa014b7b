// expect: every_window_lies_in_padding<1, .*"p"\}, ctile::op::conv, 1, 2, 0, 0, 6, 0>
#include <ctile/ctile.hpp>
using namespace ctile;
using bad = network<input(1, 1, 4), conv2d(4, 1, 2).strides(1, 2).padded(0, 0, 6, 0).named("p")>;
static_assert(bad::size > 0);
