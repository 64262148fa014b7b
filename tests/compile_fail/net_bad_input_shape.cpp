// expect: network_input_shape_must_be_positive<0, 8, 3>.*positive height, width and channel count
#include <ctile/ctile.hpp>
using namespace ctile;
using bad = network<input(0, 8, 3), conv2d(8, 3)>;
static_assert(bad::size > 0);
