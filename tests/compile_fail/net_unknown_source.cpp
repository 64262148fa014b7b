// expect: layer_takes_input_from_an_unknown_name<2, .*"sum".*"nowhere".*no earlier layer has
#include <ctile/ctile.hpp>
using namespace ctile;
using bad = network<input(8, 8, 3), conv2d(3, 1), add("nowhere").named("sum")>;
static_assert(bad::size > 0);
