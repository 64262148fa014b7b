// MobileNet-v1 declared in C++ as one template over width and resolution
// (examples/networks/mobilenet_v1.hpp): 1.0 at 128x128, 0.5 at 192x192 and 0.25 at 128x128,
// each planned for GAP-8 at compile time, run through the tiled executor and checked
// bit-exactly against the reference, layer by layer.
#include <ctile/platform/gap8.hpp>

#include "common/run.hpp"
#include "networks/mobilenet_v1.hpp"

int main() {
  using namespace ctile::examples;
  int failed = 0;
  failed += run_example<mobilenet_v1_100_128, ctile::gap8>("mobilenet_v1 1.0-128");
  failed += run_example<mobilenet_v1_050_192, ctile::gap8>("mobilenet_v1 0.5-192");
  failed += run_example<mobilenet_v1_025_128, ctile::gap8>("mobilenet_v1 0.25-128");
  return failed == 0 ? 0 : 1;
}
