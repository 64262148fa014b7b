// Signed and sub-byte activations through the executor on the host's simulated memory and DMA:
// a signed 2-bit input, layers clipped to signed and unsigned 4- and 8-bit ranges, a signed
// max pool and average, a residual sum proven to fit 8 bits without a clip, and one saturated
// on request. Every layer's output, value by value, against the reference (itself checked
// against plain loops in tests/core), at GAP-8's budgets and on a tiny L1 (many border tiles).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "check_network.hpp"

namespace {

using namespace ctile;
using namespace ctile::test;

using signed_net =
    network<input(8, 10, 4).signed_bits(2),                                         //
            conv2d(8, 3).same().with_bias().requantized(1, 32, -8, 7).named("c1"),  // s4
            depthwise(3).same().requantized(1, 4, -128, 127).named("dw"),           // s8
            maxpool(2).named("mp"),                                                 // s8
            pointwise(8).requantized(1, 256, 0, 15).named("pw"),                    // u4 from s8
            conv2d(8, 1).from("mp").signed_bits(8).requantized(1, 64, -128, 127).named("s"),
            add("mp").requantized(1, 2).unclipped().named("half"),  // (s + mp) / 2: proven s8
            add("s").requantized(1, 1).unclipped().saturating().named("sat"),  // half + s:
                                                                               // saturated
            avgpool(2).range(-8, 7).named("avg"),                              // s4
            linear(10).raw().named("fc")>;

static_assert(signed_net::layers[6].out_range == value_range{-128, 127});
static_assert(signed_net::layers[7].saturated);

// The reference on the executor's input bytes read with the input's signedness.
std::vector<reference::values> expected() {
  const auto& d = data<signed_net>();
  reference::values x;
  for (const std::uint8_t b : d.input) x.push_back(static_cast<std::int8_t>(b));
  return reference::run(signed_net::layers, d.params, std::span<const std::int32_t>(x));
}

template <platform Plat>
void check_signed(const char* what) {
  const auto want = expected();
  for (const auto mode : {hal::completion::at_wait, hal::completion::random}) {
    const auto r = run_on_host<signed_net, Plat>(mode, 5);
    SCOPED_TRACE(what);
    for (const auto& p : r.problems) ADD_FAILURE() << p;
    for (std::size_t i = 0; i < signed_net::size; ++i) {
      ASSERT_EQ(r.outputs[i].size(), want[i].size());
      std::size_t bad = 0;
      for (std::size_t k = 0; k < want[i].size(); ++k) bad += r.outputs[i][k] != want[i][k];
      EXPECT_EQ(bad, 0u) << "layer " << i << " (" << op_name(signed_net::layers[i].kind) << ")";
    }
  }
}

TEST(Executor, SignedAndSubByteOnGap8) {
  check_signed<gap8>("gap8");
}
TEST(Executor, SignedAndSubByteTinyL1) {
  check_signed<tiny_l1>("tiny L1");
}

// The same network planned at run time (the path of imported graphs: ctile-verify).
TEST(Executor, SignedAndSubBytePlannedAtRunTime) {
  const auto want = expected();
  const auto& d = data<signed_net>();
  const auto r =
      schedule::plan_and_run_on_host(tiny_l1, signed_net::layers, d.params,
                                     std::span<const std::uint8_t>(d.input.data(), d.input.size()));
  ASSERT_TRUE(r.planned);
  for (const auto& p : r.run.problems) ADD_FAILURE() << p;
  for (std::size_t i = 0; i < signed_net::size; ++i) {
    ASSERT_EQ(r.run.outputs[i].size(), want[i].size());
    std::size_t bad = 0;
    for (std::size_t k = 0; k < want[i].size(); ++k) bad += r.run.outputs[i][k] != want[i][k];
    EXPECT_EQ(bad, 0u) << "layer " << i;
  }
}

// A sum that can exceed 16 bits (the widest activation the tiled runtime holds) is not run
// (it would be cut silently): the run-time path says which layer and its proven range.
TEST(Executor, SumBeyond16BitsIsRefusedAtRunTime) {
  std::vector<layer> ls{input(4, 4, 2), conv2d(2, 1).named("a"), conv2d(2, 1),
                        add("a")
                            .scaled(0, {512, 0, 0, false})
                            .scaled(1, {512, 0, 0, false})
                            .requantized(1, 1)
                            .unclipped()
                            .named("sum")};
  ASSERT_TRUE(infer(ls).ok());
  const std::int8_t w[4] = {1, 0, 0, 1};
  const std::vector<layer_params> ps{{}, {w}, {w}, {}};
  const std::uint8_t x[32] = {};
  const auto r = schedule::plan_and_run_on_host(gap8, ls, ps, x);
  ASSERT_EQ(r.run.problems.size(), 1u);
  EXPECT_NE(r.run.problems[0].find("layer 3 'sum' (add)"), std::string::npos) << r.run.problems[0];
  EXPECT_NE(r.run.problems[0].find("0..261120 does not fit 16 bits"), std::string::npos)
      << r.run.problems[0];
  EXPECT_TRUE(r.run.outputs.empty());
}

// The data exercise what they should: negative values in the signed layers, and values the
// saturating sum did clip (counted by the reference's per-layer report).
TEST(Executor, SignedActivationsSpreadAndSaturationIsCounted) {
  const auto want = expected();
  for (const std::size_t i : {0u, 1u, 2u, 3u, 5u, 6u, 8u}) {
    std::size_t neg = 0;
    for (const auto v : want[i]) neg += v < 0;
    EXPECT_GT(neg, want[i].size() / 8) << "layer " << i;
  }
  const auto n = reference::saturation_counts(signed_net::layers, data<signed_net>().params, want);
  for (std::size_t i = 0; i < n.size(); ++i) {
    if (i != 7) {
      EXPECT_EQ(n[i], 0) << "layer " << i;
    }
  }
  EXPECT_GT(n[7], 0);
}

}  // namespace
