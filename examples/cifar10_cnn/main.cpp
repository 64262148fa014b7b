// The CIFAR-10 style CNN of the DORY work-in-progress paper (four 3x3 convs with max pools, an
// FC), declared in C++ (examples/networks/cifar10_cnn.hpp), planned for GAP-8 at compile time,
// run through the tiled executor and checked bit-exactly against the reference.
#include <ctile/platform/gap8.hpp>

#include "common/run.hpp"
#include "networks/cifar10_cnn.hpp"

int main() {
  return ctile::examples::run_example<ctile::examples::cifar10_cnn, ctile::gap8>("cifar10_cnn");
}
