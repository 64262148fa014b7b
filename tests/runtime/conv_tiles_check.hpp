// What the tests of the specialised convolution loop share (test_conv_tiles*.cpp): runs of
// one layer over stripes with the specialised and the generic loop on the host's simulated
// DMA, and the check of both against the reference.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <ctile/ctile.hpp>
#include <ctile/hal/host.hpp>
#include <ctile/plan/output_group.hpp>
#include <ctile/platform/gap8.hpp>
#include <ctile/reference/reference.hpp>
#include <ctile/schedule/conv_tiles.hpp>
#include <ctile/schedule/sim_checks.hpp>
#include <random>
#include <string>
#include <vector>

namespace conv_tiles_test {

using namespace ctile;

constexpr platform plat = gap8.with_stacks(0, 0);

/// The plan of layer `l` with output tiles of th x tw x tc.
constexpr layer_plan plan_with(const layer& l, int th, int tw, int tc) {
  const tiling_problem prob = make_problem(l, plat);
  return make_layer_plan(prob, tc, th, tw, cost::default_split(prob));
}
/// The plan of linear layer `l` with tiles of tc output channels and tk bytes of the reduction.
constexpr layer_plan plan_linear(const layer& l, int tc, int tk) {
  const tiling_problem prob = make_problem(l, plat);
  return make_layer_plan(prob, tc, 1, 1, cost::default_split(prob), tk);
}
/// The plan of linear layer `l` under an L1 budget of `budget` bytes.
constexpr layer_plan plan_linear_in(const layer& l, int tc, int tk, int budget) {
  tiling_problem prob = make_problem(l, plat);
  prob.l1_budget = budget;
  return make_layer_plan(prob, tc, 1, 1, cost::default_split(prob), tk);
}
/// The same with one copy of the input, output and weight buffers (each tile reloads its input
/// and the weights of its channel tile once the previous kernel is done).
constexpr layer_plan single_buffered(layer_plan p) {
  p.l1.x[1] = p.l1.x[0];
  p.l1.y[1] = p.l1.y[0];
  p.l1.w[1] = p.l1.w[0];
  p.l1.kl[1] = p.l1.kl[0];
  p.l1.x2[1] = p.l1.x2[0];
  return p;
}

struct stripe {
  int row_begin, row_end, c_begin, c_end;
};

struct outcome {
  std::vector<std::int32_t> values;
  std::vector<std::string> problems;
  std::uint64_t commands = 0;
};

/// Which loop run() takes.
enum class loop { specialised, rolled, generic };

// Runs layer `I` of `Net` with plan `P` over `stripes` (an add's second input `x2`): the
// specialised loop (unrolled where it unrolls a whole layer), the specialised convolution loop
// kept rolled, or run_tiles.
// With `span_c` > 0, each run's constant data comes in weight stripes of span_c channels
// (l2_operands::stripes), each packed as a block of its own into one of two buffers as the
// loop enters it.
template <class Net, layer_plan P, std::size_t I = 1>
outcome run(loop which, const std::vector<stripe>& stripes, const layer_params& prm,
            const std::vector<std::int32_t>& x, const std::vector<std::int32_t>& x2,
            hal::completion mode, std::uint64_t seed, int cores, int span_c = 0) {
  constexpr layer L = Net::layers[I];
  // Bytes per element of the inputs and the output (2: a 16-bit tensor, little-endian).
  constexpr int xe = L.input_bytes_per_element(0);
  constexpr int xe2 = L.kind == op::add ? L.input_bytes_per_element(1) : 1;
  hal::sim_memory mem({mode, seed, 0.5, false});
  const auto in_bytes = static_cast<std::size_t>(L.in.elements() * xe);
  const std::size_t in2_bytes = x2.size() * xe2;
  const auto out_bytes = static_cast<std::size_t>(L.output_bytes());
  const std::size_t nc = prm.bias.size() + prm.kappa.size() + prm.lambda.size();
  // A stripe's block: its weights and parameters, rounded up to a word.
  const std::size_t half = span_c > 0 ? (prm.weights.size() / static_cast<std::size_t>(L.out.c) +
                                         12) * static_cast<std::size_t>(span_c) +
                                            16
                                      : 0;
  auto l2 = mem.arena(
      hal::mem_level::l2,
      in_bytes + in2_bytes + out_bytes + prm.weights.size() + 4 * nc + 16 + 2 * half, "L2");
  auto l1 = mem.arena(hal::mem_level::l1, static_cast<std::size_t>(P.l1.total) + 4, "L1");
  auto* in = reinterpret_cast<std::uint8_t*>(l2.data());
  std::uint8_t* in2 = in + in_bytes;
  std::uint8_t* out = in2 + in2_bytes;
  std::uint8_t* w = out + out_bytes;
  const auto put = [](std::uint8_t* at, std::int32_t v, int bytes) {
    for (int b = 0; b < bytes; ++b)
      at[b] = static_cast<std::uint8_t>(static_cast<std::uint32_t>(v) >> (8 * b));
  };
  for (std::size_t i = 0; i < x.size(); ++i) put(in + i * xe, x[i], xe);
  for (std::size_t i = 0; i < x2.size(); ++i) put(in2 + i * xe2, x2[i], xe2);
  schedule::pack_weights(L, schedule::weight_block_channels(L, P), prm, w,
                         schedule::weight_block_k(L, P));

  // The constant data past the output, as packed: no command may write there.
  const std::vector<std::uint8_t> packed(w, w + prm.weights.size() + 4 * nc);

  hal::host_dma dma(mem);
  hal::host_cluster cluster(cores, hal::cluster_mode::deterministic);
  outcome o;
  schedule::exec_env<hal::host_dma, hal::host_cluster, schedule::sim_checks> env{
      dma, cluster, {&mem, &o.problems}, cores};
  const kernels::requant_plan q = kernels::plan_for(L, prm);
  const int in_row = L.in.w * L.in.c, out_row = L.out.w * L.out.c * L.output_bytes_per_element();
  // Weight stripes: stripe k packed on its own (the layer cut to its channels) into buffer k % 2.
  std::uint8_t* halves = w + prm.weights.size() + 4 * nc + 16;
  halves += (4 - reinterpret_cast<std::uintptr_t>(halves) % 4) % 4;
  const auto stage = [&](int k) {
    const int c0 = k * span_c;
    if (c0 >= L.out.c) return;
    const int cn = L.out.c - c0 < span_c ? L.out.c - c0 : span_c;
    const auto wpc = prm.weights.size() / static_cast<std::size_t>(L.out.c);
    const auto cut = [&](std::span<const std::int32_t> a) {
      return a.empty() ? a : a.subspan(static_cast<std::size_t>(c0), static_cast<std::size_t>(cn));
    };
    layer part = L;
    part.out.c = cn;
    if (L.kind == op::depthwise) part.in.c = cn;
    const layer_params sub{prm.weights.subspan(c0 * wpc, cn * wpc), cut(prm.bias), cut(prm.kappa),
                           cut(prm.lambda)};
    schedule::pack_weights(part, std::min(schedule::weight_block_channels(L, P), cn), sub,
                           halves + static_cast<std::size_t>(k & 1) * half,
                           schedule::weight_block_k(L, P));
  };
  const auto enter = [&](int k) { stage(k + 1); };
  const schedule::weight_stripes spanned{
      span_c, static_cast<std::ptrdiff_t>(half),
      [](void* e, int k) { (*static_cast<decltype(enter)*>(e))(k); },
      const_cast<void*>(static_cast<const void*>(&enter))};
  static_assert(xe == 1 || !P.in_chw, "A channel-major input is 8-bit.");
  for (const stripe& s : stripes) {
    // The stripe's operands start at the first input row its first row tile reads.
    const schedule::axis_tile first = schedule::tile_axis(
        L.in.h, L.out.h, L.kernel.h, L.stride.h, L.pad.t, P.tile_h, s.row_begin / P.tile_h);
    schedule::l2_operands v;
    v.x_row0 = first.in_begin;
    v.x = in + v.x_row0 * in_row * xe;
    v.x2_row0 = v.x_row0;
    v.x2 = x2.empty() ? nullptr : in2 + v.x2_row0 * in_row * xe2;
    v.y_row0 = s.row_begin;
    v.y = out + v.y_row0 * out_row;
    v.w = w;  // the whole layer's data, of which the stripe computes some channels
    v.w_n = L.out.c;
    if (span_c > 0) {  // the first two weight stripes staged, the others as the loop enters them
      const int k0 = s.c_begin / span_c;
      stage(k0);
      stage(k0 + 1);
      v.w = halves + static_cast<std::size_t>(k0 & 1) * half;
      v.w_c0 = k0 * span_c;
      v.w_n = L.out.c - v.w_c0 < span_c ? L.out.c - v.w_c0 : span_c;
      v.stripes = &spanned;
    }
    v.row_begin = s.row_begin, v.row_end = s.row_end;
    v.c_begin = s.c_begin, v.c_end = s.c_end;
    auto* arena = reinterpret_cast<std::uint8_t*>(l1.data());
    if (which == loop::specialised) {
      schedule::run_tiles_static<L, P>(env, q, v, arena);
    } else if (which == loop::rolled) {
      if constexpr (schedule::conv_detail::specialised<L, P>())
        schedule::run_conv_tiles<L, P, false>(env, q, v, arena);
    } else {
      schedule::run_tiles(env, L, P, q, v, arena);
    }
  }
  mem.finish();
  for (const auto& viol : mem.violations()) o.problems.push_back(viol.text);
  if (!std::equal(packed.begin(), packed.end(), w))
    o.problems.push_back("L2 past the output (the constant data) was written");
  o.commands = mem.counters().commands_on(hal::traffic_path::l2_to_l1) +
               mem.counters().commands_on(hal::traffic_path::l1_to_l2);
  const auto n = static_cast<std::size_t>(L.out.elements());
  o.values.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (P.out_chw) {  // value i (HWC order) from its channel's plane (8-bit outputs)
      const auto c = i % static_cast<std::size_t>(L.out.c);
      const auto pixel = i / static_cast<std::size_t>(L.out.c);
      const std::uint8_t b = out[c * static_cast<std::size_t>(L.out.h * L.out.w) + pixel];
      o.values[i] = L.out_range.is_signed() ? static_cast<std::int8_t>(b) : b;
    } else if (L.output() == output_kind::i32) {
      std::int32_t v32;
      std::memcpy(&v32, out + 4 * i, 4);
      o.values[i] = v32;
    } else if (L.output_bytes_per_element() == 2) {
      const auto u16 = static_cast<std::uint16_t>(out[2 * i] | out[2 * i + 1] << 8);
      o.values[i] = L.out_range.is_signed() ? static_cast<std::int16_t>(u16) : u16;
    } else {
      o.values[i] = L.out_range.is_signed() ? static_cast<std::int8_t>(out[i]) : out[i];
    }
  }
  return o;
}

/// Plan `p` with its weights streamed from L3 in stripes of `c` channels, its output rows one
/// band: a call of its loop nest may span the stripes (schedule::spans_stripes).
constexpr layer_plan striped(layer_plan p, int c) {
  p.l3.w = true;
  p.l3.w_stripe_c = c;
  p.l3.y_stripe_h = 0;
  return p;
}

/// Plan `p` with its output kept channel-major in L2 (as choose_channel_major keeps a depthwise
/// layer's input), in buffers of `g` channel tiles (with_output_group; 1: one tile each).
constexpr layer_plan channel_major(layer_plan p, int g = 1) {
  p.out_chw = true;
  return g > 1 ? with_output_group(p, g) : p;
}

/// Whether the specialised loop unrolls layer `L` planned as `P` when it runs whole.
template <layer L, layer_plan P>
constexpr bool unrolls() {
  if constexpr (schedule::conv_detail::specialised<L, P>())
    return schedule::conv_detail::unrolled<L, P>();
  else
    return false;
}

// Checks layer `I` of `Net` planned as `P` over each list of stripes, against the reference and
// the generic loop's command count. `Special`: whether the specialised loop takes the plan
// (else run_tiles_static runs the generic loop). `span_c`: see run(). Returns the commands of
// each list of stripes.
template <class Net, layer_plan P, bool Special = true, std::size_t I = 1>
std::vector<std::uint64_t> check(const std::vector<std::vector<stripe>>& runs, int cores,
                                 std::uint32_t seed, int span_c = 0) {
  constexpr layer L = Net::layers[I];
  static_assert((schedule::conv_detail::specialised<L, P>() ||
                 schedule::linear_detail::specialised<L, P>()) == Special,
                "The test's plan must take the loop the test names.");
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> wd(-40, 40), bd(-3000, 3000), kd(1, 4), ld(-5000, 9000),
      px(0, 255);
  std::vector<std::int8_t> w(static_cast<std::size_t>(L.weight_count()));
  for (auto& v : w) v = static_cast<std::int8_t>(wd(rng));
  const auto n = static_cast<std::size_t>(L.out.c);
  std::vector<std::int32_t> bias, kappa, lambda;
  if (L.bias) bias.resize(n);
  if (L.batchnorm) kappa.resize(n), lambda.resize(n);
  for (auto& v : bias) v = bd(rng);
  for (auto& v : kappa) v = kd(rng);
  for (auto& v : lambda) v = ld(rng);
  const layer_params prm{w, bias, kappa, lambda};
  // 8-bit inputs: any byte; 16-bit ones: any value of the input's proven range.
  std::uniform_int_distribution<int> wide1(L.in_range.lo, L.in_range.hi),
      wide2(L.in2_range.lo, L.in2_range.hi);
  std::vector<std::int32_t> x(static_cast<std::size_t>(L.in.elements()));
  for (auto& v : x) v = L.input_bytes_per_element(0) == 2 ? wide1(rng) : px(rng);
  std::vector<std::int32_t> x2(L.kind == op::add ? x.size() : 0);
  for (auto& v : x2) v = L.input_bytes_per_element(1) == 2 ? wide2(rng) : px(rng);
  const auto expected = reference::run_layer(L, prm, x, x2);
  std::vector<std::uint64_t> commands;
  EXPECT_EQ(expected.size(), static_cast<std::size_t>(L.out.elements()));
  if (expected.size() != static_cast<std::size_t>(L.out.elements())) return commands;
  for (const auto& stripes : runs) {
    commands.push_back(0);
    for (auto mode : {hal::completion::at_wait, hal::completion::random}) {
      SCOPED_TRACE(testing::Message() << "tiles " << P.tile_h << "x" << P.tile_w << "x" << P.tile_c
                                      << " (" << P.n_h << "x" << P.n_w << "x" << P.n_c << "), "
                                      << stripes.size() << " stripe(s), seed " << seed);
      const outcome o =
          run<Net, P, I>(loop::specialised, stripes, prm, x, x2, mode, seed, cores, span_c);
      for (const auto& s : o.problems) ADD_FAILURE() << s;
      std::size_t bad = 0;
      for (std::size_t i = 0; i < expected.size(); ++i) bad += o.values[i] != expected[i];
      EXPECT_EQ(bad, 0u);
      const outcome g =
          run<Net, P, I>(loop::generic, stripes, prm, x, x2, mode, seed, cores, span_c);
      EXPECT_EQ(o.commands, g.commands);
      EXPECT_EQ(o.values, g.values);
      commands.back() = o.commands;
      // A whole layer the loop unrolls: the rolled loop too, the same commands and values.
      if constexpr (unrolls<L, P>()) {
        const outcome r =
            run<Net, P, I>(loop::rolled, stripes, prm, x, x2, mode, seed, cores, span_c);
        for (const auto& s : r.problems) ADD_FAILURE() << s;
        EXPECT_EQ(r.commands, g.commands);
        EXPECT_EQ(r.values, g.values);
      }
    }
  }
  return commands;
}

using conv3x3 = network<input(19, 23, 8), conv2d(12, 3).same().bn().requantized(1, 512)>;
using strided = network<input(20, 9, 3), conv2d(6, 3).strides(2).padded(1, 0, 1, 0).with_bias()>;
using dwise = network<input(15, 17, 20), depthwise(3).same().bn().requantized(1, 256)>;
using dw_strided =
    network<input(16, 16, 16), depthwise(3).strides(2).padded(1, 0, 1, 0).bn().requantized(1, 128)>;
using fc = network<input(4, 4, 40), linear(37).with_bias().bn().requantized(1, 1 << 14)>;
using fc_raw = network<input(1, 1, 300), linear(10).with_bias().raw()>;
using fc_odd = network<input(1, 1, 105), linear(9).with_bias().bn().requantized(1, 256)>;
using pw_net = network<input(16, 16, 32), pointwise(24).bn().requantized(1, 1024)>;

}  // namespace conv_tiles_test
