// The baseline of plan_mobilenet_v1.cpp: the same headers and network, no planning.
#include <ctile/plan/plan.hpp>

#include "networks/mobilenet_v1.hpp"

using net = ctile::examples::mobilenet_v1_100_128;
static_assert(net::size == 30);

int main() {
  return static_cast<int>(net::total_macs() & 1);
}
