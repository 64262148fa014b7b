// The PMSIS HAL compiled for the cluster's ISA (RV32IMC, freestanding, no exceptions) against
// the stand-in GAP SDK headers, with GCC 12 and clang-19 and -Wall -Wextra -Wpedantic -Werror:
// every member is instantiated, and a transfer is split to the PMSIS DMA's limits.
#include <ctile/hal/pmsis.hpp>
#include <ctile/schedule/dma_split.hpp>

static_assert(ctile::hal::has_pmsis && ctile::hal::has_pmsis_ram);

namespace {
unsigned char l2_buffer[70000];
}
unsigned char l1_buffer[70000];

extern "C" int ctile_pmsis_cross(struct pi_device* ram) {
  using namespace ctile::hal;
  pmsis_dma dma;
  pmsis_dma::handle h{};
  dma.copy_1d(dma_dir::l2_to_l1, l1_buffer, l2_buffer, 100, h);
  dma.wait(h);
  dma.copy_2d(dma_dir::l1_to_l2, l1_buffer, l2_buffer, 120, 12, 40, h);
  dma.wait(h);
  ctile::schedule::dma_transfer_group<
      ctile::schedule::dma_transfer::contiguous(dma_dir::l2_to_l1, 65536), pmsis_dma>
      g;
  g.start(dma, l1_buffer, l2_buffer);
  g.wait(dma);

  pmsis_cluster c;
  int sum = 0;
  c.fork([&](int id) {
    if (id == 0) sum = c.cores();
    c.barrier();
  });
  c.fork(2, [&](int id) { sum += id + c.core_id(); });

  pmsis_l3 l3(ram);
  pmsis_l3::read_handle r;
  pmsis_l3::write_handle w;
  l3.read(l2_buffer, 0x100, 64, r);
  l3.write(0x200, l2_buffer, 64, w);
  l3.wait(r);
  l3.wait(w);
  return sum;
}
