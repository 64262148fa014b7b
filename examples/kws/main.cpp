// The 12-layer keyword-spotting network (examples/networks/kws.hpp), planned for GAP-8 at
// compile time, run through the tiled executor and checked bit-exactly against the reference.
// bench/compile_cost measures what compiling it costs.
#include <ctile/platform/gap8.hpp>

#include "common/run.hpp"
#include "networks/kws.hpp"

int main() {
  return ctile::examples::run_example<ctile::examples::kws, ctile::gap8>("kws");
}
