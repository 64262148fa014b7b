// A small ResNet-style network with identity and strided 1x1 shortcuts: residual tensors stay
// alive on the L2 stack until their last consumer. Planned for GAP-8, checked bit-exactly.
#include <ctile/platform/gap8.hpp>

#include "common/run.hpp"
#include "networks/residual.hpp"

int main() {
  return ctile::examples::run_example<ctile::examples::resnet_small, ctile::gap8>("residual");
}
