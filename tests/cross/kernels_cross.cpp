// Runs the kernels on a RISC-V target (under QEMU for the portable RV32IMC build) against a
// naive reference computed in the same program, on 8 simulated cores (called one after the
// other). Prints one line per kernel and returns the number of mismatches.
#include <cstdint>
#include <cstdio>
#include <ctile/kernels/kernels.hpp>

namespace {

using namespace ctile;
using namespace ctile::kernels;

std::uint32_t seed = 12345;
std::uint32_t next() {
  seed = seed * 1664525u + 1013904223u;
  return seed >> 8;
}

constexpr int H = 9, W = 7, C = 12, CO = 10;  // odd width, Cout not a multiple of 4
alignas(4) std::uint8_t x[H * W * C], x2[H * W * C], xchw[C * H * W];
alignas(4) std::int8_t w[CO * 5 * 5 * C];  // up to 5x5 filters
alignas(4) std::int8_t wfc[CO * H * W * C];
std::int32_t bias[32], kappa[32], lambda[32];
alignas(4) std::uint8_t out[H * W * 32], want[H * W * 32];
alignas(4) std::int32_t out32[CO], want32[CO];
alignas(4) std::uint8_t scratch[scratch_bytes(kernel_kind::conv, H, C, 5, 5, 1, 8) +
                                scratch_bytes(kernel_kind::depthwise, H, C, 3, 3, 1, 8)];

std::int32_t naive_t(std::int64_t acc, int co, bool bn) {
  return static_cast<std::int32_t>(bn ? std::int64_t{kappa[co]} * acc + lambda[co] : acc);
}

int report(const char* name, const std::uint8_t* a, const std::uint8_t* b, int n) {
  int bad = 0, inside = 0;
  for (int i = 0; i < n; ++i) bad += a[i] != b[i], inside += b[i] != 0 && b[i] != 255;
  // `inside`: expected values strictly between the clip bounds (the test is not vacuous).
  std::printf("kernel=%s isa=%s values=%d inside=%d mismatches=%d\n", name, isa::name, n, inside,
              bad);
  return bad;
}

tile_args base() {
  tile_args a;
  a.in = x;
  a.h_in = H, a.w_in = W, a.c_in = C;
  a.scratch = scratch;
  a.cores = 8;
  return a;
}

void run_all(kernel_kind k, tile_args a) {
  for (int i = 0; i < a.cores; ++i) {
    a.core = i;
    run(k, a);
  }
}

/// A requantization and the parameters present; `kind` is the fast kind the plan must get
/// (atoms::fast_kind: 0 shift, 1 shift32, 2 mulhi, 3 generic; -1: any), so that each path
/// is run. A multiplier above the divisor (the final clip) leaves few values strictly inside
/// 0..255, but every clipped 255 checks the clip.
struct quant_case {
  requant q;
  bool bias, bn;
  int kind;
};
constexpr quant_case generic_bn{{3000, (1 << 24) - 1, 0, 255}, true, true, -1};

// `chw`: the output stored channel-major (channel co's plane of oh x ow from co * oh * ow).
int conv_test(int kh, int kw, int s, int pt, int pb, int pl, int pr, core_split split,
              const char* name, quant_case qc = generic_bn, bool chw = false) {
  const int oh = (H + pt + pb - kh) / s + 1, ow = (W + pl + pr - kw) / s + 1;
  const requant q = qc.q;
  for (int oy = 0; oy < oh; ++oy)
    for (int ox = 0; ox < ow; ++ox)
      for (int co = 0; co < CO; ++co) {
        std::int64_t acc = 0;
        for (int ky = 0; ky < kh; ++ky)
          for (int kx = 0; kx < kw; ++kx) {
            const int iy = oy * s - pt + ky, ix = ox * s - pl + kx;
            if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
            for (int ci = 0; ci < C; ++ci)
              acc += x[(iy * W + ix) * C + ci] * w[((co * kh + ky) * kw + kx) * C + ci];
          }
        if (qc.bias) acc += bias[co];
        want[chw ? (co * oh + oy) * ow + ox : (oy * ow + ox) * CO + co] =
            apply(q, naive_t(acc, co, qc.bn));
      }
  tile_args a = base();
  a.out = out, a.h_out = oh, a.w_out = ow, a.c_out = CO;
  a.out_chw = chw;
  a.kh = kh, a.kw = kw, a.sh = a.sw = s;
  a.pad_t = pt, a.pad_b = pb, a.pad_l = pl, a.pad_r = pr;
  a.weights = w;
  a.bias = qc.bias ? bias : nullptr;
  a.kappa = qc.bn ? kappa : nullptr, a.lambda = qc.bn ? lambda : nullptr;
  a.quant = plan_requant(q, {-(1ll << 27), 1ll << 27});
  a.split = split;
  if (check(kernel_kind::conv, a) != args_problem::none) return 1000;
  if (qc.kind >= 0 && atoms::fast_kind(a.quant) != qc.kind) return 1000;
  run_all(kernel_kind::conv, a);
  return report(name, out, want, oh * ow * CO);
}

// Pointwise with 4 input channels (one word per pixel: the block loop's first iteration is
// the whole row) on the input seen as H x 3W x 4.
int pointwise_c4_test(quant_case qc, const char* name) {
  constexpr int w3 = 3 * W, c4 = 4;
  const requant q = qc.q;
  for (int y = 0; y < H; ++y)
    for (int xx = 0; xx < w3; ++xx)
      for (int co = 0; co < CO; ++co) {
        std::int64_t acc = 0;
        for (int ci = 0; ci < c4; ++ci) acc += x[(y * w3 + xx) * c4 + ci] * w[co * c4 + ci];
        if (qc.bias) acc += bias[co];
        want[(y * w3 + xx) * CO + co] = apply(q, naive_t(acc, co, qc.bn));
      }
  tile_args a = base();
  a.w_in = w3, a.c_in = c4;
  a.out = out, a.h_out = H, a.w_out = w3, a.c_out = CO;
  a.weights = w;
  a.bias = qc.bias ? bias : nullptr;
  a.kappa = qc.bn ? kappa : nullptr, a.lambda = qc.bn ? lambda : nullptr;
  a.quant = plan_requant(q, {-(1ll << 27), 1ll << 27});
  a.split = {split_kind::rows};
  if (check(kernel_kind::pointwise, a) != args_problem::none) return 1000;
  if (qc.kind >= 0 && atoms::fast_kind(a.quant) != qc.kind) return 1000;
  run_all(kernel_kind::pointwise, a);
  return report(name, out, want, H * w3 * CO);
}

int depthwise_test(quant_case qc, const char* name) {
  const int oh = H, ow = W;  // 3x3 same
  const requant q = qc.q;
  for (int c = 0; c < C; ++c)
    for (int y = 0; y < H; ++y)
      for (int xx = 0; xx < W; ++xx) xchw[(c * H + y) * W + xx] = x[(y * W + xx) * C + c];
  for (int oy = 0; oy < oh; ++oy)
    for (int ox = 0; ox < ow; ++ox)
      for (int c = 0; c < C; ++c) {
        std::int64_t acc = 0;
        for (int ky = 0; ky < 3; ++ky)
          for (int kx = 0; kx < 3; ++kx) {
            const int iy = oy - 1 + ky, ix = ox - 1 + kx;
            if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
            acc += x[(iy * W + ix) * C + c] * w[(c * 3 + ky) * 3 + kx];
          }
        if (qc.bias) acc += bias[c];
        want[(oy * ow + ox) * C + c] = apply(q, naive_t(acc, c, qc.bn));
      }
  tile_args a = base();
  a.in = xchw;
  a.out = out, a.h_out = oh, a.w_out = ow, a.c_out = C;
  a.kh = a.kw = 3, a.pad_t = a.pad_b = a.pad_l = a.pad_r = 1;
  a.weights = w;
  a.bias = qc.bias ? bias : nullptr;
  a.kappa = qc.bn ? kappa : nullptr, a.lambda = qc.bn ? lambda : nullptr;
  a.quant = plan_requant(q, {-(1 << 26), 1 << 26});
  a.split = {split_kind::channels};
  if (qc.kind >= 0 && atoms::fast_kind(a.quant) != qc.kind) return 1000;
  run_all(kernel_kind::depthwise, a);
  return report(name, out, want, oh * ow * C);
}

int linear_test() {
  const int n = H * W * C;
  int bad = 0;
  for (int co = 0; co < CO; ++co) {
    std::int64_t acc = 0;
    for (int i = 0; i < n; ++i) acc += x[i] * wfc[co * n + i];
    want32[co] = static_cast<std::int32_t>(acc + bias[co]);
  }
  tile_args a = base();
  a.out = out32, a.h_out = a.w_out = 1, a.c_out = CO;
  a.weights = wfc, a.bias = bias;
  a.quant = raw_output();
  run_all(kernel_kind::linear, a);
  for (int co = 0; co < CO; ++co) bad += out32[co] != want32[co];
  std::printf("kernel=linear32 isa=%s values=%d mismatches=%d\n", isa::name, CO, bad);
  return bad;
}

int pool_add_test() {
  int bad = 0;
  // Max pool 2x2 stride 2 with bottom/right padding of 1 (odd dims).
  const int oh = (H + 1) / 2, ow = (W + 1) / 2;
  for (int oy = 0; oy < oh; ++oy)
    for (int ox = 0; ox < ow; ++ox)
      for (int c = 0; c < C; ++c) {
        int m = 0;
        for (int ky = 0; ky < 2; ++ky)
          for (int kx = 0; kx < 2; ++kx) {
            const int iy = 2 * oy + ky, ix = 2 * ox + kx;
            if (iy < H && ix < W && x[(iy * W + ix) * C + c] > m) m = x[(iy * W + ix) * C + c];
          }
        want[(oy * ow + ox) * C + c] = static_cast<std::uint8_t>(m);
      }
  tile_args a = base();
  a.out = out, a.h_out = oh, a.w_out = ow, a.c_out = C;
  a.kh = a.kw = a.sh = a.sw = 2, a.pad_b = a.pad_r = 1;
  a.split = {split_kind::grid, 4, 2};
  run_all(kernel_kind::maxpool, a);
  bad += report("maxpool2x2", out, want, oh * ow * C);
  // Global average with NEMO-style constants.
  const requant q{7, 1000, 0, 255};
  for (int c = 0; c < C; ++c) {
    std::int64_t s = 0;
    for (int i = 0; i < H * W; ++i) s += x[i * C + c];
    want[c] = apply(q, s);
  }
  a = base();
  a.out = out, a.h_out = a.w_out = 1, a.c_out = C, a.kh = H, a.kw = W;
  a.quant = plan_requant(q, {0, 255 * H * W});
  a.split = {split_kind::channels};
  run_all(kernel_kind::avgpool, a);
  bad += report("global_avgpool", out, want, C);
  // Residual add with per-input rescaling.
  const rescale r0{3, 5, 1, true}, r1{-2, 600, 2, false};
  const requant qa{1, 2, 0, 255};
  for (int i = 0; i < H * W * C; ++i)
    want[i] = apply(qa, apply(r0, x[i], 0, 255) + apply(r1, x2[i], 0, 255));
  a = base();
  a.in2 = x2, a.out = out, a.h_out = H, a.w_out = W, a.c_out = C;
  a.scale0 = r0, a.scale1 = r1;
  a.quant = plan_requant(qa, {-200, 1000});
  a.split = {split_kind::rows};
  run_all(kernel_kind::add, a);
  bad += report("add", out, want, H * W * C);
  return bad;
}

// The selected backend against the portable definitions (on CORE-V: the inline assembly).
int intrinsics_test() {
  namespace p = arch::portable;
  const std::uint32_t edges[] = {0u, 0xFFFFFFFFu, 0x80808080u, 0x7F7F7F7Fu, 0x01FF807Fu};
  int bad = 0, n = 0;
  for (int i = 0; i < 64; ++i) {
    const std::uint32_t a = i < 5 ? edges[i] : next() ^ (next() << 8);
    const std::uint32_t b = i < 5 ? edges[4 - i] : next() ^ (next() << 8);
    const auto acc = static_cast<std::int32_t>(next() << 8);
    const auto sa = static_cast<std::int32_t>(a);
    const auto sb = static_cast<std::int32_t>(b >> 20);
    bad += isa::sdotusp4(a, b, acc) != p::sdotusp4(a, b, acc);
    bad += isa::sdotsp4(a, b, acc) != p::sdotsp4(a, b, acc);
    bad += isa::maxu4(a, b) != p::maxu4(a, b);
    bad += isa::clipu_r(sa, sb) != p::clipu_r(sa, sb);
    bad += isa::clipu(sa, 9) != p::clipu(sa, 9);
    bad += isa::max(sa, acc) != p::max(sa, acc);
    bad += isa::min(sa, acc) != p::min(sa, acc);
    n += 7;
  }
  std::uint8_t buf[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  bad += isa::load4(buf + 1) != p::load4(buf + 1);
  std::printf("kernel=intrinsics isa=%s values=%d mismatches=%d\n", isa::name, n + 1, bad);
  return bad;
}

// Signed inputs (the same bytes read as two's complement): a 3x3 conv with padding whose
// output is clipped to a signed range (stored as two's complement), a signed linear layer, and
// a max pool of signed values, against plain loops over int8 values.
int signed_test() {
  const auto sx = [](int i) { return std::int32_t{static_cast<std::int8_t>(x[i])}; };
  const requant q{5, 4096, -128, 127};
  int bad = 0;
  // conv 3x3, stride 1, padding 1.
  for (int oy = 0; oy < H; ++oy)
    for (int ox = 0; ox < W; ++ox)
      for (int co = 0; co < CO; ++co) {
        std::int64_t acc = bias[co];
        for (int ky = 0; ky < 3; ++ky)
          for (int kx = 0; kx < 3; ++kx) {
            const int iy = oy - 1 + ky, ix = ox - 1 + kx;
            if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
            for (int ci = 0; ci < C; ++ci)
              acc += sx((iy * W + ix) * C + ci) * w[((co * 3 + ky) * 3 + kx) * C + ci];
          }
        want[(oy * W + ox) * CO + co] = static_cast<std::uint8_t>(apply(q, acc));
      }
  tile_args a = base();
  a.in_signed = true;
  a.out = out, a.h_out = H, a.w_out = W, a.c_out = CO;
  a.kh = a.kw = 3, a.pad_t = a.pad_b = a.pad_l = a.pad_r = 1;
  a.weights = w, a.bias = bias;
  a.quant = plan_requant(q, {-(1ll << 27), 1ll << 27});
  a.split = {split_kind::rows};
  run_all(kernel_kind::conv, a);
  bad += report("conv3x3_signed", out, want, H * W * CO);
  // linear, raw int32 output.
  const int n = H * W * C;
  for (int co = 0; co < CO; ++co) {
    std::int64_t acc = 0;
    for (int i = 0; i < n; ++i) acc += sx(i) * wfc[co * n + i];
    want32[co] = static_cast<std::int32_t>(acc);
  }
  a = base();
  a.in_signed = true;
  a.out = out32, a.h_out = a.w_out = 1, a.c_out = CO;
  a.weights = wfc;
  a.quant = raw_output();
  run_all(kernel_kind::linear, a);
  int lbad = 0;
  for (int co = 0; co < CO; ++co) lbad += out32[co] != want32[co];
  std::printf("kernel=linear32_signed isa=%s values=%d mismatches=%d\n", isa::name, CO, lbad);
  bad += lbad;
  // max pool 2x2, stride 2 (the padded taps are skipped).
  const int oh = (H + 1) / 2, ow = (W + 1) / 2;
  for (int oy = 0; oy < oh; ++oy)
    for (int ox = 0; ox < ow; ++ox)
      for (int c = 0; c < C; ++c) {
        int m = -128;
        for (int ky = 0; ky < 2; ++ky)
          for (int kx = 0; kx < 2; ++kx) {
            const int iy = 2 * oy + ky, ix = 2 * ox + kx;
            if (iy < H && ix < W && sx((iy * W + ix) * C + c) > m) m = sx((iy * W + ix) * C + c);
          }
        want[(oy * ow + ox) * C + c] = static_cast<std::uint8_t>(m);
      }
  a = base();
  a.in_signed = true;
  a.out = out, a.h_out = oh, a.w_out = ow, a.c_out = C;
  a.kh = a.kw = 2, a.sh = a.sw = 2, a.pad_b = a.pad_r = 1;
  a.split = {split_kind::channels};
  run_all(kernel_kind::maxpool, a);
  bad += report("maxpool_signed", out, want, oh * ow * C);
  return bad;
}

}  // namespace

int main() {
  for (auto& v : x) v = static_cast<std::uint8_t>(next());
  for (auto& v : x2) v = static_cast<std::uint8_t>(next());
  for (auto& v : w) v = static_cast<std::int8_t>(next());
  for (auto& v : wfc) v = static_cast<std::int8_t>(next());
  for (int i = 0; i < 32; ++i) {
    bias[i] = static_cast<std::int32_t>(next() % 4001) - 2000;
    kappa[i] = static_cast<std::int32_t>(next() % 9) - 1;
    lambda[i] = static_cast<std::int32_t>(next() % 100001) - 50000;
  }
  int bad = intrinsics_test();
  bad += conv_test(3, 3, 1, 1, 1, 1, 1, {split_kind::rows}, "conv3x3");
  bad += conv_test(5, 5, 2, 2, 1, 0, 2, {split_kind::grid, 2, 4}, "conv5x5s2");
  bad += conv_test(1, 1, 1, 0, 0, 0, 0, {split_kind::channels}, "pointwise");
  bad += conv_test(1, 1, 2, 0, 0, 0, 0, {split_kind::cols}, "pointwise_s2");
  // A single-row kernel wider than one pixel: 4 x 4 blocks with pixels and filters apart by
  // different steps (interior pixels), pairs at the padded borders.
  bad += conv_test(1, 3, 1, 0, 0, 1, 1, {split_kind::rows}, "conv1x3");
  // Every fast requantization kind, with and without the final clip, bias and batch-norm.
  const quant_case fast[] = {{{1, 1 << 14, 0, 255}, false, true, 0},
                             {{11, 1 << 16, 0, 255}, true, false, 1},
                             {{100, 1, 0, 255}, true, true, 1},
                             {{3, 100000, 0, 255}, false, false, 2},
                             {{3, 1000, 0, 255}, true, false, 2}};
  const char* conv_names[] = {"conv3x3_shift_bn", "conv3x3_mul_bias", "conv3x3_clip_bias_bn",
                              "conv3x3_mulhi", "conv3x3_mulhi_bias"};
  const char* pw_names[] = {"pointwise_shift_bn", "pointwise_mul_bias", "pointwise_clip_bias_bn",
                            "pointwise_mulhi", "pointwise_mulhi_bias"};
  // Whole rows and all channels per core: 4 x 4 blocks (a 2-iteration loop), then a pair and a
  // single pixel, and the 2 leftover channels.
  const char* pw_rows_names[] = {"pointwise_rows_shift_bn", "pointwise_rows_mul_bias",
                                 "pointwise_rows_clip_bias_bn", "pointwise_rows_mulhi",
                                 "pointwise_rows_mulhi_bias"};
  const char* dw_names[] = {"depthwise3x3_shift_bn", "depthwise3x3_mul_bias",
                            "depthwise3x3_clip_bias_bn", "depthwise3x3_mulhi",
                            "depthwise3x3_mulhi_bias"};
  for (int i = 0; i < 5; ++i) {
    bad += conv_test(3, 3, 1, 1, 1, 1, 1, {split_kind::rows}, conv_names[i], fast[i]);
    bad += conv_test(1, 1, 1, 0, 0, 0, 0, {split_kind::cols}, pw_names[i], fast[i]);
    bad += conv_test(1, 1, 1, 0, 0, 0, 0, {split_kind::rows}, pw_rows_names[i], fast[i]);
    bad += depthwise_test(fast[i], dw_names[i]);
  }
  bad += conv_test(1, 3, 1, 0, 0, 1, 1, {split_kind::rows}, "conv1x3_mul_bias", fast[1]);
  // The shift-only kind with the other option sets (its 4 x 4 blocks merge the last addition
  // with the shift): bias and batch-norm, bias alone, neither.
  const quant_case shift_opts[] = {{{1, 1 << 15, 0, 255}, true, true, 0},
                                   {{1, 1 << 9, 0, 255}, true, false, 0},
                                   {{1, 1 << 8, 0, 255}, false, false, 0}};
  const char* shift_names[] = {"pointwise_rows_shift_bias_bn", "pointwise_rows_shift_bias",
                               "pointwise_rows_shift"};
  for (int i = 0; i < 3; ++i)
    bad += conv_test(1, 1, 1, 0, 0, 0, 0, {split_kind::rows}, shift_names[i], shift_opts[i]);
  bad += conv_test(1, 3, 1, 0, 0, 1, 1, {split_kind::rows}, "conv1x3_shift_bias", shift_opts[1]);
  // Channel-major outputs (a depthwise layer's input): the 4 x 4 blocks packing a channel's 4
  // pixels per word, the pairs, the leftover channels and im2col.
  const char* chw_names[] = {"pointwise_rows_chw_shift_bn", "pointwise_rows_chw_mul_bias",
                             "pointwise_rows_chw_clip_bias_bn", "pointwise_rows_chw_mulhi",
                             "pointwise_rows_chw_mulhi_bias"};
  for (int i = 0; i < 5; ++i)
    bad += conv_test(1, 1, 1, 0, 0, 0, 0, {split_kind::rows}, chw_names[i], fast[i], true);
  bad += conv_test(1, 1, 1, 0, 0, 0, 0, {split_kind::cols}, "pointwise_cols_chw", fast[1], true);
  bad += conv_test(3, 3, 2, 1, 1, 1, 1, {split_kind::rows}, "conv3x3s2_chw", fast[2], true);
  bad += conv_test(1, 3, 1, 0, 0, 1, 1, {split_kind::rows}, "conv1x3_chw", generic_bn, true);
  bad += pointwise_c4_test(fast[0], "pointwise_c4_shift_bn");
  bad += pointwise_c4_test(fast[2], "pointwise_c4_clip_bias_bn");
  bad += depthwise_test(generic_bn, "depthwise3x3");
  bad += depthwise_test({{3000, (1 << 24) - 1, 1, 200}, true, true, 3}, "depthwise3x3_lo");
  bad += linear_test();
  bad += pool_add_test();
  bad += signed_test();
  std::printf("result=%s\n", bad == 0 ? "pass" : "FAIL");
  return bad == 0 ? 0 : 1;
}
