// What every example's main does, firmware style: generate the network's data and run it
// through ctile::run_and_check (ctile/host/run.hpp): planned for the platform at compile time,
// run through the tiled executor with caller-allocated L1/L2/L3, every layer checked against
// the reference value by value, and the layer table printed.
#pragma once

#include <ctile/host/run.hpp>

#include "common/synthetic.hpp"

namespace ctile::examples {

/// Runs network `Net` planned for `Plat` on deterministic synthetic data and checks it.
template <network_type Net, platform Plat>
int run_example(const char* title) {
  static synthetic<Net> data{1};
  return run_and_check<Net, Plat>(title, data.params, data.input);
}

}  // namespace ctile::examples
