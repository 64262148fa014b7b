// Runs a whole network through the executor on the host's simulated memory and DMA and
// compares every layer's output, value by value, with the reference.
#pragma once

#include <gtest/gtest.h>

#include <ctile/ctile.hpp>
#include <ctile/hal/host.hpp>
#include <ctile/platform/gap8.hpp>
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

// The L2 the run really uses: bytes that differ from the fill in either of two runs with
// different fills (a byte the run writes holds the same value both times, so it cannot equal
// both fills). Returns one past the highest such byte.
template <class Net, platform Plat>
std::size_t l2_extent_used() {
  std::vector<std::uint8_t> a, b;
  run_on_host<Net, Plat>(hal::completion::at_wait, 1, 0xA5, &a);
  run_on_host<Net, Plat>(hal::completion::at_wait, 1, 0x5A, &b);
  std::size_t top = 0;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (a[k] != 0xA5 || b[k] != 0x5A) top = k + 1;
  return top;
}

// The L2 the executor touches reaches the plan's predicted peak (and never beyond: the
// simulated L2 is exactly that big), which is at most DORY's bidirectional-stack bound
// (`dory_bound`: a chain's, or any network's whose weights stream; a residual whose operands
// die together traps one of them on either side of the stack, which the bound covers only
// while each step's streamed weights pad it).
template <class Net, platform Plat, bool dory_bound = true>
void check_l2_peak() {
  using E = executor<Net, Plat>;
  const std::size_t used = l2_extent_used<Net, Plat>();
  EXPECT_LE(used, static_cast<std::size_t>(E::required_l2_bytes));
  EXPECT_GE(used + 4, static_cast<std::size_t>(E::required_l2_bytes));
  if constexpr (dory_bound) {
    EXPECT_LE(E::required_l2_bytes, E::plan.summary.dory_bound);
  }
}

// The example networks' activations must spread over the range, or bit-exactness means little.
template <class Net>
void check_activations_vary() {
  const auto& d = data<Net>();
  const auto outs = reference::run(Net::layers, d.params,
                                   std::span<const std::uint8_t>(d.input.data(), d.input.size()));
  for (std::size_t i = 1; i + 1 < Net::size; ++i) {
    std::size_t inside = 0;
    for (auto v : outs[i]) inside += v > 0 && v < 255;
    EXPECT_GT(inside, outs[i].size() / 4) << "layer " << i << " is mostly clipped";
  }
}

// Platforms that force many tiles and border tiles (a small L1), every L3 stage (a small L2),
// no L3 at all, or weights streamed from L3.
constexpr platform tiny_l1 = gap8.with_stacks(0, 0).with_l1(16 * 1024).named("tiny-l1");
constexpr platform small_l2 = gap8.with_l2(72 * 1024).with_code_reserve(0).named("small-l2");
constexpr platform no_l3 = gap8.with_l3(0).named("no-l3");
// Every layer's weights streamed from L3 each frame, even where they would fit L2.
constexpr platform streamed = gap8.with_streamed_weights().named("streamed");

}  // namespace ctile::test
