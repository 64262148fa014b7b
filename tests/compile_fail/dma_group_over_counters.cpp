// expect: A DMA transfer splits into more commands than the DMA has counters
// 20 lines of 40,000 B (over the 2D line limit) need 40 commands; MCHAN has 16 counters.
#include <ctile/hal/baremetal.hpp>
#include <ctile/schedule/dma_split.hpp>
using namespace ctile;
schedule::dma_transfer_group<
    schedule::dma_transfer::strided(hal::dma_dir::l2_to_l1, 20, 40000, 50000), hal::baremetal_dma>
    group;
