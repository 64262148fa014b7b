// expect: layer_does_not_fit_in_l2<1, ctile::fixed_string<5>\{"wide"\}, ctile::op::conv, 1048640, 425984>.*L2 buffers do not fit
// clang: layer_does_not_fit_in_l2<1, fixed_string<[^>]*>\{"wide"\}, ctile::op::conv, 1048640, 425984>
#include <ctile/ctile.hpp>
#include <ctile/platform/gap8.hpp>
#include <ctile/schedule/executor.hpp>
using namespace ctile;
// Without L3, the 8 x 8 weights (64 B) stay in L2 and a 256x256x8 input and output
// (524,288 B each) must both be whole in L2: 1,048,640 B against 512 KiB - 96 KiB = 425,984 B.
using wide = network<input(256, 256, 8), pointwise(8).named("wide")>;
using exec = executor<wide, gap8.with_l3(0)>;
int main() {
  return exec::required_l2_bytes;
}
