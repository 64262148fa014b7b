// 3x3 convolution on one L1 tile, one core: output 24 x 4 x 32, input 32 channels (an inner
// tile: 26 x 6 x 32, no padding), batch-norm and exact requantization; pointwise 1x1 on the
// same output tile when built with BENCH_POINTWISE (with BENCH_DEEP: 256 input channels, with
// BENCH_C64: 64; with BENCH_CHW as well, the output stored channel-major).
#include "common.hpp"

using namespace bench;

namespace {
#if defined(BENCH_POINTWISE) && defined(BENCH_DEEP)
constexpr int KH = 1, KW = 1;
constexpr const char* kName = "pointwise_c256";
#elif defined(BENCH_POINTWISE) && defined(BENCH_C64) && defined(BENCH_CHW)
constexpr int KH = 1, KW = 1;
constexpr const char* kName = "pointwise_c64_chw";
#elif defined(BENCH_POINTWISE) && defined(BENCH_C64)
constexpr int KH = 1, KW = 1;
constexpr const char* kName = "pointwise_c64";
#elif defined(BENCH_POINTWISE)
constexpr int KH = 1, KW = 1;
constexpr const char* kName = "pointwise";
#else
constexpr int KH = 3, KW = 3;
constexpr const char* kName = "conv3x3";
#endif
#if defined(BENCH_DEEP)
constexpr int OH = 24, OW = 4, CO = 32, CI = 256;
#elif defined(BENCH_C64)
constexpr int OH = 24, OW = 4, CO = 32, CI = 64;
#else
constexpr int OH = 24, OW = 4, CO = 32, CI = 32;
#endif
#if defined(BENCH_CHW)
constexpr bool kChw = true;
#else
constexpr bool kChw = false;
#endif
constexpr int IH = OH + KH - 1, IW = OW + KW - 1, K = KH * KW * CI;
alignas(4) std::uint8_t in[IH * IW * CI];
alignas(4) std::int8_t w[CO * K];
alignas(4) std::uint8_t out[OH * OW * CO], want[OH * OW * CO];
std::int32_t kappa[CO], lambda[CO];
alignas(4) std::uint8_t scratch[conv_scratch_per_core(KH, KW, CI)];
}  // namespace

int main() {
  lcg g;
  fill(in, IH * IW * CI, g);
  fill(w, CO * K, g);
  for (int c = 0; c < CO; ++c) kappa[c] = 1 + static_cast<int>(g.next() % 4), lambda[c] = 0;
  const requant q{1, 1 << (KH == 1 ? (CI > 64 ? 15 : CI > 32 ? 13 : 12) : 14), 0, 255};
  for (int oy = 0; oy < OH; ++oy)
    for (int ox = 0; ox < OW; ++ox)
      for (int co = 0; co < CO; ++co) {
        std::int64_t acc = 0;
        for (int ky = 0; ky < KH; ++ky)
          for (int kx = 0; kx < KW; ++kx)
            for (int ci = 0; ci < CI; ++ci)
              acc += in[((oy + ky) * IW + ox + kx) * CI + ci] *
                     w[((co * KH + ky) * KW + kx) * CI + ci];
        want[kChw ? (co * OH + oy) * OW + ox : (oy * OW + ox) * CO + co] =
            apply(q, batchnorm(acc, kappa[co], lambda[co]));
      }
  tile_args a;
  a.in = in, a.h_in = IH, a.w_in = IW, a.c_in = CI;
  a.out = out, a.h_out = OH, a.w_out = OW, a.c_out = CO;
  a.kh = KH, a.kw = KW;
  a.weights = w, a.kappa = kappa, a.lambda = lambda;
  a.quant = plan_requant(q, range_of(w, CO, K, nullptr, kappa, lambda));
  a.scratch = scratch;
  a.out_chw = kChw;
  // Batch-norm without a bias, unsigned input, 8-bit operands: the variant of such a layer.
  constexpr kernel_variant v =
      tile_variant(KH == 1 ? kernel_kind::pointwise : kernel_kind::conv, 0, 1, kChw ? 1 : 0);
  return timed<v>(kName, std::uint64_t{OH} * OW * CO * K, a, out, want, OH * OW * CO);
}
