// expect: two_layers_share_a_name<2, .*"x"\}, 1>.*unique
#include <ctile/ctile.hpp>
using namespace ctile;
using bad = network<input(1, 1, 8), linear(4).named("x"), linear(2).named("x")>;
static_assert(bad::size > 0);
