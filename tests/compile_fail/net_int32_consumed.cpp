// expect: int32_output_cannot_feed_another_layer<2, .*"fc2"\}, ctile::op::linear, ctile::fixed_string<8>\{"layer 1"\}>.*only be a network output
#include <ctile/ctile.hpp>
using namespace ctile;
// The producer has no name: the error calls it by its index ("layer 1").
using bad = network<input(1, 1, 8), linear(4).raw(), linear(2).named("fc2")>;
static_assert(bad::size > 0);
