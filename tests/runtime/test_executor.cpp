// Whole networks through the executor (the residual network: test_executor_residual.cpp) on the
// host's simulated memory and DMA: every layer's output, value by value, against the reference;
// with GAP-8's budgets, with a tiny L1 (many tiles and border tiles), and with a small L2 (every L3
// stage); no checker violation.
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

namespace {

using namespace ctile;
using test::check_activations_vary;
using test::check_l2_peak;
using test::check_network;
using test::data;
using test::no_l3;
using test::small_l2;
using test::tiny_l1;

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

// Two layers of the same shape, named apart, reading different tensors, with different
// requantization constants: one loop nest serves both, and the network stays bit-exact.
using twins = network<input(12, 10, 16),                                   //
                      pointwise(16).bn().requantized(1, 256).named("a"),   //
                      pointwise(16).bn().requantized(3, 1024).named("b"),  //
                      pointwise(8).bn().requantized(1, 128).named("c")>;

TEST(Executor, LayersOfOneShapeShareALoopNest) {
  using env = schedule::exec_env<hal::host_dma, hal::host_cluster, schedule::sim_checks>;
  for (const auto* what : {"gap8", "tiny L1"}) {
    SCOPED_TRACE(what);
    const bool gap = std::string(what) == "gap8";
    const auto& t = gap ? executor<twins, gap8>::static_tiles::table<env>
                        : executor<twins, tiny_l1>::static_tiles::table<env>;
    EXPECT_EQ(t[1], t[2]);
    EXPECT_NE(t[1], t[3]);
    EXPECT_NE(t[1], nullptr);
  }
  // Their plans differ in what the executor does around the loop (layer a prefetches b's
  // weights, b prefetches c's), not in the tiling.
  static_assert(executor<twins, gap8>::plan.layers[1] != executor<twins, gap8>::plan.layers[2]);
  static_assert(schedule::loop_key(executor<twins, gap8>::plan.layers[1]) ==
                schedule::loop_key(executor<twins, gap8>::plan.layers[2]));
  check_network<twins, gap8>("gap8");
  check_network<twins, tiny_l1>("tiny L1");
}

// TensorFlow's SAME padding with strides 3 and 2 (.same()), asymmetric where the rule says so
// (pads worked out by hand from TensorFlow's rule), through the planner's tiles, the kernels
// and the reference, bit-exact.
using same_strided =
    network<input(16, 17, 8),                                                       //
            conv2d(16, 5).strides(3).same().bn().requantized(1, 1024).named("s3"),  //
            depthwise(3).strides(2).same().bn().requantized(1, 64).named("dw"),     //
            maxpool(2).same().named("mp"),                                          //
            conv2d(8, 3).strides(2).same().bn().requantized(1, 512).named("s2")>;
// 16 rows: 16 % 3 = 1, pad 5 - 1 = 4 (2, 2); 17 columns: 17 % 3 = 2, pad 3 (1, 2); 6 x 6 out.
static_assert(same_strided::layers[1].pad == padding{2, 2, 1, 2});
static_assert(same_strided::layers[1].out == shape{6, 6, 16});
// 6 % 2 = 0: pad 3 - 2 = 1 (0, 1); 3 x 3 out. Then 3 % 2 = 1: pad 2 - 1 = 1 (0, 1); 2 x 2.
static_assert(same_strided::layers[2].pad == padding{0, 1, 0, 1});
static_assert(same_strided::layers[3].pad == padding{0, 1, 0, 1});
static_assert(same_strided::layers[4].pad == padding{0, 1, 0, 1});
static_assert(same_strided::output_shape == shape{1, 1, 8});

TEST(Executor, SamePaddingWithStrides) {
  check_network<same_strided, gap8>("gap8");
}

TEST(Executor, L2PeakMatchesThePlanAndDorysBound) {
  check_l2_peak<examples::cifar10_cnn, gap8>();
  check_l2_peak<examples::cifar10_cnn, small_l2>();
}

TEST(Executor, SyntheticActivationsSpread) {
  check_activations_vary<examples::cifar10_cnn>();
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
  const auto l2b = schedule::bytes_of(l2), l3b = schedule::bytes_of(l3.data());
  ASSERT_TRUE(E::stage(d.params, l2b, l3b).ok());
  ASSERT_TRUE(E::load_input(d.input, l2b, l3b).ok());
  E::quant_plans q{};
  ASSERT_TRUE(E::prepare(d.params, q).ok());
  std::vector<std::string> problems;
  forgetful_dma dma(mem);
  hal::host_cluster cluster(8);
  schedule::exec_env<forgetful_dma, hal::host_cluster, schedule::sim_checks> env{
      dma, cluster, {&mem, &problems}, 8};
  ASSERT_TRUE(E::run(env, l3, q, schedule::bytes_of(l1), l2b).ok());
  mem.finish();
  EXPECT_GT(mem.count(hal::violation_kind::read_before_wait), 0u) << mem.report_text();
}

}  // namespace
