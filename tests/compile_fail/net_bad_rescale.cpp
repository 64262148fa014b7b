// expect: residual_rescale_shift_out_of_range<2, .*"r"\}, 1, 40>
#include <ctile/ctile.hpp>
using namespace ctile;
using bad = network<input(4, 4, 2), conv2d(2, 1).named("a"),
                    add("a").scaled(1, rescale{1, 0, 40, false}).named("r")>;
static_assert(bad::size > 0);
