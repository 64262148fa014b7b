// The kernels of tiles with a 16-bit operand (kernels/ctile/kernels/wide.hpp) on one tile, one
// core, each beside the 8-bit kernel of the same tile. BENCH_KERNEL selects the tile:
//   0 conv 3x3: output 8 x 4 x 16, u16 input 10 x 6 x 16, batch-norm, requant 1 / 2^14;
//   1 pointwise: output 8 x 4 x 16, u16 input 8 x 4 x 32 (a 1x1 conv), batch-norm, 1 / 2^13;
//   2 depthwise 3x3: output 8 x 4 x 16 (HWC), u16 input CHW 16 x 10 x 6, bias, 3 / 1000;
//   3 linear: 512 u16 inputs, 16 outputs, bias, requant 5 / 4096;
//   4 average pool 2x2/2: u16 input 8 x 8 x 16, u16 output (1 / 4, unclipped);
//   5 add: two u8 inputs 8 x 8 x 16, u16 output (the unclipped residual sum);
//   6 max pool 2x2/2: u16 input 8 x 8 x 16, u16 output.
// These are the operand widths of the wide layers of the residual DORY networks: a sum wider
// than 8 bits is written as u16 by its add (or pool) and read as u16 by its consumers. The
// 8-bit run reads the low byte of each input and writes u8 (the same geometry and constants).
// Each run prints `kernel=<name> macs=<n> cycles=<n> instret=<n> ok=<0|1>`: first the wide
// kernel (`wide_<tile>`), then the 8-bit one (`narrow_<tile>`); "macs" counts the kernel's
// multiply-accumulates (pools: window taps; add: elements).
#include "common.hpp"

using namespace bench;

namespace {

#if BENCH_KERNEL == 0 || BENCH_KERNEL == 1
#if BENCH_KERNEL == 0
constexpr int KH = 3, CI = 16, SHIFT = 14;
constexpr const char* kTile = "conv3x3";
constexpr kernel_kind kKind = kernel_kind::conv;
#else
constexpr int KH = 1, CI = 32, SHIFT = 13;
constexpr const char* kTile = "pointwise";
constexpr kernel_kind kKind = kernel_kind::pointwise;
#endif
constexpr int OH = 8, OW = 4, CO = 16, IH = OH + KH - 1, IW = OW + KH - 1, K = KH * KH * CI;
constexpr int N_IN = IH * IW * CI, N_OUT = OH * OW * CO;
constexpr std::uint64_t kMacs = std::uint64_t{N_OUT} * K;
constexpr int kWeights = CO * K;
constexpr bool kWideOut = false;
#elif BENCH_KERNEL == 2
constexpr int C = 16, OH = 8, OW = 4, IH = 10, IW = 6;
constexpr const char* kTile = "depthwise3x3";
constexpr kernel_kind kKind = kernel_kind::depthwise;
constexpr int N_IN = C * IH * IW, N_OUT = OH * OW * C;
constexpr std::uint64_t kMacs = std::uint64_t{N_OUT} * 9;
constexpr int kWeights = C * 9;
constexpr bool kWideOut = false;
#elif BENCH_KERNEL == 3
constexpr int N = 512, CO = 16;
constexpr const char* kTile = "linear";
constexpr kernel_kind kKind = kernel_kind::linear;
constexpr int N_IN = N, N_OUT = CO;
constexpr std::uint64_t kMacs = std::uint64_t{N} * CO;
constexpr int kWeights = N * CO;
constexpr bool kWideOut = false;
#elif BENCH_KERNEL == 4 || BENCH_KERNEL == 6
constexpr int H = 8, W = 8, C = 16, OH = 4, OW = 4;
constexpr const char* kTile = BENCH_KERNEL == 4 ? "avgpool2x2" : "maxpool2x2";
constexpr kernel_kind kKind = BENCH_KERNEL == 4 ? kernel_kind::avgpool : kernel_kind::maxpool;
constexpr int N_IN = H * W * C, N_OUT = OH * OW * C;
constexpr std::uint64_t kMacs = std::uint64_t{N_OUT} * 4;
constexpr int kWeights = 1;
constexpr bool kWideOut = true;
#else
constexpr int H = 8, W = 8, C = 16;
constexpr const char* kTile = "add";
constexpr kernel_kind kKind = kernel_kind::add;
constexpr int N_IN = H * W * C, N_OUT = H * W * C;
constexpr std::uint64_t kMacs = N_OUT;
constexpr int kWeights = 1;
constexpr bool kWideOut = true;
#endif

// The inputs as values (u16 for the wide run; the 8-bit run takes their low bytes), and the
// same values laid out as the kernels read them: 2 bytes (little-endian) or 1 byte each.
std::int32_t xv[N_IN], xv2[N_IN];
alignas(4) std::uint8_t x16[2 * N_IN], x8[N_IN], x8b[N_IN];
alignas(4) std::int8_t w[kWeights];
std::int32_t bias[64], kappa[64], lambda[64];
alignas(4) std::uint8_t out[2 * N_OUT];
std::int32_t want[N_OUT];
#if BENCH_KERNEL == 0
alignas(4) std::uint8_t scratch[conv_scratch_per_core(3, 3, CI)];
#elif BENCH_KERNEL == 2
alignas(4) std::uint8_t scratch[depthwise_scratch_per_core(OH, 3, 3, 1)];
#else
alignas(4) std::uint8_t scratch[4];
#endif

/// The add's per-input rescaling.
[[maybe_unused]] constexpr rescale kScale0{3, 5, 1, false}, kScale1{2, 7, 1, false};

/// The expected outputs for inputs `x` (and `x2`) with the requantization `q` (written from
/// the layer semantics of quant.hpp, not from the kernels).
void reference(const std::int32_t* x, const std::int32_t* x2, const requant& q) {
#if BENCH_KERNEL == 0 || BENCH_KERNEL == 1
  for (int oy = 0; oy < OH; ++oy)
    for (int ox = 0; ox < OW; ++ox)
      for (int co = 0; co < CO; ++co) {
        std::int64_t acc = 0;
        for (int ky = 0; ky < KH; ++ky)
          for (int kx = 0; kx < KH; ++kx)
            for (int ci = 0; ci < CI; ++ci)
              acc += std::int64_t{x[((oy + ky) * IW + ox + kx) * CI + ci]} *
                     w[((co * KH + ky) * KH + kx) * CI + ci];
        want[(oy * OW + ox) * CO + co] = apply(q, batchnorm(acc, kappa[co], lambda[co]));
      }
  (void)x2;
#elif BENCH_KERNEL == 2
  for (int oy = 0; oy < OH; ++oy)
    for (int ox = 0; ox < OW; ++ox)
      for (int c = 0; c < C; ++c) {
        std::int64_t acc = bias[c];
        for (int ky = 0; ky < 3; ++ky)
          for (int kx = 0; kx < 3; ++kx)
            acc += std::int64_t{x[(c * IH + oy + ky) * IW + ox + kx]} * w[c * 9 + ky * 3 + kx];
        want[(oy * OW + ox) * C + c] = apply(q, acc);
      }
  (void)x2;
#elif BENCH_KERNEL == 3
  for (int c = 0; c < CO; ++c) {
    std::int64_t acc = bias[c];
    for (int i = 0; i < N; ++i) acc += std::int64_t{x[i]} * w[c * N + i];
    want[c] = apply(q, acc);
  }
  (void)x2;
#elif BENCH_KERNEL == 4 || BENCH_KERNEL == 6
  for (int oy = 0; oy < OH; ++oy)
    for (int ox = 0; ox < OW; ++ox)
      for (int c = 0; c < C; ++c) {
        std::int64_t s = 0, m = 0;
        for (int ky = 0; ky < 2; ++ky)
          for (int kx = 0; kx < 2; ++kx) {
            const std::int32_t v = x[((2 * oy + ky) * W + 2 * ox + kx) * C + c];
            s += v, m = v > m ? v : m;
          }
        want[(oy * OW + ox) * C + c] =
            BENCH_KERNEL == 4 ? apply(q, s) : static_cast<std::int32_t>(m);
      }
  (void)x2;
#else
  for (int i = 0; i < N_OUT; ++i)
    want[i] = apply(q, apply(kScale0, x[i], q.lo, q.hi) + apply(kScale1, x2[i], q.lo, q.hi));
#endif
}

/// Times one call of the kernel on `a`, then checks the output elements of `bytes` bytes.
template <kernel_variant V>
bool timed(const char* prefix, const tile_args& a, int bytes) {
  enable_counters();
  const counters c0 = read_counters();
  run_as<V>(kKind, a, 0);
  const counters c1 = read_counters();
  bool ok = true;
  for (int i = 0; i < N_OUT; ++i) {
    const std::int32_t got =
        bytes == 2 ? std::int32_t{static_cast<std::uint16_t>(out[2 * i] | (out[2 * i + 1] << 8))}
                   : std::int32_t{out[i]};
    ok = ok && got == want[i];
  }
  char name[40];
  int n = 0;
  for (const char* s = prefix; *s != 0;) name[n++] = *s++;
  for (const char* s = kTile; *s != 0;) name[n++] = *s++;
  name[n] = 0;
  report(name, kMacs, c0, c1, ok);
  return ok;
}

}  // namespace

int main() {
  lcg g;
  // Inputs: a residual sum's range, 0..1023 (u16), for the wide run; the add reads u8.
  for (int i = 0; i < N_IN; ++i) {
    xv[i] = static_cast<std::int32_t>(g.next() % (BENCH_KERNEL == 5 ? 256 : 1024));
    xv2[i] = static_cast<std::int32_t>(g.next() % 256);
    x16[2 * i] = static_cast<std::uint8_t>(xv[i]);
    x16[2 * i + 1] = static_cast<std::uint8_t>(xv[i] >> 8);
    x8[i] = static_cast<std::uint8_t>(xv[i]);
    x8b[i] = static_cast<std::uint8_t>(xv2[i]);
  }
  fill(w, kWeights, g);
  for (int c = 0; c < 64; ++c) {
    bias[c] = static_cast<int>(g.next() % 2001) - 1000;
    kappa[c] = 1 + static_cast<int>(g.next() % 4);
    lambda[c] = 0;
  }
  tile_args a;
  a.scratch = scratch;
  a.out = out;
  requant q{1, 1, 0, 255};
  t_range r{0, 0};
#if BENCH_KERNEL == 0 || BENCH_KERNEL == 1
  a.h_in = IH, a.w_in = IW, a.c_in = CI;
  a.h_out = OH, a.w_out = OW, a.c_out = CO;
  a.kh = a.kw = KH;
  a.weights = w, a.kappa = kappa, a.lambda = lambda;
  q = {1, 1 << SHIFT, 0, 255};
  r = {-(std::int64_t{1} << 28), std::int64_t{1} << 28};
  const t_range r8 = range_of(w, CO, K, nullptr, kappa, lambda);
  constexpr kernel_variant v8 = tile_variant(kKind, 0, 1);
#elif BENCH_KERNEL == 2
  a.h_in = IH, a.w_in = IW, a.c_in = C;
  a.h_out = OH, a.w_out = OW, a.c_out = C;
  a.kh = a.kw = 3;
  a.weights = w, a.bias = bias;
  q = {3, 1000, 0, 255};
  r = {-(1 << 22), 1 << 22};
  const t_range r8 = range_of(w, C, 9, bias, nullptr, nullptr);
  constexpr kernel_variant v8 = tile_variant(kKind, 1, 0);
#elif BENCH_KERNEL == 3
  a.h_in = 1, a.w_in = 1, a.c_in = N;
  a.h_out = 1, a.w_out = 1, a.c_out = CO;
  a.weights = w, a.bias = bias;
  q = {5, 4096, 0, 255};
  r = {-(1 << 28), 1 << 28};
  const t_range r8 = range_of(w, CO, N, bias, nullptr, nullptr);
  constexpr kernel_variant v8 = tile_variant(kKind, 1, 0);
#elif BENCH_KERNEL == 4 || BENCH_KERNEL == 6
  a.h_in = H, a.w_in = W, a.c_in = C;
  a.h_out = OH, a.w_out = OW, a.c_out = C;
  a.kh = a.kw = a.sh = a.sw = 2;
  q = {1, 4, 0, 1023};
  r = {0, 4 * 1023};
  const t_range r8{0, 4 * 255};
  constexpr kernel_variant v8 = tile_variant(kKind, 0, 0);
#else
  a.h_in = H, a.w_in = W, a.c_in = C;
  a.h_out = H, a.w_out = W, a.c_out = C;
  a.scale0 = kScale0, a.scale1 = kScale1;
  q = {1, 1, 0, 1023};
  r = {0, 700};
  const t_range r8 = r;
  constexpr kernel_variant v8 = tile_variant(kKind, 0, 0);
#endif
  constexpr kernel_variant v16{static_cast<int>(kKind), v8.bias, v8.batchnorm, 0, 0, 1};
  // The wide run: u16 inputs (the add: u8), a u16 output for the pool and the add.
  a.quant = plan_requant(q, r);
  a.in = BENCH_KERNEL == 5 ? x8 : x16;
  a.in2 = BENCH_KERNEL == 5 ? x8b : nullptr;
  a.in_bytes = BENCH_KERNEL == 5 ? 1 : 2;
  a.out_bytes = kWideOut ? 2 : 1;
  reference(xv, xv2, q);
  const bool ok16 = timed<v16>("wide_", a, kWideOut ? 2 : 1);
  // The 8-bit run: the low bytes, a u8 output clipped to 0..255.
  for (int i = 0; i < N_IN; ++i) xv[i] &= 0xff;
  q.hi = 255;
  a.quant = plan_requant(q, r8);
  a.in = x8, a.in2 = BENCH_KERNEL == 5 ? x8b : nullptr;
  a.in_bytes = 1, a.out_bytes = 1;
  reference(xv, xv2, q);
  const bool ok8 = timed<v8>("narrow_", a, 1);
  return ok16 && ok8 ? 0 : 1;
}
