// expect: only_the_first_layer_may_be_an_input<1.*an input layer may only stand first
#include <ctile/ctile.hpp>
using namespace ctile;
using bad = network<input(8, 8, 3), input(8, 8, 3)>;
static_assert(bad::size > 0);
