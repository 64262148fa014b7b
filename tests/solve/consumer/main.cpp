#include <cstdio>

#include "net.plan.hpp"

static_assert(ctile::plan_is_imported<app_net, ctile::gap8>);

int main() {
  std::printf("app ok: %d layers, first tile %d rows\n", static_cast<int>(app_net::size),
              ctile::plan_of<app_net, ctile::gap8>.layers[1].tile_h);
  return 0;
}
