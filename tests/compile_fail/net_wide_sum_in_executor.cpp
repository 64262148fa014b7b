// expect: layer_output_range_exceeds_8_bits<3, .*"sum"\}, ctile::op::add, 0, 510>.*saturating
#include <ctile/ctile.hpp>
#include <ctile/platform/gap8.hpp>
#include <ctile/schedule/executor.hpp>
using namespace ctile;
// Mul(32) -> Add -> Div(32) -> Floor without Clip over two 8-bit tensors: 0..510.
using wide = network<input(4, 4, 2), conv2d(2, 1).named("a"), conv2d(2, 1),
                     add("a")
                         .scaled(0, {32, 0, 0, false})
                         .scaled(1, {32, 0, 0, false})
                         .requantized(1, 32)
                         .unclipped()
                         .named("sum")>;
using run = executor<wide, gap8>;
static_assert(run::required_l1_bytes > 0);
