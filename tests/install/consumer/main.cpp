// A separate project using the installed library: declares a network with its own constant
// data, plans it for GAP-8 at compile time and runs it through the checked firmware flow of
// <ctile/host/run.hpp> (prepare, stage, load_input, run), every layer compared with the naive
// reference. Built for the host, and for rv32imc with the installed toolchain file (run under
// QEMU).
#include <array>
#include <cstdint>
#include <cstdio>
#include <ctile/ctile.hpp>
#include <ctile/host/run.hpp>
#include <ctile/platform/gap8.hpp>

using namespace ctile;

using net = network<input(8, 8, 4),                                                 //
                    conv2d(8, 3).same().bn().requantized(1, 1 << 9).named("conv"),  //
                    maxpool(2),                                                     //
                    global_avgpool(),                                               //
                    linear(3).with_bias().raw().named("fc")>;
static_assert(net::output_shape == shape{1, 1, 3});

// Deterministic data in [lo, hi].
template <class T, std::size_t N>
constexpr std::array<T, N> numbers(std::uint32_t seed, int lo, int hi) {
  std::array<T, N> a{};
  for (auto& v : a) {
    seed = seed * 1664525u + 1013904223u;
    v = static_cast<T>(lo +
                       static_cast<int>((seed >> 8) % static_cast<std::uint32_t>(hi - lo + 1)));
  }
  return a;
}
constexpr auto conv_w = numbers<std::int8_t, 8 * 3 * 3 * 4>(1, -20, 20);
constexpr auto conv_k = numbers<std::int32_t, 8>(2, 1, 4);
constexpr auto conv_l = numbers<std::int32_t, 8>(3, -500, 500);
constexpr auto fc_w = numbers<std::int8_t, 3 * 8>(4, -60, 60);
constexpr auto fc_b = numbers<std::int32_t, 3>(5, -1000, 1000);
constexpr auto in = numbers<std::uint8_t, 8 * 8 * 4>(6, 0, 255);

constexpr net::params params{{{}, {conv_w, {}, conv_k, conv_l}, {}, {}, {fc_w, fc_b, {}, {}}}};
static_assert(verify_params<net, params>());

int main() {
  const int r = run_and_check<net, gap8>("consumer", params, in);
  std::printf("consumer %s\n", r == 0 ? "ok" : "wrong");
  return r;
}
