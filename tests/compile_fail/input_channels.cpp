// expect: layer_expects_other_input_channels<2, ctile::fixed_string<6>\{"conv2"\}, ctile::op::conv,
// 3, 3, 16, 1, 32>.*a layer expects a different number of input channels
#include <ctile/ctile.hpp>
using namespace ctile;
using bad = network<input(32, 32, 3), conv2d(32, 3).same().named("conv1"),
                    conv2d(16, 3).same().expects_channels(16).named("conv2")>;
static_assert(bad::size == 3);
