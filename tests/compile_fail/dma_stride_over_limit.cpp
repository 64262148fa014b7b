// expect: A DMA command exceeds the platform's DMA limits
// A 2D command whose L2 stride (40,000) does not fit MCHAN's 15-bit stride field.
#include <ctile/hal/baremetal.hpp>
#include <ctile/schedule/dma_split.hpp>
using namespace ctile;
void issue(hal::baremetal_dma& dma, void* l1, void* l2) {
  hal::baremetal_dma::handle h;
  schedule::start_command<schedule::dma_piece{0, 0, 1000, 100, 40000}>(dma, hal::dma_dir::l2_to_l1,
                                                                       l1, l2, h);
}
