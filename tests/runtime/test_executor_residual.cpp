// The residual network through the executor on the host's simulated memory and DMA (see
// test_executor.cpp): every layer's output, value by value, against the reference, with
// GAP-8's budgets (weights resident in L2), a tiny L1, a small L2 and weights streamed from L3;
// no checker violation; the L2 peak.
#include <gtest/gtest.h>

#include "check_network.hpp"
#include "networks/residual.hpp"

namespace {

using namespace ctile;
using namespace ctile::test;

TEST(Executor, ResidualOnGap8) {
  check_network<examples::resnet_small, gap8>("gap8");
}
TEST(Executor, ResidualTinyL1) {
  check_network<examples::resnet_small, tiny_l1>("tiny L1");
}
TEST(Executor, ResidualSmallL2) {
  check_network<examples::resnet_small, small_l2>("small L2");
}
TEST(Executor, ResidualStreamedWeights) {
  check_network<examples::resnet_small, streamed>("streamed weights");
}
TEST(Executor, ResidualL2PeakMatchesThePlanAndDorysBound) {
  static_assert(!executor<examples::resnet_small, gap8>::plan.summary.weights_in_l3);
  check_l2_peak<examples::resnet_small, gap8, false>();
  check_l2_peak<examples::resnet_small, streamed>();
}
TEST(Executor, ResidualSyntheticActivationsSpread) {
  check_activations_vary<examples::resnet_small>();
}

}  // namespace
