// expect: residual_add_inputs_differ_in_shape<3, .*"res".*, 4, 4, 4, 8, 8, 4>.*same H x W x C
#include <ctile/ctile.hpp>
using namespace ctile;
using bad = network<input(8, 8, 4), conv2d(4, 1).named("a"), maxpool(2), add("a").named("res")>;
static_assert(bad::size > 0);
