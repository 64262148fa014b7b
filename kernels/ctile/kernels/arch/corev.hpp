// CORE-V (CV32E40P v2, xcvsimd/xcvmac/xcvalu/xcvmem) backend through inline assembly, for
// clang-19 which has the instructions but no builtins for them. Hardware loops are emitted
// with `.insn` because LLVM 19 lacks xcvhwlp. `cv.setup L, rs1, uimm` (CV32E40P v2) is
// opcode 0x2B (custom-1), funct3 4, bits [11:8] = 0111 and bit 7 = L, so loop 0 is written
// `.insn i 0x2B, 4, x14, rs1, uimm`; the loop starts after it and ends (first instruction
// after the body) at pc + 4 * uimm (uimm counts words: CV32E40P v1.8 decodes it as uimm << 2,
// checked on its RTL). A body is 32-bit instructions only (`.option norvc`),
// 4-byte aligned, at least 3 instructions, no branches.
#pragma once

#include <cstdint>

#include "ctile/kernels/arch/geometry.hpp"
#include "ctile/kernels/arch/portable.hpp"

#if !defined(__riscv_xcvsimd) || !defined(__riscv_xcvalu) || !defined(__riscv_xcvmem)
#error "the CORE-V backend needs -march=rv32imc_xcvsimd_xcvmac_xcvalu_xcvmem_xcvbi"
#endif

namespace ctile::kernels::arch::corev {

inline constexpr const char* name = "corev";

using portable::pack4;
using portable::sbyte;
using portable::ubyte;

inline std::int32_t sdotusp4(std::uint32_t a, std::uint32_t b, std::int32_t acc) {
  __asm__("cv.sdotusp.b %0, %1, %2" : "+r"(acc) : "r"(a), "r"(b));
  return acc;
}
inline std::int32_t sdotsp4(std::uint32_t a, std::uint32_t b, std::int32_t acc) {
  __asm__("cv.sdotsp.b %0, %1, %2" : "+r"(acc) : "r"(a), "r"(b));
  return acc;
}
inline std::uint32_t maxu4(std::uint32_t a, std::uint32_t b) {
  std::uint32_t r;
  __asm__("cv.maxu.b %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
inline std::int32_t clipu_r(std::int32_t x, std::int32_t hi) {
  std::int32_t r;
  __asm__("cv.clipur %0, %1, %2" : "=r"(r) : "r"(x), "r"(hi));
  return r;
}
/// [0, 2^p - 1], as portable::clipu_bits (the GAP SDK's __CLIPU(x, p)).
inline std::int32_t clipu_bits(std::int32_t x, int p) {
  return clipu_r(x, static_cast<std::int32_t>((std::uint32_t{1} << p) - 1u));
}
inline std::int32_t max(std::int32_t a, std::int32_t b) {
  std::int32_t r;
  __asm__("cv.max %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
inline std::int32_t min(std::int32_t a, std::int32_t b) {
  std::int32_t r;
  __asm__("cv.min %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
/// The core handles misaligned words in hardware.
inline std::uint32_t load4(const void* p) {
  std::uint32_t v;
  __asm__ volatile("lw %0, 0(%1)" : "=r"(v) : "r"(p) : "memory");
  return v;
}
inline void store4(void* p, std::uint32_t v) {
  __asm__ volatile("sw %1, 0(%0)" : : "r"(p), "r"(v) : "memory");
}

inline std::uint32_t load4a(const void* p) {
  return load4(p);
}
inline void store4a(void* p, std::uint32_t v) {
  store4(p, v);
}

// The instructions the loops shared with the XpulpV2 backend need (hwloop_kernels.inc), in
// the CORE-V spelling. cv.setup's immediate counts words from the set-up to the end of the body
// (the body's length + 1).
// clang-format off
#define CTILE_HW_LW(D, A, I) "cv.lw %[" #D "], (%[" #A "]), " #I "\n"
#define CTILE_HW_LWR(D, A, R) "cv.lw %[" #D "], (%[" #A "]), %[" #R "]\n"
#define CTILE_HW_SW(S, A, I) "cv.sw %[" #S "], (%[" #A "]), " #I "\n"
#define CTILE_HW_SBR(S, A, R) "cv.sb %[" #S "], (%[" #A "]), %[" #R "]\n"
#define CTILE_HW_SDOTUSP(D, A, B) "cv.sdotusp.b " D ", " A ", " B "\n"
#define CTILE_HW_DOTUSP(D, A, B) "cv.dotusp.b " D ", " A ", " B "\n"
#define CTILE_HW_CLIPUR(D, A, B) "cv.clipur " D ", " A ", " B "\n"
#define CTILE_HW_BEQZ(R, L) "cv.beqimm " R ", 0, " L "\n"
#define CTILE_HW_LOOP0(N, B) ".insn i 0x2B, 4, x14, " N ", 1 + (" B ")\n"
#define CTILE_HW_LOOP1(N, B) ".insn i 0x2B, 4, x15, " N ", 1 + (" B ")\n"
// clang-format on

#include "ctile/kernels/arch/hwloop_kernels.inc"

// clang-format off
/// 4 filters x 4 pixels, one word each, through two walking pointers: `a` visits the 4 pixels
/// (`ps` bytes apart, then `ba` = 4 - 3 ps back to the next word of the first), `w` the 4
/// filters (`k` apart, then `bw` = 4 - 3 k back). 8 post-increment loads (4 pixel words, 4
/// filter words) + 16 dot products: 24 instructions for 64 MACs, no loaded register used by
/// the next instruction. Split after the third filter's dot products (the last use of y0) so
/// that the peeled iteration can move the loop count out of s15 there. s[4 f + p]: filter f,
/// pixel p.
#define CTILE_COREV_4X4_A(OP)    \
  "cv.lw %[x0], (%[a]), %[ps]\n" \
  "cv.lw %[x1], (%[a]), %[ps]\n" \
  "cv.lw %[x2], (%[a]), %[ps]\n" \
  "cv.lw %[x3], (%[a]), %[ba]\n" \
  "cv.lw %[y0], (%[w]), %[k]\n"  \
  "cv.lw %[y1], (%[w]), %[k]\n"  \
  #OP " %[s0], %[x0], %[y0]\n"   \
  #OP " %[s1], %[x1], %[y0]\n"   \
  #OP " %[s2], %[x2], %[y0]\n"   \
  #OP " %[s3], %[x3], %[y0]\n"   \
  "cv.lw %[y0], (%[w]), %[k]\n"  \
  #OP " %[s4], %[x0], %[y1]\n"   \
  #OP " %[s5], %[x1], %[y1]\n"   \
  #OP " %[s6], %[x2], %[y1]\n"   \
  #OP " %[s7], %[x3], %[y1]\n"   \
  "cv.lw %[y1], (%[w]), %[bw]\n" \
  #OP " %[s8], %[x0], %[y0]\n"   \
  #OP " %[s9], %[x1], %[y0]\n"   \
  #OP " %[s10], %[x2], %[y0]\n"  \
  #OP " %[s11], %[x3], %[y0]\n"
#define CTILE_COREV_4X4_B(OP)   \
  #OP " %[s12], %[x0], %[y1]\n" \
  #OP " %[s13], %[x1], %[y1]\n" \
  #OP " %[s14], %[x2], %[y1]\n" \
  #OP " %[s15], %[x3], %[y1]\n"
// clang-format on

/// The 4x2 inner loop: 4 filter rows w0..w3 against 2 pixel columns a0, a1, over `words`
/// 4-byte groups (words >= 1), adding into acc[0..7] (acc[2 * f + p] = filter f, pixel p).
/// One iteration: 6 post-increment loads + 8 cv.sdotusp.b for 32 MACs, in a hardware loop.
inline void mm4x2(const std::uint8_t* a0, const std::uint8_t* a1, const std::int8_t* w0,
                  const std::int8_t* w1, const std::int8_t* w2, const std::int8_t* w3, int words,
                  std::int32_t* acc) {
  std::int32_t s0 = acc[0], s1 = acc[1], s2 = acc[2], s3 = acc[3];
  std::int32_t s4 = acc[4], s5 = acc[5], s6 = acc[6], s7 = acc[7];
  std::uint32_t x0, x1, y0, y1;
  // Body of 14 instructions: the loop end is 4 + 14 * 4 bytes after cv.setup, uimm = 30.
  __asm__ volatile(
      ".balign 4\n"
      ".option push\n"
      ".option norvc\n" CTILE_HW_LOOP0("%[n]", "14") CTILE_HW_4X2(CTILE_HW_SDOTUSP) ".option pop\n"
      : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [s4] "+r"(s4), [s5] "+r"(s5),
        [s6] "+r"(s6), [s7] "+r"(s7), [a0] "+r"(a0), [a1] "+r"(a1), [w0] "+r"(w0), [w1] "+r"(w1),
        [w2] "+r"(w2), [w3] "+r"(w3), [x0] "=&r"(x0), [x1] "=&r"(x1), [y0] "=&r"(y0), [y1] "=&r"(y1)
      : [n] "r"(words)
      : "memory");
  acc[0] = s0, acc[1] = s1, acc[2] = s2, acc[3] = s3;
  acc[4] = s4, acc[5] = s5, acc[6] = s6, acc[7] = s7;
}

// clang-format off
/// Requantization of one accumulator S of the fused 4x4 block, in place: optional bias (x2),
/// optional batch-norm (x0, x1). Kind 0 (shift only): an arithmetic shift by bw merged into
/// the last addition (cv.addNr: (S + x) >>> bw), then one cv.clipur to ba, which holds
/// min(t_hi >> shift, hi): clipping commutes with the floor shift, so this is the clip of t
/// to [0, t_hi], the shift and the final clip at once. Kinds 1 and 2: cv.clipur to [0, t_hi]
/// (ba), multiply (kind 1) or mulhu (kind 2) by ps, shift by bw, optional final cv.clipur to
/// hi (k). The value stays in S (the block stores 4 channels of a pixel as one word).
#define CTILE_COREV_QOUT(S)                        \
  ".if %[kind] == 0\n"                             \
  ".if %[bn]\n"                                    \
  ".if %[bias]\n"                                  \
  "add %[" #S "], %[" #S "], %[x2]\n"              \
  ".endif\n"                                       \
  "mul %[" #S "], %[" #S "], %[x0]\n"              \
  "cv.addnr %[" #S "], %[x1], %[bw]\n"             \
  ".elseif %[bias]\n"                              \
  "cv.addnr %[" #S "], %[x2], %[bw]\n"             \
  ".else\n"                                        \
  "sra %[" #S "], %[" #S "], %[bw]\n"              \
  ".endif\n"                                       \
  "cv.clipur %[" #S "], %[" #S "], %[ba]\n"        \
  ".else\n"                                        \
  ".if %[bias]\n"                                  \
  "add %[" #S "], %[" #S "], %[x2]\n"              \
  ".endif\n"                                       \
  ".if %[bn]\n"                                    \
  "mul %[" #S "], %[" #S "], %[x0]\n"              \
  "add %[" #S "], %[" #S "], %[x1]\n"              \
  ".endif\n"                                       \
  "cv.clipur %[" #S "], %[" #S "], %[ba]\n"        \
  ".if %[kind] == 1\n"                             \
  "mul %[" #S "], %[" #S "], %[ps]\n"              \
  ".endif\n"                                       \
  ".if %[kind] == 2\n"                             \
  "mulhu %[" #S "], %[" #S "], %[ps]\n"            \
  ".endif\n"                                       \
  "srl %[" #S "], %[" #S "], %[bw]\n"              \
  ".if %[clip]\n"                                  \
  "cv.clipur %[" #S "], %[" #S "], %[k]\n"         \
  ".endif\n"                                       \
  ".endif\n"
/// Channel F of the fused block: its parameters by post-increment loads (bias through x3,
/// kappa through y0, lambda through y1, which end at the next block's; loaded in this order, so
/// that the first output's first use is not the instruction after its load), then its 4
/// pixels' accumulators.
#define CTILE_COREV_QCH(S0, S1, S2, S3)            \
  ".if %[bias]\n"                                  \
  "cv.lw %[x2], (%[x3]), 4\n"                      \
  ".endif\n"                                       \
  ".if %[bn]\n"                                    \
  "cv.lw %[x0], (%[y0]), 4\n"                      \
  "cv.lw %[x1], (%[y1]), 4\n"                      \
  ".endif\n"                                       \
  CTILE_COREV_QOUT(S0) CTILE_COREV_QOUT(S1) CTILE_COREV_QOUT(S2) CTILE_COREV_QOUT(S3)
/// Four outputs as one word (a pixel's 4 channels, channel f in S_f; channel-major, a
/// channel's 4 pixels): bytes 0, 1 by cv.packlo.b, bytes 2, 3 by cv.packhi.b (each keeps the
/// other half of its destination), then a post-increment word store (a misaligned one, when
/// the offset or step is not a multiple of 4, is split by the core).
#define CTILE_COREV_QPIX(S0, S1, S2, S3, STEP)     \
  "cv.packlo.b %[" #S0 "], %[" #S1 "], %[" #S0 "]\n" \
  "cv.packhi.b %[" #S0 "], %[" #S3 "], %[" #S2 "]\n" \
  "cv.sw %[" #S0 "], (%[a]), %[" #STEP "]\n"
// clang-format on

/// The blocks of one group of 4 pixels (pointwise, or any conv with a single kernel row read
/// in place), requantized and stored: `r.blocks` >= 1 times 4 filters (from r.w, the next
/// block's 4 k bytes on) against the 4 pixels from r.a (steps r.ps, r.k, r.ba, r.bw as in
/// quad_steps, r.words >= 2), in an outer hardware loop (loop 1) of one block per iteration.
/// A block: the first word peeled with cv.dotusp.b (nothing is zeroed), the other words - 1
/// a hardware loop (loop 0) of 24 instructions for 64 MACs, then the requantization from the
/// loop's registers: per output 2 to 7 instructions (kind 0: bias add, kappa mul, cv.addNr of
/// lambda with the shift, cv.clipur; kinds 1, 2: bias add, kappa mul + lambda add, cv.clipur,
/// mul / mulhu, srl, cv.clipur), per channel 0 to 3 parameter loads, selected with .if at
/// compile time; then per pixel its 4 channels packed into one word and stored (cv.packlo.b,
/// cv.packhi.b, cv.sw; `CM`, a channel-major output: per channel its 4 pixels). The MAC loop takes
/// every allocatable register (16 sums, 6 data words, 2 pointers, 4 steps), so every operand lives
/// in `r` (stack operands, no register): read per block, and the weight, output and parameter
/// pointers written back for the next block. 28 registers: optimized builds only, without a frame
/// pointer (atoms::mm4x4_blocks falls back otherwise).
template <int Kind, bool Clip, bool Bias, bool BN, bool CM = false>
[[gnu::always_inline]] inline void mm4x4_run(quad_run& r) {
  static_assert(Kind != 0 || !Clip,
                "mm4x4_run: kind 0 (shift only) folds the final clip into its one cv.clipur, so "
                "it has no variant with a separate final clip.");
  constexpr int bias = Bias ? 1 : 0, bn = BN ? 1 : 0, clip = Clip ? 1 : 0;
  constexpr int per_out = Kind == 0 ? (BN ? 3 + bias : 2) : bias + 2 * bn + 3 + clip;
  // Loop 1 body: 6 loads, the peeled word (24 + count load + cv.setup), loop 0 (24), the
  // weight pointer update and the requantization constants, the 4 channels, the parameter
  // pointers written back, the 4 packed stores (3 loads, 4 x 3, the output pointer written).
  constexpr int body = 6 + 26 + 24 + (4 + 2 + (Kind > 0 ? 1 : 0) + clip + 2 * bn + bias) +
                       4 * (bias + 2 * bn) + 16 * per_out + (2 * bn + bias) + 16;
  std::int32_t s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12, s13, s14, s15;
  std::uint32_t x0, x1, x2, x3, y0, y1, ra, rw, ps, k, ba, bw;
  // Loop 0 body: 24 instructions, the end 4 + 24 * 4 bytes after its cv.setup: uimm 25.
  __asm__ volatile(
      // clang-format off
      "lw %[y0], %[mnb]\n"
      ".balign 4\n"
      ".option push\n"
      ".option norvc\n"
      ".insn i 0x2B, 4, x15, %[y0], %[end1]\n"
      "0:\n"
      "lw %[a], %[ma]\n"
      "lw %[w], %[mw]\n"
      "lw %[ps], %[mps]\n"
      "lw %[k], %[mk]\n"
      "lw %[ba], %[mba]\n"
      "lw %[bw], %[mbw]\n"
      CTILE_COREV_4X4_A(cv.dotusp.b)
      "lw %[y0], %[mn1]\n"
      CTILE_COREV_4X4_B(cv.dotusp.b)
      ".insn i 0x2B, 4, x14, %[y0], 25\n"
      CTILE_COREV_4X4_A(cv.sdotusp.b)
      CTILE_COREV_4X4_B(cv.sdotusp.b)
      // w is at filter 1 of this block: the next block's is 3 k on.
      "add %[w], %[w], %[k]\n"
      "add %[w], %[w], %[k]\n"
      "add %[w], %[w], %[k]\n"
      ".if %[bias]\n"
      "lw %[x3], %[mbp]\n"
      ".endif\n"
      ".if %[bn]\n"
      "lw %[y0], %[mkp]\n"
      "lw %[y1], %[mlp]\n"
      ".endif\n"
      "lw %[ba], %[mthi]\n"
      "lw %[bw], %[msh]\n"
      "sw %[w], %[mw]\n"
      ".if %[kind] > 0\n"
      "lw %[ps], %[mmul]\n"
      ".endif\n"
      ".if %[clip]\n"
      "lw %[k], %[mhi]\n"
      ".endif\n"
      CTILE_COREV_QCH(s0, s1, s2, s3)
      CTILE_COREV_QCH(s4, s5, s6, s7)
      CTILE_COREV_QCH(s8, s9, s10, s11)
      CTILE_COREV_QCH(s12, s13, s14, s15)
      ".if %[bias]\n"
      "sw %[x3], %[mbp]\n"
      ".endif\n"
      ".if %[bn]\n"
      "sw %[y0], %[mkp]\n"
      "sw %[y1], %[mlp]\n"
      ".endif\n"
      "lw %[a], %[mo]\n"
      "lw %[w], %[moc]\n"
      "lw %[x0], %[mob]\n"
      ".if %[cm]\n"
      CTILE_COREV_QPIX(s0, s1, s2, s3, w)
      CTILE_COREV_QPIX(s4, s5, s6, s7, w)
      CTILE_COREV_QPIX(s8, s9, s10, s11, w)
      CTILE_COREV_QPIX(s12, s13, s14, s15, x0)
      ".else\n"
      CTILE_COREV_QPIX(s0, s4, s8, s12, w)
      CTILE_COREV_QPIX(s1, s5, s9, s13, w)
      CTILE_COREV_QPIX(s2, s6, s10, s14, w)
      CTILE_COREV_QPIX(s3, s7, s11, s15, x0)
      ".endif\n"
      "sw %[a], %[mo]\n"
      "2:\n"
      ".if (2b - 0b) != 4 * %[body]\n"
      ".error \"mm4x4_run: the loop 1 body is not the length its cv.setup assumes\"\n"
      ".endif\n"
      ".option pop\n"
      // clang-format on
      : [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3), [s4] "=&r"(s4),
        [s5] "=&r"(s5), [s6] "=&r"(s6), [s7] "=&r"(s7), [s8] "=&r"(s8), [s9] "=&r"(s9),
        [s10] "=&r"(s10), [s11] "=&r"(s11), [s12] "=&r"(s12), [s13] "=&r"(s13),
        [s14] "=&r"(s14), [s15] "=&r"(s15), [a] "=&r"(ra), [w] "=&r"(rw), [x0] "=&r"(x0),
        [x1] "=&r"(x1), [x2] "=&r"(x2), [x3] "=&r"(x3), [y0] "=&r"(y0), [y1] "=&r"(y1),
        [ps] "=&r"(ps), [k] "=&r"(k), [ba] "=&r"(ba), [bw] "=&r"(bw), [mw] "+m"(r.w),
        [mo] "+m"(r.o), [mbp] "+m"(r.bias), [mkp] "+m"(r.kappa), [mlp] "+m"(r.lambda)
      : [ma] "m"(r.a), [mps] "m"(r.ps), [mk] "m"(r.k), [mba] "m"(r.ba), [mbw] "m"(r.bw),
        [mn1] "m"(r.words_minus_1), [mnb] "m"(r.blocks), [mthi] "m"(r.t_hi), [mmul] "m"(r.mul),
        [msh] "m"(r.shift), [mhi] "m"(r.hi), [moc] "m"(r.oc), [mob] "m"(r.ob),
        [kind] "i"(Kind), [clip] "i"(clip), [bias] "i"(bias), [bn] "i"(bn), [cm] "i"(CM ? 1 : 0),
        [body] "i"(body),
        [end1] "i"(body + 1)
      : "memory");
}

/// Pointers and steps of dw3_roll_chans.
struct dw3_chans {
  const std::uint8_t* p;  ///< first row of the first rolled output, first channel
  std::uint8_t* o;        ///< its output
  const std::int8_t* w;   ///< the first channel's 3x3 filter
  const std::int32_t *bias, *kappa, *lambda;
  int channels, n3;
  long wi, os;
  long pch;  ///< input: from the end of a channel's column to the next channel's
  long och;  ///< output: likewise
};

/// One interior column (every row inside, the unshifted filter) of a 3x3 depthwise filter
/// at stride 1 over `channels` >= 1 consecutive channels, each `n3` >= 1 times 3 outputs: an
/// outer hardware loop (loop 1) per channel loads the filter rows (three post-increment word
/// loads, the fourth lane cleared by a shift pair), the bias (and kappa, lambda), the column's
/// first two rows, runs loop 0 (dw3_roll's body) and moves to the next channel's plane and
/// output: 15 instructions per channel (17 with batch-norm) besides the outputs. The filters
/// are read as words: the caller keeps the last channel of the tile out (its last word would
/// end past the weights).
template <int Kind, bool Clip, bool BN, bool Bias>
[[gnu::always_inline]] inline void dw3_roll_chans(const dw3_chans& c, const dw_quant& q) {
  constexpr int body0 = 3 * dw_per<Kind, Clip, BN>;
  constexpr int head = 3 + (Bias ? 1 : 0) + (BN ? 2 : 0) + 6 + 2 + 1;
  const std::uint8_t* p = c.p;
  std::uint8_t* o = c.o;
  const std::int8_t* w = c.w;
  const std::int32_t* bp = Bias ? c.bias : nullptr;
  const std::int32_t* kp = BN ? c.kappa : nullptr;
  const std::int32_t* lp = BN ? c.lambda : nullptr;
  std::uint32_t r0, r1, r2, acc, f0, f1, f2, kf, lf;
  std::int32_t b;
  __asm__ volatile(
      // clang-format off
      ".if (%[cfg] & 16) == 0\n"
      "li %[b], 0\n"
      ".endif\n"
      ".balign 4\n"
      ".option push\n"
      ".option norvc\n"
      CTILE_HW_LOOP1("%[nch]", "%[body1]")
      CTILE_HW_LW(f0, w, 3)
      CTILE_HW_LW(f1, w, 3)
      CTILE_HW_LW(f2, w, 3)
      ".if (%[cfg] & 16) != 0\n"
      CTILE_HW_LW(b, bp, 4)
      ".endif\n"
      ".if (%[cfg] & 8) != 0\n"
      CTILE_HW_LW(kf, kp, 4)
      CTILE_HW_LW(lf, lp, 4)
      ".endif\n"
      "slli %[f0], %[f0], 8\n"
      "slli %[f1], %[f1], 8\n"
      "slli %[f2], %[f2], 8\n"
      "srli %[f0], %[f0], 8\n"
      "srli %[f1], %[f1], 8\n"
      "srli %[f2], %[f2], 8\n"
      CTILE_HW_LWR(r0, p, wi)
      CTILE_HW_LWR(r1, p, wi)
      CTILE_HW_LOOP0("%[n3]", "%[body0]")
      CTILE_HW_DW3_BODY
      "add %[p], %[p], %[pch]\n"
      "add %[o], %[o], %[och]\n"
      ".option pop\n"
      // clang-format on
      : [p] "+r"(p), [o] "+r"(o), [w] "+r"(w), [bp] "+r"(bp), [kp] "+r"(kp), [lp] "+r"(lp),
        [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2), [acc] "=&r"(acc), [f0] "=&r"(f0),
        [f1] "=&r"(f1), [f2] "=&r"(f2), [b] "=&r"(b), [kf] "=&r"(kf), [lf] "=&r"(lf)
      : [nch] "r"(c.channels), [n3] "r"(c.n3), [wi] "r"(c.wi), [os] "r"(c.os), [pch] "r"(c.pch),
        [och] "r"(c.och), [thi] "r"(q.t_hi), [mul] "r"(q.mul), [sh] "r"(q.shift), [hi] "r"(q.hi),
        [body0] "i"(body0), [body1] "i"(head + body0 + 2), [cfg] "i"(dw_cfg<Kind, Clip, BN, Bias>)
      : "memory");
}

}  // namespace ctile::kernels::arch::corev

#undef CTILE_HW_LW
#undef CTILE_HW_LWR
#undef CTILE_HW_SW
#undef CTILE_HW_SBR
#undef CTILE_HW_SDOTUSP
#undef CTILE_HW_DOTUSP
#undef CTILE_HW_CLIPUR
#undef CTILE_HW_BEQZ
#undef CTILE_HW_LOOP0
#undef CTILE_HW_LOOP1
