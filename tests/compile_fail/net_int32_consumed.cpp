// expect: int32_output_cannot_feed_another_layer<2, .*"fc2"\}, ctile::op::linear, 1>.*only be a network output
#include <ctile/ctile.hpp>
using namespace ctile;
using bad = network<input(1, 1, 8), linear(4).raw(), linear(2).named("fc2")>;
static_assert(bad::size > 0);
