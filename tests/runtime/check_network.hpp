// Runs a whole network through the executor on the host's simulated memory and DMA and
// compares every layer's output, value by value, with the reference.
#pragma once

#include <gtest/gtest.h>

#include <ctile/ctile.hpp>
#include <ctile/hal/host.hpp>
#include <ctile/reference/reference.hpp>
#include <ctile/schedule/executor.hpp>
#include <ctile/schedule/host_run.hpp>
#include <initializer_list>
#include <memory>
#include <span>
#include <vector>

#include "common/synthetic.hpp"

namespace ctile::test {

template <class Net>
const examples::synthetic<Net>& data() {
  static const auto d = std::make_unique<examples::synthetic<Net>>(7);
  return *d;
}

template <class Net, platform Plat>
schedule::host_run_result run_on_host(hal::completion mode, std::uint64_t seed,
                                      std::uint8_t canary = 0,
                                      std::vector<std::uint8_t>* l2_after = nullptr) {
  const auto& d = data<Net>();
  schedule::host_run_options o;
  o.mode = mode;
  o.seed = seed;
  o.l2_fill = canary;
  o.l2_after = l2_after;
  return ctile::run_on_host<Net, Plat>(
      d.params, std::span<const std::uint8_t>(d.input.data(), d.input.size()), o);
}

template <class Net, platform Plat>
void check_network(const char* what, std::initializer_list<hal::completion> modes = {
                                         hal::completion::at_wait, hal::completion::random}) {
  const auto& d = data<Net>();
  const auto expected = reference::run(
      Net::layers, d.params, std::span<const std::uint8_t>(d.input.data(), d.input.size()));
  for (auto mode : modes) {
    const auto r = run_on_host<Net, Plat>(mode, 11);
    SCOPED_TRACE(testing::Message()
                 << what << (mode == hal::completion::random ? " (random DMA)" : ""));
    for (const auto& p : r.problems) ADD_FAILURE() << p;
    for (std::size_t i = 0; i < Net::size; ++i) {
      ASSERT_EQ(r.outputs[i].size(), expected[i].size()) << "layer " << i;
      std::size_t bad = 0;
      for (std::size_t k = 0; k < expected[i].size(); ++k) bad += r.outputs[i][k] != expected[i][k];
      EXPECT_EQ(bad, 0u) << "layer " << i << " (" << op_name(Net::layers[i].kind) << ")";
    }
  }
}

}  // namespace ctile::test
