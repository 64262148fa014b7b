// expect: layer_does_not_fit_in_l1<1, ctile::fixed_string<4>\{"big"\}, ctile::op::conv, [0-9]+, 50196>.*no tiling of this layer fits L1
#include <ctile/ctile.hpp>
#include <ctile/platform/gap8.hpp>
#include <ctile/schedule/executor.hpp>
using namespace ctile;
// A 3x3 conv over 2048 channels: its input window and one channel's filter (3 x 3 x 2048 B
// each, double-buffered) and its im2col buffer (2 x 2048 x 9 B) exceed L1 even on one core, so
// running it on fewer cores does not help.
using too_big = network<input(8, 8, 2048), conv2d(16, 3).same().named("big")>;
using exec = executor<too_big, gap8>;
int main() {
  return exec::required_l1_bytes;
}
