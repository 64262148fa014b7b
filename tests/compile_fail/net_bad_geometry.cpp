// expect: kernel_and_stride_must_be_positive<1, .*"s0"\}, ctile::op::conv, 3, 3, 0, 1>
#include <ctile/ctile.hpp>
using namespace ctile;
using bad = network<input(8, 8, 1), conv2d(1, 3).strides(0, 1).named("s0")>;
static_assert(bad::size > 0);
