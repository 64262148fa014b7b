// expect: window_larger_than_padded_input<1, .*"big"\}, ctile::op::conv, 5, 5, 4, 4>.*does not fit in its \(padded\) input
#include <ctile/ctile.hpp>
using namespace ctile;
using bad = network<input(4, 4, 1), conv2d(1, 5).named("big")>;
static_assert(bad::size > 0);
