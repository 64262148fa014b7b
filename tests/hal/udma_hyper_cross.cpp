// The HyperRAM driver on its own for RV32IMC, freestanding (tests/hal/CMakeLists.txt compiles
// it with GCC 12 and clang-19 under -Wall -Wextra -Wpedantic -Werror): the header includes
// what it uses, and the target's register access (volatile 32-bit loads and stores) builds.
#include <ctile/hal/udma_hyper.hpp>

alignas(8) static unsigned char l2_buffer[256];

int udma_hyper_round_trip() {
  ctile::hal::udma_hyper_l3 hyper;
  hyper.init();
  ctile::hal::udma_hyper_l3::write_handle w;
  hyper.write(64, l2_buffer, 200000, w);
  hyper.wait(w);
  ctile::hal::udma_hyper_l3::read_handle r;
  hyper.read(l2_buffer, 64, 3, r);
  hyper.wait(r);
  return l2_buffer[0];
}
