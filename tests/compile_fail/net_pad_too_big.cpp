// expect: padding_must_be_smaller_than_kernel<1, .*"p"\}, ctile::op::maxpool, 3, 3, 3, 0, 0, 0>
#include <ctile/ctile.hpp>
using namespace ctile;
using bad = network<input(8, 8, 1), maxpool(3).padded(3, 0, 0, 0).named("p")>;
static_assert(bad::size > 0);
