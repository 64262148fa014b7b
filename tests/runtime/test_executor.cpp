// Whole networks through the executor on the host's simulated memory and DMA: every layer's
// output, value by value, against the reference; with GAP-8's budgets, with a tiny L1 (many
// tiles and border tiles), and with a small L2 (every L3 stage); no checker violation.
#include <gtest/gtest.h>

#include <cstring>
#include <ctile/ctile.hpp>
#include <ctile/hal/host.hpp>
#include <ctile/platform/gap8.hpp>
#include <ctile/reference/reference.hpp>
#include <ctile/schedule/executor.hpp>
#include <ctile/schedule/host_run.hpp>
#include <memory>
#include <string>
#include <vector>

#include "check_network.hpp"
#include "common/synthetic.hpp"
#include "networks/cifar10_cnn.hpp"
#include "networks/residual.hpp"

namespace {

using namespace ctile;
using test::check_network;
using test::data;
using test::run_on_host;

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

constexpr platform tiny_l1 = gap8.with_stacks(0, 0).with_l1(16 * 1024).named("tiny-l1");
constexpr platform small_l2 = gap8.with_l2(72 * 1024).with_code_reserve(0).named("small-l2");
constexpr platform no_l3 = gap8.with_l3(0).named("no-l3");

TEST(Executor, Cifar10OnGap8) {
  check_network<examples::cifar10_cnn, gap8>("gap8");
}
TEST(Executor, Cifar10TinyL1) {
  check_network<examples::cifar10_cnn, tiny_l1>("tiny L1");
}
// The small-L2 platform must force the L3 stages: input rows, output rows and weight stripes.
TEST(Executor, SmallL2ForcesL3Stages) {
  const auto& p = executor<examples::cifar10_cnn, small_l2>::plan;
  bool x = false, y = false, w = false;
  for (const auto& lp : p.layers) {
    x = x || lp.l3.x;
    y = y || lp.l3.y;
    w = w || (lp.l3.w && lp.l3.w_stripe_c < 64 && lp.l3.stage >= 3);
  }
  EXPECT_TRUE(x);
  EXPECT_TRUE(y);
  EXPECT_TRUE(w);
}

TEST(Executor, Cifar10SmallL2) {
  check_network<examples::cifar10_cnn, small_l2>("small L2");
}
TEST(Executor, Cifar10WithoutL3) {
  check_network<examples::cifar10_cnn, no_l3>("no L3");
}
TEST(Executor, ResidualOnGap8) {
  check_network<examples::resnet_small, gap8>("gap8");
}
TEST(Executor, ResidualTinyL1) {
  check_network<examples::resnet_small, tiny_l1>("tiny L1");
}
TEST(Executor, ResidualSmallL2) {
  check_network<examples::resnet_small, small_l2>("small L2");
}

// The L2 the executor touches reaches the plan's predicted peak (and never beyond: the
// simulated L2 is exactly that big), which is at most DORY's bidirectional-stack bound.
template <class Net, platform Plat>
void check_l2_peak() {
  using E = executor<Net, Plat>;
  const std::size_t used = l2_extent_used<Net, Plat>();
  EXPECT_LE(used, static_cast<std::size_t>(E::required_l2_bytes));
  EXPECT_GE(used + 4, static_cast<std::size_t>(E::required_l2_bytes));
  EXPECT_LE(E::required_l2_bytes, E::plan.summary.dory_bound);
}

TEST(Executor, L2PeakMatchesThePlanAndDorysBound) {
  check_l2_peak<examples::cifar10_cnn, gap8>();
  check_l2_peak<examples::resnet_small, gap8>();
  check_l2_peak<examples::cifar10_cnn, small_l2>();
}

TEST(Executor, SyntheticActivationsSpread) {
  check_activations_vary<examples::cifar10_cnn>();
  check_activations_vary<examples::resnet_small>();
}

}  // namespace

namespace {

// A DMA that "forgets" to wait for every third transfer into L1: a deliberately broken
// schedule. The simulated memory must catch the kernel reading data that has not arrived.
class forgetful_dma {
 public:
  static constexpr hal::dma_limits limits = hal::host_dma::limits;
  using handle = hal::host_dma::handle;
  explicit forgetful_dma(hal::sim_memory& m) : inner_(m) {}
  void copy_1d(hal::dma_dir d, void* l1, void* l2, std::uint32_t n, handle& h) {
    inner_.copy_1d(d, l1, l2, n, h);
  }
  void copy_2d(hal::dma_dir d, void* l1, void* l2, std::uint32_t n, std::uint32_t line,
               std::uint32_t stride, handle& h) {
    inner_.copy_2d(d, l1, l2, n, line, stride, h);
  }
  void wait(handle& h) {
    if (++waits_ % 3 == 0) return;  // the bug
    inner_.wait(h);
  }

 private:
  hal::host_dma inner_;
  int waits_ = 0;
};

TEST(Executor, BrokenScheduleIsCaught) {
  using Net = examples::cifar10_cnn;
  using E = executor<Net, gap8>;
  const auto& d = data<Net>();
  hal::sim_memory mem({hal::completion::at_wait, 1, 0.5, false});
  auto l1 = mem.arena(hal::mem_level::l1, static_cast<std::size_t>(E::required_l1_bytes), "L1");
  auto l2 = mem.arena(hal::mem_level::l2, static_cast<std::size_t>(E::required_l2_bytes), "L2");
  hal::host_l3 l3(mem, static_cast<std::size_t>(E::required_l3_bytes));
  auto* l2p = reinterpret_cast<std::uint8_t*>(l2.data());
  E::stage(d.params, l2p, reinterpret_cast<std::uint8_t*>(l3.data().data()));
  std::memcpy(l2p + E::input_l2_offset, d.input.data(), d.input.size());
  std::vector<std::string> problems;
  forgetful_dma dma(mem);
  hal::host_cluster cluster(8);
  schedule::exec_env<forgetful_dma, hal::host_cluster, schedule::sim_checks> env{
      dma, cluster, {&mem, &problems}, 8};
  E::run(env, l3, E::prepare(d.params), reinterpret_cast<std::uint8_t*>(l1.data()), l2p);
  mem.finish();
  EXPECT_GT(mem.count(hal::violation_kind::read_before_wait), 0u) << mem.report_text();
}

}  // namespace
