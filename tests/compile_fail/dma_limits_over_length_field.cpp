// expect: The DMA limits are inconsistent
// A safe maximum larger than the 16-bit length field cannot be honoured.
#include <ctile/schedule/dma_split.hpp>
using namespace ctile;
constexpr hal::dma_limits too_big{.max_command_bytes = 70000};
static_assert(schedule::dma_split<schedule::dma_transfer::contiguous(hal::dma_dir::l2_to_l1, 100),
                                  too_big>::size == 1);
