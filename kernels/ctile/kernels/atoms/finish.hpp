// Accumulator -> output: bias, batch-norm (kappa/lambda), exact requantization.
#pragma once

#include <cstdint>

#include "ctile/kernels/arch/isa.hpp"
#include "ctile/kernels/args.hpp"
#include "ctile/kernels/atoms/matmul.hpp"
#include "ctile/kernels/requant.hpp"

namespace ctile::kernels::atoms {

namespace detail {

/// t for channel `co` in 32 bits (wrapping; exact when the plan proves t fits int32).
[[gnu::always_inline]] inline std::int32_t t32(const std::int32_t* bias, const std::int32_t* kappa,
                                               const std::int32_t* lambda, int co,
                                               std::int32_t acc) {
  std::uint32_t t = static_cast<std::uint32_t>(acc);
  if (bias != nullptr) t += static_cast<std::uint32_t>(bias[co]);
  if (kappa != nullptr)
    t = t * static_cast<std::uint32_t>(kappa[co]) + static_cast<std::uint32_t>(lambda[co]);
  return static_cast<std::int32_t>(t);
}

/// Every plan other than the inline ones (and t in 64 bits), out of line.
[[gnu::noinline]] inline std::int32_t finish_slow(const requant_plan* q, const std::int32_t* bias,
                                                  const std::int32_t* kappa,
                                                  const std::int32_t* lambda, int co,
                                                  std::int32_t acc) {
  if (!q->t64) return requantize(*q, t32(bias, kappa, lambda, co, acc));
  std::int64_t t = acc;
  if (bias != nullptr) t += bias[co];
  if (kappa != nullptr) t = std::int64_t{kappa[co]} * t + lambda[co];
  return requantize64(*q, t);
}

}  // namespace detail

/// The per-output epilogue of a weighted kernel. Its hot fields are plain values copied out
/// of the arguments once per call, so that a local copy stays in registers while the kernel
/// stores bytes; other plans go through `plan`, out of line. Bias is applied when `bias` is
/// set, batch-norm when `kappa` is set (then `lambda` must be too).
struct epilogue {
  const std::int32_t* bias;
  const std::int32_t* kappa;
  const std::int32_t* lambda;
  const requant_plan* plan;
  int path;  ///< 0: shift32, 1: mulhi (both inline, 32-bit t), 2: anything else
  std::int32_t t_hi;
  std::uint32_t mul;
  int shift;
  std::int32_t lo, hi;

  explicit epilogue(const tile_args& a)
      : bias(a.bias),
        kappa(a.kappa),
        lambda(a.lambda),
        plan(&a.quant),
        path(a.quant.t64                             ? 2
             : a.quant.mode == requant_mode::shift32 ? 0
             : a.quant.mode == requant_mode::mulhi   ? 1
                                                     : 2),
        t_hi(a.quant.t_hi),
        mul(a.quant.mul),
        shift(a.quant.mode == requant_mode::mulhi ? a.quant.shift - 32 : a.quant.shift),
        lo(a.quant.lo),
        hi(a.quant.hi) {}

  [[gnu::always_inline]] std::int32_t operator()(int co, std::int32_t acc) const {
    if (path == 2) return detail::finish_slow(plan, bias, kappa, lambda, co, acc);
    const std::int32_t t = detail::t32(bias, kappa, lambda, co, acc);
    // clipu_r is one instruction on CORE-V (cv.clipur): clamp t to [0, t_hi], y to [0, hi].
    const auto c = static_cast<std::uint32_t>(isa::clipu_r(t, t_hi));
    const auto y = static_cast<std::int32_t>(
        path == 0 ? (c * mul) >> shift
                  : static_cast<std::uint32_t>((std::uint64_t{c} * mul) >> 32) >> shift);
    return lo == 0 ? isa::clipu_r(y, hi) : isa::min(isa::max(y, lo), hi);
  }
};

/// Where channel `c` of a pixel's outputs is, from the pixel's channel 0: c bytes on in HWC
/// (`CM` false), c * cs channel-major (cs: the tile's h_out * w_out).
template <bool CM>
[[gnu::always_inline]] constexpr long ch_at(int c, long cs) {
  if constexpr (CM) {
    return c * cs;
  } else {
    (void)cs;
    return c;
  }
}

/// Requantizes acc[2 f + p] (filter f of 4 from channel `co`, pixel p of 2) into o0[co + f] /
/// o1[co + f] (channel-major: o0[(co + f) * cs]), each channel's bias / kappa / lambda loaded
/// once for both pixels; the plan's path and whether lo is 0 are template arguments, chosen
/// once per block.
template <int Path, bool Lo0, bool CM = false>
[[gnu::always_inline]] inline void store_block_as(const epilogue& e, int co,
                                                  const std::int32_t* acc, std::uint8_t* o0,
                                                  std::uint8_t* o1, int pixels, long cs = 1) {
  const auto finish_t = [&e](std::uint32_t t) -> std::uint8_t {
    const auto c = static_cast<std::uint32_t>(isa::clipu_r(static_cast<std::int32_t>(t), e.t_hi));
    const auto y = static_cast<std::int32_t>(
        Path == 0 ? (c * e.mul) >> e.shift
                  : static_cast<std::uint32_t>((std::uint64_t{c} * e.mul) >> 32) >> e.shift);
    return static_cast<std::uint8_t>(Lo0 ? isa::clipu_r(y, e.hi)
                                         : isa::min(isa::max(y, e.lo), e.hi));
  };
  const auto channel = [&](int ch, std::int32_t a0, std::int32_t a1) {
    const long at = ch_at<CM>(ch, cs);
    if constexpr (Path == 2) {
      o0[at] = static_cast<std::uint8_t>(e(ch, a0));
      if (pixels == 2) o1[at] = static_cast<std::uint8_t>(e(ch, a1));
    } else {
      auto t0 = static_cast<std::uint32_t>(a0);
      auto t1 = static_cast<std::uint32_t>(a1);
      if (e.bias != nullptr) {
        const auto b = static_cast<std::uint32_t>(e.bias[ch]);
        t0 += b, t1 += b;
      }
      if (e.kappa != nullptr) {
        const auto k = static_cast<std::uint32_t>(e.kappa[ch]);
        const auto l = static_cast<std::uint32_t>(e.lambda[ch]);
        t0 = t0 * k + l, t1 = t1 * k + l;
      }
      o0[at] = finish_t(t0);
      if (pixels == 2) o1[at] = finish_t(t1);
    }
  };
  // Written out (no indexing by a variable) so that acc stays in registers.
  channel(co, acc[0], acc[1]);
  channel(co + 1, acc[2], acc[3]);
  channel(co + 2, acc[4], acc[5]);
  channel(co + 3, acc[6], acc[7]);
}

/// The same with the path chosen at run time (one switch per block of 4 x 2 outputs).
template <bool CM = false>
[[gnu::always_inline]] inline void store_block(const epilogue& e, int co, const std::int32_t* acc,
                                               std::uint8_t* o0, std::uint8_t* o1, int pixels,
                                               long cs = 1) {
  const bool lo0 = e.lo == 0;
  switch (e.path) {
    case 0:
      return lo0 ? store_block_as<0, true, CM>(e, co, acc, o0, o1, pixels, cs)
                 : store_block_as<0, false, CM>(e, co, acc, o0, o1, pixels, cs);
    case 1:
      return lo0 ? store_block_as<1, true, CM>(e, co, acc, o0, o1, pixels, cs)
                 : store_block_as<1, false, CM>(e, co, acc, o0, o1, pixels, cs);
    default:
      return store_block_as<2, false, CM>(e, co, acc, o0, o1, pixels, cs);
  }
}

/// The output value of tile-local channel `co` for an int32 accumulator.
inline std::int32_t finish(const tile_args& a, int co, std::int32_t acc) {
  return epilogue(a)(co, acc);
}

/// The requantization of a whole kernel call, chosen once per call (`fast_kind`):
///   0: shift32 with multiplier 1 (a power-of-two divisor): y = u >> shift
///   1: shift32: y = (u * mul) >> shift
///   2: mulhi: y = mulhu(u, mul) >> (shift - 32)
///   3: anything else (lo > 0, t in 64 bits, mul64, divide): per output, out of line
/// with u = t clamped to [0, t_hi] (one cv.clipur). For kinds 0..2 lo is 0, so y >= 0, and
/// `clip` says whether y can exceed hi at all (y(t_hi) > hi); when not, the final cv.clipur
/// is left out. Plain values: a local copy stays in registers.
struct fast_requant {
  const std::int32_t* bias;
  const std::int32_t* kappa;
  const std::int32_t* lambda;
  const requant_plan* plan;
  std::int32_t t_hi;
  std::uint32_t mul;
  int shift;  ///< after the mulhu for kind 2
  std::int32_t hi;
  bool clip;

  /// A member-wise copy (a plain struct copy may become a memcpy call whose destination then
  /// lives in memory; this one stays in registers).
  [[nodiscard]] fast_requant local() const {
    return {bias, kappa, lambda, plan, t_hi, mul, shift, hi, clip};
  }
};

constexpr int fast_kind(const requant_plan& q) {
  if (q.t64 || q.lo != 0 || q.t_hi < 0) return 3;
  if (q.mode == requant_mode::shift32) return q.mul == 1 ? 0 : 1;
  if (q.mode == requant_mode::mulhi) return 2;
  return 3;
}

inline fast_requant fast_of(const tile_args& a) {
  const requant_plan& q = a.quant;
  const int kind = fast_kind(q);
  fast_requant f{a.bias,
                 a.kappa,
                 a.lambda,
                 &a.quant,
                 q.t_hi,
                 q.mul,
                 q.mode == requant_mode::mulhi ? q.shift - 32 : q.shift,
                 q.hi,
                 true};
  const auto top = static_cast<std::uint32_t>(q.t_hi);
  std::uint32_t y = 0;
  if (kind == 0)
    y = top >> f.shift;
  else if (kind == 1)
    y = (top * q.mul) >> f.shift;
  else if (kind == 2)
    y = static_cast<std::uint32_t>((std::uint64_t{top} * q.mul) >> 32) >> f.shift;
  if (kind < 3) f.clip = y > static_cast<std::uint32_t>(q.hi);
  return f;
}

/// y of a 32-bit t (kinds 0..2).
template <int Kind, bool Clip>
[[gnu::always_inline]] inline std::uint32_t fast_finish(const fast_requant& q, std::uint32_t t) {
  const auto c = static_cast<std::uint32_t>(isa::clipu_r(static_cast<std::int32_t>(t), q.t_hi));
  std::uint32_t y;
  if constexpr (Kind == 0)
    y = c >> q.shift;
  else if constexpr (Kind == 1)
    y = (c * q.mul) >> q.shift;
  else
    y = static_cast<std::uint32_t>((std::uint64_t{c} * q.mul) >> 32) >> q.shift;
  if constexpr (Clip)
    y = static_cast<std::uint32_t>(isa::clipu_r(static_cast<std::int32_t>(y), q.hi));
  return y;
}

/// The output of channel `co` for one accumulator, any kind.
template <int Kind>
[[gnu::always_inline]] inline std::uint8_t fast_one(const fast_requant& q, int co,
                                                    std::int32_t acc) {
  if constexpr (Kind == 3) {
    return static_cast<std::uint8_t>(
        detail::finish_slow(q.plan, q.bias, q.kappa, q.lambda, co, acc));
  } else {
    const auto t = static_cast<std::uint32_t>(detail::t32(q.bias, q.kappa, q.lambda, co, acc));
    return static_cast<std::uint8_t>(q.clip ? fast_finish<Kind, true>(q, t)
                                            : fast_finish<Kind, false>(q, t));
  }
}

/// Requantizes s[2 f + p] (filter f of 4 from channel `co`, pixel p of `Pixels`) into
/// o0[co + f] / o1[co + f] (channel-major: o0[(co + f) * cs]): bias and batch-norm
/// parameters loaded once per channel, the optional steps chosen once per block.
template <int Kind, int Pixels, bool CM = false>
[[gnu::always_inline]] inline void store4xn(const fast_requant& q, int co,
                                            const std::int32_t (&s)[8], std::uint8_t* o0,
                                            std::uint8_t* o1, long cs = 1) {
  if constexpr (Kind == 3) {
    for (int f = 0; f < 4; ++f) {
      const long at = ch_at<CM>(co + f, cs);
      o0[at] = fast_one<3>(q, co + f, s[2 * f]);
      if constexpr (Pixels == 2) o1[at] = fast_one<3>(q, co + f, s[2 * f + 1]);
    }
  } else {
    std::uint32_t t[8];
    for (int i = 0; i < 8; ++i) t[i] = static_cast<std::uint32_t>(s[i]);
    if (q.bias != nullptr) {
      for (int f = 0; f < 4; ++f) {
        const auto b = static_cast<std::uint32_t>(q.bias[co + f]);
        t[2 * f] += b;
        if constexpr (Pixels == 2) t[2 * f + 1] += b;
      }
    }
    if (q.kappa != nullptr) {
      for (int f = 0; f < 4; ++f) {
        const auto kf = static_cast<std::uint32_t>(q.kappa[co + f]);
        const auto lf = static_cast<std::uint32_t>(q.lambda[co + f]);
        t[2 * f] = t[2 * f] * kf + lf;
        if constexpr (Pixels == 2) t[2 * f + 1] = t[2 * f + 1] * kf + lf;
      }
    }
    if (q.clip) {
      for (int f = 0; f < 4; ++f) {
        const long at = ch_at<CM>(co + f, cs);
        o0[at] = static_cast<std::uint8_t>(fast_finish<Kind, true>(q, t[2 * f]));
        if constexpr (Pixels == 2)
          o1[at] = static_cast<std::uint8_t>(fast_finish<Kind, true>(q, t[2 * f + 1]));
      }
    } else {
      for (int f = 0; f < 4; ++f) {
        const long at = ch_at<CM>(co + f, cs);
        o0[at] = static_cast<std::uint8_t>(fast_finish<Kind, false>(q, t[2 * f]));
        if constexpr (Pixels == 2)
          o1[at] = static_cast<std::uint8_t>(fast_finish<Kind, false>(q, t[2 * f + 1]));
      }
    }
  }
}

/// The 4 x P block of fast kind `Kind` (0..2), final clip `Clip`, bias `Bias` and batch-norm
/// `BN` whose parameters start at bp / kp / lp (unused when absent): s[P f + p] (filter f,
/// pixel p) into o[p][f] (channel-major: o[p][f * cs]). Each channel's parameters are loaded
/// once for its P pixels.
template <int Kind, bool Clip, bool Bias, bool BN, int P, bool CM = false>
[[gnu::always_inline]] inline void store4xp_at(const fast_requant& q,
                                               const std::int32_t (&s)[4 * P],
                                               std::uint8_t* const (&o)[P], const std::int32_t* bp,
                                               const std::int32_t* kp, const std::int32_t* lp,
                                               long cs = 1) {
  for (int f = 0; f < 4; ++f) {
    std::uint32_t t[P];
    for (int p = 0; p < P; ++p) t[p] = static_cast<std::uint32_t>(s[P * f + p]);
    if constexpr (Bias) {
      const auto b = static_cast<std::uint32_t>(bp[f]);
      for (auto& v : t) v += b;
    }
    if constexpr (BN) {
      const auto kf = static_cast<std::uint32_t>(kp[f]);
      const auto lf = static_cast<std::uint32_t>(lp[f]);
      for (auto& v : t) v = v * kf + lf;
    }
    for (int p = 0; p < P; ++p)
      o[p][ch_at<CM>(f, cs)] = static_cast<std::uint8_t>(fast_finish<Kind, Clip>(q, t[p]));
  }
}

/// Whether mm4x4_blocks runs as one assembly statement (isa::mm4x4_run: CORE-V, XpulpV2), which for
/// kind 0 takes in quad_out::t_hi the bound of t >> shift, min(t_hi >> shift, hi), and applies
/// it with one cv.clipur: the final clip is then free and needs no variant. It needs all 28
/// allocatable registers, so unoptimized builds (whose frame pointer takes one) use the 4x2
/// loops instead. Optimized builds must not keep the frame pointer (-fno-omit-frame-pointer).
#if defined(CTILE_KERNELS_ISA_LOOPS) && defined(__OPTIMIZE__)
inline constexpr bool quad_fused = true;
#else
inline constexpr bool quad_fused = false;
#endif

/// The 4 x 4 block of a single-row kernel read in place (see mm4x4_row), requantized like
/// store4xp_at into o.o + p * o.oc + f for pixel p, filter f (channel-major: + f * o.cs).
template <int Kind, bool Clip, bool Bias, bool BN, bool CM = false>
[[gnu::always_inline]] inline void mm4x4_block(const std::uint8_t* a, const quad_steps& g,
                                               const std::int8_t* w, const fast_requant& q,
                                               const quad_out& o) {
  std::int32_t s[16];
  mm4x4_row(a, g, w, s);
  std::uint8_t* const out[4] = {o.o, o.o + o.oc, o.o + 2 * o.oc, o.o + 3 * o.oc};
  store4xp_at<Kind, Clip, Bias, BN, 4, CM>(q, s, out, o.bias, o.kappa, o.lambda, o.cs);
}

/// `nq` >= 1 groups of 4 pixels, group j's from a + j * 4 g.ps with its outputs from
/// o.o + j * 4 o.oc, each against `nb` >= 1 blocks of 4 filters from `w` (4 g.k bytes apart),
/// block i's parameters at + 4 i (o.bias, ...) and outputs at o.o + 4 i (channel-major:
/// + 4 i o.cs); `q` and `o` hold the same plan (kind 0 fused: see quad_fused). On CORE-V
/// (quad_fused) one assembly statement runs a group's blocks; it needs rows of 2 words or more
/// (g.words >= 2: the callers send rows of one word to the 4 x 2 blocks).
template <int Kind, bool Clip, bool Bias, bool BN, bool CM = false>
[[gnu::always_inline]] inline void mm4x4_blocks(const std::uint8_t* a, const quad_steps& g,
                                                const std::int8_t* w, const fast_requant& q,
                                                const quad_out& o, int nb, int nq) {
  const long pixels = 4 * g.ps, outs = 4 * o.oc;
#if defined(CTILE_KERNELS_ISA_LOOPS) && defined(__OPTIMIZE__)
  (void)q;
  // The packed stores' steps: HWC, pixel to pixel (oc), then back to the next block's pixel 0;
  // channel-major, channel to channel (cs) throughout.
  const long step = CM ? o.cs : o.oc, last = CM ? o.cs : 4 - 3 * o.oc;
  quad_run r{a,       g.ps, g.k,  g.ba, g.bw, g.words - 1, nb,     o.t_hi,  o.mul,
             o.shift, o.hi, step, last, w,    o.o,         o.bias, o.kappa, o.lambda};
  std::uint8_t* out = o.o;
  for (int j = nq; j != 0; --j) {
    isa::mm4x4_run<Kind, Clip, Bias, BN, CM>(r);
    r.a += pixels;
    out += outs;
    r.w = w, r.o = out, r.bias = o.bias, r.kappa = o.kappa, r.lambda = o.lambda;
  }
#else
  for (int j = 0; j < nq; ++j) {
    quad_out b = o;
    b.o += j * outs;
    const std::int8_t* f = w;
    for (int i = nb; i != 0; --i) {
      mm4x4_block<Kind, Clip, Bias, BN, CM>(a + j * pixels, g, f, q, b);
      f += 4 * g.k;
      b.o += ch_at<CM>(4, o.cs);
      if constexpr (Bias) b.bias += 4;
      if constexpr (BN) b.kappa += 4, b.lambda += 4;
    }
  }
#endif
}

/// The 4 x 2 block: s[2 f + p] into q0[0..3] / q1[0..3] (see store4xp_at).
template <int Kind, bool Clip, bool Bias, bool BN, bool CM = false>
[[gnu::always_inline]] inline void store4x2_at(const fast_requant& q, const std::int32_t (&s)[8],
                                               std::uint8_t* q0, std::uint8_t* q1,
                                               const std::int32_t* bp, const std::int32_t* kp,
                                               const std::int32_t* lp, long cs = 1) {
  std::uint8_t* const o[2] = {q0, q1};
  store4xp_at<Kind, Clip, Bias, BN, 2, CM>(q, s, o, bp, kp, lp, cs);
}

}  // namespace ctile::kernels::atoms
