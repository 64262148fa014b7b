// expect: layer_takes_input_from_a_layer_that_is_not_earlier<1, .*"c1".*, 2>
#include <ctile/ctile.hpp>
using namespace ctile;
using bad = network<input(8, 8, 3), conv2d(3, 1).from("c2").named("c1"), conv2d(3, 1).named("c2")>;
static_assert(bad::size > 0);
