// Fully connected on one tile, one core: 1024 inputs, 32 outputs (8-bit, requantized).
#include "common.hpp"

using namespace bench;

namespace {
constexpr int N = 1024, CO = 32;
alignas(4) std::uint8_t in[N];
alignas(4) std::int8_t w[CO * N];
std::int32_t bias[CO];
alignas(4) std::uint8_t out[CO], want[CO];
}  // namespace

int main() {
  lcg g;
  fill(in, N, g);
  fill(w, CO * N, g);
  for (int c = 0; c < CO; ++c) bias[c] = static_cast<int>(g.next() % 20001) - 10000;
  const requant q{5, 4096, 0, 255};
  for (int c = 0; c < CO; ++c) {
    std::int64_t acc = bias[c];
    for (int i = 0; i < N; ++i) acc += in[i] * w[c * N + i];
    want[c] = apply(q, acc);
  }
  tile_args a;
  a.in = in, a.h_in = 1, a.w_in = 1, a.c_in = N;
  a.out = out, a.h_out = 1, a.w_out = 1, a.c_out = CO;
  a.weights = w, a.bias = bias;
  a.quant = plan_requant(q, range_of(w, CO, N, bias, nullptr, nullptr));
  constexpr kernel_variant v = tile_variant(kernel_kind::linear, 1, 0);
  return timed<v>("linear", std::uint64_t{CO} * N, a, out, want, CO);
}
