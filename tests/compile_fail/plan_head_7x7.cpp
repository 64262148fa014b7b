// expect: layer_does_not_fit_in_l1<1, ctile::fixed_string<5>\{"head"\}, ctile::op::conv, 301080, 50196>.*no tiling of this layer fits L1
// clang: layer_does_not_fit_in_l1<1, fixed_string<[^>]*>\{"head"\}, ctile::op::conv, 301080, 50196>
#include <ctile/ctile.hpp>
#include <ctile/platform/gap8.hpp>
#include <ctile/schedule/executor.hpp>
using namespace ctile;
// A 7x7 conv over 14x14x1024. Its least L1 is one output per tile on one core: the input
// window 7 x 7 x 1024 = 50,176 B and the filter of one channel 50,176 B, both double-buffered
// (200,704 B), the im2col buffer of 2 pixels 2 x 50,176 = 100,352 B, two 4-byte output
// buffers and two kappa/lambda pairs (8 + 16 B): 301,080 B. GAP-8's L1 budget is
// 64,000 - 3,500 - 7 x 1,472 = 50,196 B.
using net = network<input(14, 14, 1024), conv2d(64, 7).bn().named("head")>;
using exec = executor<net, gap8>;
int main() {
  return exec::required_l1_bytes;
}
