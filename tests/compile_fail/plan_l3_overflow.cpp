// expect: layer_does_not_fit_in_l3<1, ctile::fixed_string<5>\{"conv"\}, ctile::op::conv, 25690112, 8388608>.*L3 is too small
// clang: layer_does_not_fit_in_l3<1, fixed_string<[^>]*>\{"conv"\}, ctile::op::conv, 25690112, 8388608>
#include <ctile/ctile.hpp>
#include <ctile/platform/gap8.hpp>
#include <ctile/schedule/executor.hpp>
using namespace ctile;
// A 3x3 conv from a 224x224x3 input to 512 channels: its output, 224 x 224 x 512 =
// 25,690,112 B, cannot stay in GAP-8's 416 KiB L2 budget, so it goes to L3 (the conv's
// 512 x 3 x 3 x 3 = 13,824 B of weights can stay resident in L2): more than the 8 MiB
// (8,388,608 B) of L3.
// The error names the conv, not the global pool after it (which alone would not fit L1), and
// comes before any search (which for this layer would exceed GCC's constexpr operation limit).
using net = network<input(224, 224, 3), conv2d(512, 3).same().named("conv"),
                    global_avgpool().named("pool")>;
using exec = executor<net, gap8>;
int main() {
  return exec::required_l2_bytes;
}
