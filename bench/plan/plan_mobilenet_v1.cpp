// Compile-time benchmark: this translation unit plans MobileNet-v1 1.0 at 128x128 on GAP-8
// (all 28 conv/depthwise/pointwise/FC layers plus the pool) in the compiler. Compare its
// compile time with baseline_mobilenet_v1.cpp, which declares the same network without
// planning it (compile_time.sh does both).
#include <ctile/plan/plan.hpp>

#include "networks/mobilenet_v1.hpp"

using net = ctile::examples::mobilenet_v1_100_128;
static_assert(ctile::plan_of<net, ctile::gap8>.summary.ok());

int main() {
  return static_cast<int>(ctile::plan_of<net, ctile::gap8>.summary.cycles & 1);
}
