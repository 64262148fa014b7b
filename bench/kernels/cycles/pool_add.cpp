// Max pool 2x2/2, average pool 2x2/2 (exact requant), residual add: one tile, one core.
// BENCH_KERNEL selects which: 0 max pool, 1 average pool, 2 add.
#include "common.hpp"

using namespace bench;

namespace {
constexpr int H = 24, W = 8, C = 32;
alignas(4) std::uint8_t in[H * W * C], in2[H * W * C];
alignas(4) std::uint8_t out[H * W * C], want[H * W * C];
}  // namespace

int main() {
  lcg g;
  fill(in, H * W * C, g);
  fill(in2, H * W * C, g);
  tile_args a;
  a.in = in, a.h_in = H, a.w_in = W, a.c_in = C;
  a.out = out, a.c_out = C;
#if BENCH_KERNEL == 2
  const rescale r0{3, 5, 1, true}, r1{-2, 600, 2, false};
  const requant q{1, 2, 0, 255};
  for (int i = 0; i < H * W * C; ++i)
    want[i] = apply(q, apply(r0, in[i], 0, 255) + apply(r1, in2[i], 0, 255));
  a.in2 = in2, a.h_out = H, a.w_out = W;
  a.scale0 = r0, a.scale1 = r1;
  a.quant = plan_requant(q, {-100, 600});
  constexpr kernel_variant v = tile_variant(kernel_kind::add, 0, 0);
  return timed<v>("add", std::uint64_t{H} * W * C, a, out, want, H * W * C);
#else
  constexpr int OH = 12, OW = 4;
  const requant q{3, 10, 0, 255};
  for (int oy = 0; oy < OH; ++oy)
    for (int ox = 0; ox < OW; ++ox)
      for (int c = 0; c < C; ++c) {
        int m = 0, s = 0;
        for (int ky = 0; ky < 2; ++ky)
          for (int kx = 0; kx < 2; ++kx) {
            const int v = in[((2 * oy + ky) * W + 2 * ox + kx) * C + c];
            m = v > m ? v : m, s += v;
          }
        want[(oy * OW + ox) * C + c] =
            BENCH_KERNEL == 0 ? static_cast<std::uint8_t>(m) : apply(q, s);
      }
  a.h_out = OH, a.w_out = OW, a.kh = a.kw = a.sh = a.sw = 2;
  a.quant = plan_requant(q, {0, 4 * 255});
  constexpr kernel_variant v =
      tile_variant(BENCH_KERNEL == 0 ? kernel_kind::maxpool : kernel_kind::avgpool, 0, 0);
  return timed<v>(BENCH_KERNEL == 0 ? "maxpool2x2" : "avgpool2x2", std::uint64_t{OH} * OW * C * 4,
                  a, out, want, OH * OW * C);
#endif
}
