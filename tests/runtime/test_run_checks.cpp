// The run-time entry points check every size they are given against the network's shapes and
// the plan and refuse, with a run_status naming the layer, the field and the numbers, instead of
// reading or writing past the end. The data here is on the heap at exactly the wrong size, so
// that a missing check is a heap-buffer-overflow under AddressSanitizer, not a silent read.
#include <gtest/gtest.h>

#include <ctile/ctile.hpp>
#include <ctile/hal/host.hpp>
#include <ctile/platform/gap8.hpp>
#include <ctile/reference/reference.hpp>
#include <ctile/schedule/executor.hpp>
#include <ctile/schedule/host_run.hpp>
#include <span>
#include <string>
#include <vector>

#include "common/synthetic.hpp"

namespace {

using namespace ctile;
using F = run_status::field;

// Every kind of constant data: conv weights with batch-norm, depthwise, a linear with bias.
using net = network<input(10, 8, 4),                                             //
                    conv2d(8, 3).same().bn().requantized(1, 1 << 9).named("c"),  //
                    depthwise(3).same().bn().requantized(1, 1 << 7).named("d"),  //
                    linear(5).with_bias().raw().named("fc")>;
constexpr platform plat = gap8;
using E = executor<net, plat>;

// The synthetic data copied into heap arrays of their exact sizes; `grow` adds elements to one
// field of one layer (negative: removes them).
struct heap_data {
  std::vector<std::vector<std::int8_t>> w;
  std::vector<std::vector<std::int32_t>> b, k, l;
  net::params params{};
  std::vector<std::uint8_t> input;

  explicit heap_data(F field = F::none, std::size_t layer = 0, int grow = 0) {
    static const examples::synthetic<net> s(3);
    w.resize(net::size), b.resize(net::size), k.resize(net::size), l.resize(net::size);
    const auto sized = [&](auto& v, auto from, F f, std::size_t i) {
      v.assign(from.begin(), from.end());
      if (f == field && i == layer)
        v.resize(static_cast<std::size_t>(static_cast<int>(v.size()) + grow));
      v.shrink_to_fit();
    };
    for (std::size_t i = 0; i < net::size; ++i) {
      sized(w[i], s.params[i].weights, F::weights, i);
      sized(b[i], s.params[i].bias, F::bias, i);
      sized(k[i], s.params[i].kappa, F::kappa, i);
      sized(l[i], s.params[i].lambda, F::lambda, i);
      params[i] = {w[i], b[i], k[i], l[i]};
    }
    input.assign(s.input.begin(), s.input.end());
    if (field == F::input)
      input.resize(static_cast<std::size_t>(static_cast<int>(input.size()) + grow));
    input.shrink_to_fit();
  }
};

std::vector<std::uint8_t> buffer(std::int64_t bytes) {
  return std::vector<std::uint8_t>(static_cast<std::size_t>(bytes));
}

// One case per layer with data and per field it has, too short by one and too long by one.
struct data_case {
  F field;
  std::size_t layer;
  std::int64_t elements;
};
std::vector<data_case> data_cases() {
  std::vector<data_case> r;
  for (std::size_t i = 0; i < net::size; ++i) {
    const layer& l = net::layers[i];
    if (l.weight_count() > 0) r.push_back({F::weights, i, l.weight_count()});
    if (l.bias) r.push_back({F::bias, i, l.channel_params()});
    if (l.batchnorm) {
      r.push_back({F::kappa, i, l.channel_params()});
      r.push_back({F::lambda, i, l.channel_params()});
    }
  }
  return r;
}

TEST(RunChecks, EveryFieldOfEveryLayerHasACase) {
  // conv: weights kappa lambda; depthwise: the same; linear: weights bias.
  EXPECT_EQ(data_cases().size(), 8u);
}

TEST(RunChecks, WrongConstantDataIsRefusedByEveryEntry) {
  for (const data_case& c : data_cases()) {
    for (const int grow : {-1, +1}) {
      SCOPED_TRACE(testing::Message()
                   << "layer " << c.layer << " " << field_name(c.field) << " " << grow);
      const heap_data d(c.field, c.layer, grow);
      const run_status want{c.field, static_cast<int>(c.layer), c.elements, c.elements + grow};

      E::quant_plans q{};
      EXPECT_EQ(E::prepare(d.params, q), want);

      auto l2 = buffer(E::required_l2_bytes), l3 = buffer(E::required_l3_bytes);
      EXPECT_EQ(E::stage(d.params, l2, l3), want);

      const auto r = run_on_host<net, plat>(d.params, d.input);
      EXPECT_EQ(r.status, want);
      EXPECT_TRUE(r.outputs.empty());
      ASSERT_EQ(r.problems.size(), 1u);
      const std::string name = std::string(" (") + net::layers[c.layer].name.c_str() + ")";
      EXPECT_NE(r.problems[0].find("layer " + std::to_string(c.layer) + name), std::string::npos)
          << r.problems[0];
      EXPECT_NE(r.problems[0].find(field_name(c.field)), std::string::npos) << r.problems[0];
      EXPECT_NE(r.problems[0].find(std::to_string(c.elements)), std::string::npos) << r.problems[0];

      const auto p = schedule::plan_and_run_on_host(plat, net::layers, d.params, d.input);
      EXPECT_EQ(p.run.status, want);
      EXPECT_TRUE(p.run.outputs.empty());
    }
  }
}

TEST(RunChecks, RightDataPasses) {
  const heap_data d;
  E::quant_plans q{};
  EXPECT_TRUE(E::prepare(d.params, q).ok());
  auto l2 = buffer(E::required_l2_bytes), l3 = buffer(E::required_l3_bytes);
  EXPECT_TRUE(E::stage(d.params, l2, l3).ok());
  EXPECT_TRUE(E::load_input(d.input, l2, l3).ok());
  const auto r = run_on_host<net, plat>(d.params, d.input);
  EXPECT_TRUE(r.status.ok());
  EXPECT_TRUE(r.problems.empty());
  EXPECT_EQ(r.outputs, reference::run(net::layers, d.params, std::span(d.input)));
}

TEST(RunChecks, WrongInputIsRefused) {
  for (const int grow : {-1, +1}) {
    const heap_data d(F::input, 0, grow);
    const std::int64_t n = net::input_shape.elements();
    const run_status want{F::input, 0, n, n + grow};
    auto l2 = buffer(E::required_l2_bytes), l3 = buffer(E::required_l3_bytes);
    EXPECT_EQ(E::load_input(d.input, l2, l3), want);
    EXPECT_EQ((run_on_host<net, plat>(d.params, d.input).status), want);
    EXPECT_EQ(schedule::plan_and_run_on_host(plat, net::layers, d.params, d.input).run.status,
              want);
  }
}

TEST(RunChecks, SmallBuffersAreRefused) {
  const heap_data d;
  const std::int64_t l2n = E::required_l2_bytes, l3n = E::required_l3_bytes;
  {
    auto l2 = buffer(l2n - 1), l3 = buffer(l3n);
    EXPECT_EQ(E::load_input(d.input, l2, l3), (run_status{F::l2, -1, l2n, l2n - 1}));
    // stage needs the resident weights' end, at most the whole arena.
    const run_status s = E::stage(d.params, l2, l3);
    EXPECT_TRUE(s.ok() || (s.what == F::l2 && s.expected <= l2n && s.got == l2n - 1));
  }
  {
    auto l2 = buffer(0), l3 = buffer(0);
    const run_status s = E::stage(d.params, l2, l3);
    EXPECT_TRUE(s.what == F::l2 || s.what == F::l3);
    EXPECT_EQ(s.got, 0);
    EXPECT_GT(s.expected, 0);
  }
  if (l3n > 0) {
    auto l2 = buffer(l2n), l3 = buffer(l3n - 1);
    const run_status s = E::stage(d.params, l2, l3);
    EXPECT_TRUE(s.ok() || (s.what == F::l3 && s.expected <= l3n && s.got == l3n - 1));
  }

  E::quant_plans q{};
  ASSERT_TRUE(E::prepare(d.params, q).ok());
  hal::sim_memory mem;
  const auto l1 = schedule::bytes_of(
      mem.arena(hal::mem_level::l1, static_cast<std::size_t>(E::required_l1_bytes), "L1"));
  const auto l2 = schedule::bytes_of(
      mem.arena(hal::mem_level::l2, static_cast<std::size_t>(E::required_l2_bytes), "L2"));
  hal::host_l3 l3(mem, static_cast<std::size_t>(l3n > 0 ? l3n : 4));
  hal::host_l3 short_l3(mem, static_cast<std::size_t>(l3n > 1 ? l3n - 1 : 0));
  hal::host_dma dma(mem);
  hal::host_cluster cluster(plat.cores);
  std::vector<std::string> problems;
  schedule::exec_env<hal::host_dma, hal::host_cluster, schedule::sim_checks> env{
      dma, cluster, {&mem, &problems}, plat.cores};
  const std::int64_t l1n = E::required_l1_bytes;
  EXPECT_EQ(E::run(env, l3, q, l1.first(l1.size() - 1), l2), (run_status{F::l1, -1, l1n, l1n - 1}));
  EXPECT_EQ(E::run(env, l3, q, l1, l2.first(l2.size() - 1)), (run_status{F::l2, -1, l2n, l2n - 1}));
  if (l3n > 1) {
    EXPECT_EQ(E::run(env, short_l3, q, l1, l2), (run_status{F::l3, -1, l3n, l3n - 1}));
  }
  EXPECT_TRUE(problems.empty());
}

TEST(RunChecks, HostRunnerChecksTheRequantizationPlansAndParameterEntries) {
  const heap_data d;
  const auto v = schedule::view_of(net::layers, E::plan);
  E::quant_plans q{};
  ASSERT_TRUE(E::prepare(d.params, q).ok());
  const std::span<const kernels::requant_plan> short_q(q.data(), q.size() - 1);
  const auto n = static_cast<std::int64_t>(net::size);
  EXPECT_EQ(schedule::run_on_host(v, E::required_l1_bytes, E::required_l2_bytes,
                                  E::required_l3_bytes, d.params, d.input, short_q)
                .status,
            (run_status{F::quant, -1, n, n - 1}));
  const std::vector<layer_params> short_p(d.params.begin(), d.params.end() - 1);
  EXPECT_EQ(schedule::run_on_host(v, E::required_l1_bytes, E::required_l2_bytes,
                                  E::required_l3_bytes, short_p, d.input, q)
                .status,
            (run_status{F::params, -1, n, n - 1}));
  EXPECT_EQ(schedule::plan_and_run_on_host(plat, net::layers, short_p, d.input).run.status,
            (run_status{F::params, -1, n, n - 1}));
}

TEST(RunChecks, ReadOutputChecksTheBufferAgainstTheLayer) {
  const layer& fc = net::layers[3];  // int32 logits: 4 bytes each
  const auto bytes = static_cast<std::size_t>(fc.output_bytes());
  ASSERT_EQ(bytes, 5u * 4u);
  std::vector<std::uint8_t> b(bytes - 1);
  std::vector<std::int32_t> out;
  EXPECT_EQ(schedule::read_output(fc, b, false, out),
            (run_status{F::output, -1, static_cast<std::int64_t>(bytes),
                        static_cast<std::int64_t>(bytes) - 1}));
  EXPECT_TRUE(out.empty());
  b.assign(bytes, 0);
  b[4] = 7;  // the second logit, little-endian
  ASSERT_TRUE(schedule::read_output(fc, b, false, out).ok());
  EXPECT_EQ(out, (std::vector<std::int32_t>{0, 7, 0, 0, 0}));
}

}  // namespace
