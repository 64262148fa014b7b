// The PULP-builtin backend, compiled on the host with stand-ins for the `__builtin_pulp_*`
// builtins (written from the PULP/RI5CY manual's definitions), runs the kernels against the
// reference: it checks that the backend passes its words to the builtins lane by lane in the
// right order and signedness.
#include <gtest/gtest.h>

#include <cstdint>

namespace {
typedef std::uint8_t v4u __attribute__((vector_size(4)));
typedef std::int8_t v4s __attribute__((vector_size(4)));
}  // namespace

// pv.sdotusp.b: acc + sum of unsigned x lanes times signed y lanes.
static inline std::int32_t __builtin_pulp_sdotusp4(v4u x, v4s y, std::int32_t acc) {
  std::uint32_t r = static_cast<std::uint32_t>(acc);
  for (int i = 0; i < 4; ++i) r += static_cast<std::uint32_t>(int{x[i]} * int{y[i]});
  return static_cast<std::int32_t>(r);
}
static inline std::int32_t __builtin_pulp_sdotsp4(v4s x, v4s y, std::int32_t acc) {
  std::uint32_t r = static_cast<std::uint32_t>(acc);
  for (int i = 0; i < 4; ++i) r += static_cast<std::uint32_t>(int{x[i]} * int{y[i]});
  return static_cast<std::int32_t>(r);
}
static inline v4u __builtin_pulp_maxu4(v4u x, v4u y) {
  v4u r;
  for (int i = 0; i < 4; ++i) r[i] = x[i] > y[i] ? x[i] : y[i];
  return r;
}
static inline std::int32_t __builtin_pulp_clipu_r(std::int32_t x, std::int32_t hi) {
  return x <= 0 ? 0 : (x >= hi ? hi : x);
}

#define CTILE_KERNELS_PULP 1
#include <ctile/kernels/kernels.hpp>
#include <ctile/kernels/layer_args.hpp>
#include <ctile/network/infer.hpp>
#include <ctile/reference/reference.hpp>
#include <random>
#include <span>
#include <string_view>
#include <vector>

namespace {

using namespace ctile;
using namespace ctile::kernels;

static_assert(std::string_view(isa::name) == "pulp", "this test runs the PULP backend");

// A whole layer as one tile on 3 cores (rows), HWC (CHW for depthwise), against the reference.
void check_layer(std::vector<layer> ls) {
  ASSERT_TRUE(infer(ls).ok());
  const layer l = ls.back();
  std::mt19937 g(3);
  std::vector<std::int8_t> w(static_cast<std::size_t>(l.weight_count()));
  for (auto& v : w) v = static_cast<std::int8_t>(g());
  std::vector<std::int32_t> bias(static_cast<std::size_t>(l.channel_params()), 0);
  for (auto& v : bias) v = static_cast<std::int32_t>(g() % 4001) - 2000;
  std::vector<std::int32_t> x32(static_cast<std::size_t>(l.in.elements()));
  const value_range r = l.in_range;  // signed inputs as two's-complement bytes below
  for (auto& v : x32)
    v = r.lo + static_cast<std::int32_t>(g() % static_cast<unsigned>(r.hi - r.lo + 1));
  const layer_params p{
      w, l.bias ? std::span<const std::int32_t>(bias) : std::span<const std::int32_t>{}};
  const reference::values want = reference::run_layer(l, p, x32, x32);
  std::vector<std::uint8_t> x(x32.begin(), x32.end());
  std::vector<std::uint8_t> in = x;
  if (l.kind == op::depthwise)
    for (int y = 0; y < l.in.h; ++y)
      for (int i = 0; i < l.in.w; ++i)
        for (int c = 0; c < l.in.c; ++c)
          in[static_cast<std::size_t>((c * l.in.h + y) * l.in.w + i)] =
              x[static_cast<std::size_t>((y * l.in.w + i) * l.in.c + c)];
  tile_args a = layer_args(l, p);
  a.cores = 3;
  std::vector<std::uint8_t> out(want.size());
  std::vector<std::uint32_t> scratch(
      static_cast<std::size_t>(scratch_bytes(kind_of(l), a) / 4 + 1));
  a.in = in.data(), a.in2 = in.data(), a.out = out.data();
  a.scratch = reinterpret_cast<std::uint8_t*>(scratch.data());
  for (a.core = 0; a.core < 3; ++a.core) run(kind_of(l), a);
  const bool s = l.out_range.is_signed();
  for (std::size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(s ? std::int32_t{static_cast<std::int8_t>(out[i])} : std::int32_t{out[i]}, want[i])
        << op_name(l.kind) << " " << i;
}

TEST(PulpBackend, KernelsMatchTheReference) {
  check_layer({input(7, 5, 12), conv2d(10, 3).same().with_bias().requantized(3, 1000)});
  check_layer({input(6, 5, 16), pointwise(9).requantized(1, 512)});
  check_layer({input(7, 6, 8), depthwise(3).same().with_bias().requantized(5, 1024)});
  check_layer({input(1, 3, 20), linear(7).with_bias().requantized(1, 300)});
  check_layer({input(6, 6, 8), maxpool(2)});
  check_layer({input(6, 6, 8), avgpool(2)});
}

// Signed inputs go through the backend's sdotsp4 (signed x signed), lane by lane.
TEST(PulpBackend, SignedInputsMatchTheReference) {
  check_layer({input(7, 5, 12).signed_bits(8),
               conv2d(10, 3).same().with_bias().requantized(3, 1000, -128, 127)});
  check_layer({input(6, 5, 16).signed_bits(4), pointwise(9).requantized(1, 64, -8, 7)});
  check_layer(
      {input(7, 6, 8).signed_bits(8), depthwise(3).same().with_bias().requantized(5, 1024, 0, 15)});
  check_layer({input(1, 3, 20).signed_bits(2), linear(7).with_bias().requantized(1, 30, -2, 1)});
  check_layer({input(6, 6, 8).signed_bits(8), maxpool(2)});
  check_layer({input(6, 6, 8).signed_bits(8), avgpool(2).range(-128, 127)});
}

}  // namespace
