// MobileNet-v2 declared in C++ as one template over width and resolution
// (examples/networks/mobilenet_v2.hpp): 0.35 and 1.0 at 128x128, inverted residual blocks
// with residual adds, planned for GAP-8 at compile time, run through the tiled executor and
// checked bit-exactly against the reference, layer by layer.
#include <ctile/platform/gap8.hpp>

#include "common/run.hpp"
#include "networks/mobilenet_v2.hpp"

int main() {
  using namespace ctile::examples;
  int failed = 0;
  failed += run_example<mobilenet_v2_035_128, ctile::gap8>("mobilenet_v2 0.35-128");
  failed += run_example<mobilenet_v2_100_128, ctile::gap8>("mobilenet_v2 1.0-128");
  return failed == 0 ? 0 : 1;
}
