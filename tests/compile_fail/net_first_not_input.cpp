// expect: first_layer_must_be_an_input<0.*the first layer of a network must be ctile::input
#include <ctile/ctile.hpp>
using namespace ctile;
using bad = network<conv2d(8, 3), conv2d(8, 3)>;
static_assert(bad::size > 0);
