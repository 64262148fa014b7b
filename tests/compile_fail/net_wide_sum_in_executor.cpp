// expect: layer_output_range_exceeds_8_bits<3, .*"sum"\}, ctile::op::add, 0, 261120>.*16-bit tensor.*saturating
#include <ctile/ctile.hpp>
#include <ctile/platform/gap8.hpp>
#include <ctile/schedule/executor.hpp>
using namespace ctile;
// Two 8-bit tensors, each multiplied by 512, summed without a clip: 0..261120 (18 bits), wider
// than the 16-bit tensors the tiled runtime holds.
using wide = network<input(4, 4, 2), conv2d(2, 1).named("a"), conv2d(2, 1),
                     add("a")
                         .scaled(0, {512, 0, 0, false})
                         .scaled(1, {512, 0, 0, false})
                         .requantized(1, 1)
                         .unclipped()
                         .named("sum")>;
using run = executor<wide, gap8>;
static_assert(run::required_l1_bytes > 0);
