// expect: network_input_range_must_fit_8_bits<0, -1, 200>.*0..255 or -128..127
#include <ctile/ctile.hpp>
using namespace ctile;
using bad = network<input(4, 4, 1).range(-1, 200), conv2d(1, 1)>;
static_assert(bad::size > 0);
