// The residual network through the executor on the host's simulated memory and DMA (see
// test_executor.cpp): every layer's output, value by value, against the reference, with
// GAP-8's budgets, a tiny L1 and a small L2; no checker violation; the L2 peak.
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
TEST(Executor, ResidualL2PeakMatchesThePlanAndDorysBound) {
  check_l2_peak<examples::resnet_small, gap8>();
}
TEST(Executor, ResidualSyntheticActivationsSpread) {
  check_activations_vary<examples::resnet_small>();
}

}  // namespace
