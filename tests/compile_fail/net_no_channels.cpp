// expect: channel_count_must_be_positive<1, .*"fc"\}, ctile::op::linear, 0>
#include <ctile/ctile.hpp>
using namespace ctile;
using bad = network<input(1, 1, 8), linear(0).named("fc")>;
static_assert(bad::size > 0);
