// Prints the cost model's cycles for each cycle program's tile, one line per program:
// `kernel=<name> model=<cycles>` (read by check_calibration.py).
#include <cstdio>

#include "network/calibration.hpp"

int main() {
  for (const auto& t : ctile::bench::model_kernel_tiles())
    std::printf("kernel=%s macs=%lld model=%lld\n", t.program, static_cast<long long>(t.macs),
                static_cast<long long>(t.model_cycles));
  return 0;
}
