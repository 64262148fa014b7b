// 3x3 depthwise on one L1 tile, one core: output 24 x 4 x 32 (HWC), input CHW 32 x 26 x 6,
// bias; requantization 3 / 1000 (an exact mulhu plan), or with BENCH_SHIFT 11 / 2^12 (a
// power-of-two divisor: a 32-bit multiply and a shift).
#include "common.hpp"

using namespace bench;

namespace {
constexpr int OH = 24, OW = 4, C = 32, IH = 26, IW = 6;
alignas(4) std::uint8_t in[C * IH * IW];
alignas(4) std::int8_t w[C * 9];
std::int32_t bias[C];
alignas(4) std::uint8_t out[OH * OW * C], want[OH * OW * C];
alignas(4) std::uint8_t scratch[depthwise_scratch_per_core(OH, 3, 3, 1)];
}  // namespace

int main() {
  lcg g;
  fill(in, C * IH * IW, g);
  fill(w, C * 9, g);
  for (int c = 0; c < C; ++c) bias[c] = static_cast<int>(g.next() % 2001) - 1000;
#if defined(BENCH_SHIFT)
  const requant q{11, 1 << 12, 0, 255};
  const char* name = "depthwise3x3_shift";
#else
  const requant q{3, 1000, 0, 255};
  const char* name = "depthwise3x3";
#endif
  for (int oy = 0; oy < OH; ++oy)
    for (int ox = 0; ox < OW; ++ox)
      for (int c = 0; c < C; ++c) {
        std::int64_t acc = bias[c];
        for (int ky = 0; ky < 3; ++ky)
          for (int kx = 0; kx < 3; ++kx)
            acc += in[(c * IH + oy + ky) * IW + ox + kx] * w[c * 9 + ky * 3 + kx];
        want[(oy * OW + ox) * C + c] = apply(q, acc);
      }
  tile_args a;
  a.in = in, a.h_in = IH, a.w_in = IW, a.c_in = C;
  a.out = out, a.h_out = OH, a.w_out = OW, a.c_out = C;
  a.kh = a.kw = 3;
  a.weights = w, a.bias = bias;
  a.quant = plan_requant(q, range_of(w, C, 9, bias, nullptr, nullptr));
  a.scratch = scratch;
  constexpr kernel_variant v = tile_variant(kernel_kind::depthwise, 1, 0);
  return timed<v>(name, std::uint64_t{OH} * OW * C * 9, a, out, want, OH * OW * C);
}
