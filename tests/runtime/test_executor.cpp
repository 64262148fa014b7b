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

// Bytes of a layer's weights and per-channel constants, from its declaration (int8 weights,
// int32 bias / kappa / lambda per output channel).
std::uint64_t declared_weight_bytes(const layer& l) {
  std::uint64_t per_c = 0;
  if (l.kind == op::conv) per_c = std::uint64_t(l.kernel.h) * l.kernel.w * l.in.c;
  if (l.kind == op::depthwise) per_c = std::uint64_t(l.kernel.h) * l.kernel.w;
  if (l.kind == op::linear) per_c = static_cast<std::uint64_t>(l.in.elements());
  const int arrays = (l.bias ? 1 : 0) + (l.batchnorm ? 2 : 0);
  return per_c == 0 ? 0 : std::uint64_t(l.out.c) * (per_c + 4 * arrays);
}

// The bytes a run reads from L3 (stage() writes the image beforehand, outside the run).
template <class Net, platform Plat>
std::uint64_t l3_reads() {
  return test::run_on_host<Net, Plat>(hal::completion::at_wait, 3)
      .traffic.bytes_on(hal::traffic_path::l3_to_l2);
}

// On GAP-8 CIFAR-10's 108 KB of weights stay resident in L2: staged once, read in place, never
// read from L3 (the run above, bit-exact). Streaming forced, they come from L3 every frame,
// every byte once, and the network stays bit-exact.
static_assert(!executor<examples::cifar10_cnn, gap8>::plan.summary.weights_in_l3);
static_assert(executor<examples::cifar10_cnn, test::streamed>::plan.summary.weights_resident == 0);
TEST(Executor, Cifar10WeightsResidentReadNothingFromL3) {
  EXPECT_EQ((l3_reads<examples::cifar10_cnn, gap8>()), 0u);
}
TEST(Executor, Cifar10StreamedWeights) {
  check_network<examples::cifar10_cnn, test::streamed>("streamed weights");
  std::uint64_t all = 0;
  for (const layer& l : examples::cifar10_cnn::layers) all += declared_weight_bytes(l);
  EXPECT_EQ((l3_reads<examples::cifar10_cnn, test::streamed>()), all);
}

// One large layer among small ones on a small L2: the small layers' weights resident, the large
// one's streamed by channel stripes; bit-exact, and only the large layer's weights read from L3.
using split_net = network<input(8, 8, 64), pointwise(64).bn().requantized(1, 1 << 9).named("a"),
                          conv2d(128, 3).same().bn().requantized(1, 1 << 12).named("big"),
                          pointwise(64).bn().requantized(1, 1 << 11).named("c")>;
constexpr platform split_l2 = gap8_dory.with_l2(48 * 1024).with_code_reserve(0).named("split-l2");
TEST(Executor, WeightsSplitBetweenL2AndL3) {
  using E = executor<split_net, split_l2>;
  ASSERT_FALSE(E::plan.layers[1].l3.w);
  ASSERT_TRUE(E::plan.layers[2].l3.w);
  ASSERT_FALSE(E::plan.layers[3].l3.w);
  check_network<split_net, split_l2>("split");
  EXPECT_EQ((l3_reads<split_net, split_l2>()), declared_weight_bytes(split_net::layers[2]));
  check_network<split_net, split_l2.with_streamed_weights()>("split, streamed");
}

// Runs an imported plan of split_net on the host under in-order and random completion: no
// checker problem, every layer's output equal to the reference's. Returns each run's bytes read
// from L3.
std::vector<std::uint64_t> run_split_net(const std::vector<layer>& ls,
                                         const std::vector<layer_plan>& plans,
                                         const std::vector<layer_l2>& l2, const network_summary& s,
                                         int cores, std::uint64_t seed) {
  const auto& d = test::data<split_net>();
  std::vector<kernels::requant_plan> quant(ls.size());
  for (std::size_t i = 0; i < ls.size(); ++i) quant[i] = kernels::plan_for(ls[i], d.params[i]);
  int l1 = 4;
  for (const auto& q : plans) l1 = q.l1.total > l1 ? q.l1.total : l1;
  const std::span<const std::uint8_t> in(d.input.data(), d.input.size());
  const auto want = reference::run(split_net::layers, d.params, in);
  std::vector<std::uint64_t> read;
  for (auto mode : {hal::completion::at_wait, hal::completion::random}) {
    schedule::host_run_options o;
    o.mode = mode;
    o.seed = seed;
    o.cores = cores;
    const auto r = schedule::run_on_host(schedule::plan_view{ls, plans, l2}, l1, s.l2_peak,
                                         s.l3_used, d.params, in, quant, o);
    for (const auto& pr : r.problems) ADD_FAILURE() << pr;
    for (std::size_t i = 1; i < ls.size(); ++i) EXPECT_EQ(r.outputs[i], want[i]) << i;
    read.push_back(r.traffic.bytes_on(hal::traffic_path::l3_to_l2));
  }
  return read;
}

// The network input in L3, as a joint solve may place it (imported decisions, re-checked by
// finish_network_imported): the first layer reads it by row bands from L3 while its weights
// and the last layer's are resident in L2 and the big layer's stream whole, prefetched. The run
// reads from L3 exactly the input and the big layer's weights, and is bit-exact. With streaming
// forced, the same decisions are refused, naming the first resident layer.
TEST(Executor, InputInL3WithResidentWeights) {
  const std::vector<layer> ls(split_net::layers.begin(), split_net::layers.end());
  std::vector<layer_plan> plans(ls.size());
  plan_layers(ls, gap8, objective::model, plans);
  std::vector<imported_l3> choice(ls.size());
  for (std::size_t i = 0; i < ls.size(); ++i)
    choice[i] = {false, ls[i].out.c, false, ls[i].out.h, false};
  choice[0].y = true;
  choice[1].prefetch_next = true;
  choice[2].w = true;
  std::vector<layer_l2> l2(ls.size());
  const network_summary s = finish_network_imported(ls, gap8, plans, l2, choice);
  ASSERT_TRUE(s.ok()) << imported_constraint_text(s.violated) << " at " << s.layer;
  ASSERT_GE(l2[0].l3_y, 0);
  ASSERT_TRUE(plans[1].l3.x);
  EXPECT_EQ(l2[1].w_why, weight_reason::imported);
  EXPECT_EQ(l2[1].l3_w, -1);
  EXPECT_GE(l2[2].l3_w, 0);
  for (const std::uint64_t read : run_split_net(ls, plans, l2, s, gap8.cores, 5))
    EXPECT_EQ(read, static_cast<std::uint64_t>(split_net::input_shape.elements()) +
                        declared_weight_bytes(ls[2]));
  std::vector<layer_l2> l2f(ls.size());
  const network_summary f =
      finish_network_imported(ls, gap8.with_streamed_weights(), plans, l2f, choice);
  EXPECT_EQ(f.violated, imported_constraint::weights_resident_while_streaming_forced);
  EXPECT_EQ(f.layer, 1);
  EXPECT_EQ(f.needs, static_cast<std::int64_t>(declared_weight_bytes(ls[1])));
}

// The previous step reads a layer's first weight block from L3 while it runs: the whole
// weights, the first channel stripe of a loop nest that runs across the stripes, or the first
// stripe of the first row band (the stripes read again for the next band). Each plan, imported
// (finish_network_imported checks it), runs bit-exact under in-order and random completion
// with the simulated memory checking that nothing is read before its transfer completed, and
// reads every weight byte from L3 once per band; without the prefetch the same stripes run
// too. The model shows the prefetched block only where it exceeds the previous step's slack.
TEST(Executor, PrefetchedFirstWeightBlock) {
  const std::vector<layer> ls(split_net::layers.begin(), split_net::layers.end());
  std::vector<layer_plan> plans(ls.size());
  plan_layers(ls, tiny_l1, objective::model, plans);
  {  // Row tiles of half the output, so that rows in L3 make two bands.
    tiling_problem P = make_problem(ls[2], tiny_l1);
    P.max_tile_h = ls[2].out.h / 2;
    plans[2] = plan_problem(P, objective::model);
    plans[2].max_tile_h = P.max_tile_h;
  }
  const layer_plan& big = plans[2];
  ASSERT_TRUE(big.fits);
  ASSERT_LT(big.tile_c, ls[2].out.c);
  ASSERT_LT(big.tile_h, ls[2].out.h);
  struct variant {
    const char* what;
    int stripe_c;
    bool rows_in_l3;
    bool prefetch;
  };
  const int tc = big.tile_c;
  std::int64_t striped_cycles[2] = {0, 0};
  for (const variant v : {variant{"whole", 128, false, true}, variant{"stripes", tc, false, true},
                          variant{"two stripes", 2 * tc < 128 ? 2 * tc : tc, false, true},
                          variant{"stripes per band", tc, true, true},
                          variant{"stripes, not prefetched", tc, false, false}}) {
    SCOPED_TRACE(v.what);
    std::vector<layer_plan> ps = plans;
    std::vector<imported_l3> choice(ls.size());
    for (std::size_t i = 0; i < ls.size(); ++i)
      choice[i] = {false, ls[i].out.c, false, ls[i].out.h, false};
    choice[1].prefetch_next = v.prefetch;
    choice[2].w = true;
    choice[2].w_stripe_c = v.stripe_c;
    if (v.rows_in_l3) {
      choice[2].y = true;
      choice[2].y_stripe_h = big.tile_h;
    }
    std::vector<layer_l2> l2(ls.size());
    const network_summary s = finish_network_imported(ls, tiny_l1, ps, l2, choice);
    ASSERT_TRUE(s.ok()) << imported_constraint_text(s.violated) << " at " << s.layer;
    ASSERT_EQ(ps[1].l3.prefetch_next, v.prefetch);
    const l3_decision& w = ps[2].l3;
    ASSERT_TRUE(w.w);
    ASSERT_EQ(w.w_stripe_c, v.stripe_c);
    EXPECT_EQ(schedule::spans_stripes(ls[2], ps[2]), v.stripe_c < 128 && !v.rows_in_l3);
    if (std::string(v.what) == "stripes") striped_cycles[0] = w.cycles;
    if (!v.prefetch) striped_cycles[1] = w.cycles;
    const int bands = v.rows_in_l3 ? (ls[2].out.h + big.tile_h - 1) / big.tile_h : 1;
    // (With rows in L3 the last layer reads its input from there too.)
    for (const std::uint64_t read : run_split_net(ls, ps, l2, s, tiny_l1.cores, 11))
      EXPECT_EQ(read, bands * declared_weight_bytes(ls[2]) +
                          (v.rows_in_l3 ? static_cast<std::uint64_t>(ls[2].output_bytes()) : 0u));
  }
  // The first stripe hidden behind the previous step (its loop nest, with nothing of its own
  // in L3, is longer than one stripe's read).
  const std::int64_t stripe =
      cost::l3_cycles(tiny_l1, tc * (declared_weight_bytes(ls[2]) / 128), 1);
  ASSERT_GT(plans[1].l1_cycles, stripe);
  EXPECT_EQ(striped_cycles[1] - striped_cycles[0], stripe);
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
  // With their weights streamed, their plans differ in what the executor does around the loop
  // (layer a prefetches b's weights, b prefetches c's), not in the tiling.
  using streamed_twins = executor<twins, test::streamed>;
  static_assert(streamed_twins::plan.layers[1] != streamed_twins::plan.layers[2]);
  static_assert(schedule::loop_key(twins::layers[1], streamed_twins::plan.layers[1]) ==
                schedule::loop_key(twins::layers[2], streamed_twins::plan.layers[2]));
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

// DORY's bound holds for GAP-8's budgets (every weight resident) and for weights streamed from
// L3. With a few weights resident beside streamed ones (the small L2: conv1's 1,120 B stay) the
// two-sided stack can exceed the bound of that same plan (57,504 B against 52,832 B), though it
// needs less L2 than the fully streamed plan (73,728 B): only the peak is checked there.
TEST(Executor, L2PeakMatchesThePlanAndDorysBound) {
  check_l2_peak<examples::cifar10_cnn, gap8>();
  check_l2_peak<examples::cifar10_cnn, small_l2, false>();
  check_l2_peak<examples::cifar10_cnn, small_l2.with_streamed_weights()>();
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
