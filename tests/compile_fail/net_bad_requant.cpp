// expect: requantization_out_of_range<1, .*"q"\}, ctile::op::conv, 1, 0, 0, 255>.*d > 0
#include <ctile/ctile.hpp>
using namespace ctile;
using bad = network<input(4, 4, 1), conv2d(1, 1).requantized(1, 0).named("q")>;
static_assert(bad::size > 0);
