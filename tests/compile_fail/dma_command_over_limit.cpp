// expect: A DMA command exceeds the platform's DMA limits
// One 40,000-byte command is over GAP-8's safe maximum of 32 KiB per command.
#include <ctile/hal/baremetal.hpp>
#include <ctile/schedule/dma_split.hpp>
using namespace ctile;
void issue(hal::baremetal_dma& dma, void* l1, void* l2) {
  hal::baremetal_dma::handle h;
  schedule::start_command<schedule::dma_piece{0, 0, 40000, 0, 0}>(dma, hal::dma_dir::l2_to_l1, l1,
                                                                  l2, h);
}
