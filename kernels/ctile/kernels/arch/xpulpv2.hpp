// PULP v2 (XpulpV2, RI5CY: GAP-8's cluster cores) backend for stock compilers: every custom
// instruction is emitted as an `.insn` word, so that GCC 12 (riscv64-unknown-elf-g++
// -march=rv32imc) and clang-19 (--target=riscv32-unknown-elf -march=rv32imc) both build it.
// Select it with -DCTILE_KERNELS_XPULPV2. The encodings follow the RI5CY user manual and the
// PULP v2 instruction tables of the open GVSoC simulator (a bit pattern per instruction, MSB
// first, `-` = free):
//
//   pv.sdotusp.b rD, rs1, rs2   101010- rs2 rs1 001 rD 1010111   rD += u8(rs1) . s8(rs2)
//   pv.sdotsp.b  rD, rs1, rs2   101110- rs2 rs1 001 rD 1010111   rD += s8(rs1) . s8(rs2)
//   pv.dotusp.b  rD, rs1, rs2   100010- rs2 rs1 001 rD 1010111   rD  = u8(rs1) . s8(rs2)
//   pv.maxu.b    rD, rs1, rs2   001110- rs2 rs1 001 rD 1010111   bytewise unsigned max
//   pv.packlo.b  rD, rs1, rs2   111000- rs2 rs1 001 rD 1010111   rD[15:0] = rs1[7:0] rs2[7:0]
//   pv.packhi.b  rD, rs1, rs2   110110- rs2 rs1 001 rD 1010111   rD[31:16] = rs1[7:0] rs2[7:0]
//   pv.pack.h    rD, rs1, rs2   1101000 rs2 rs1 000 rD 1010111   rD = rs1[15:0] rs2[15:0]
//   p.clip       rD, rs1, Is2   0001010 Is2 rs1 001 rD 0110011   [-2^(Is2-1), 2^(Is2-1) - 1]
//   p.clipu      rD, rs1, Is2   0001010 Is2 rs1 010 rD 0110011   [0, 2^(Is2-1) - 1]
//   p.clipr      rD, rs1, rs2   0001010 rs2 rs1 101 rD 0110011   [-rs2 - 1, rs2]
//   p.clipur     rD, rs1, rs2   0001010 rs2 rs1 110 rD 0110011   [0, rs2]
//   p.min/p.max  rD, rs1, rs2   0000010 rs2 rs1 100/110 rD 0110011   signed
//   p.mac        rD, rs1, rs2   0100001 rs2 rs1 000 rD 0110011   rD += rs1 * rs2
//   p.addNr      rD, rs1, rs2   0100000 rs2 rs1 010 rD 1011011   rD = (rD + rs1) >>> rs2[4:0]
//   p.lw rD, imm(rs1!)          imm[11:0] rs1 010 rD 0001011     (p.lb 000, p.lbu 100, ...)
//   p.lw rD, rs2(rs1!)          0010000 rs2 rs1 111 rD 0001011   rs1 += rs2 after the load
//   p.sw rs2, imm(rs1!)         imm[11:5] rs2 rs1 010 imm[4:0] 0101011   (p.sb 000, p.sh 001)
//   p.sw rs2, rs3(rs1!)         0000000 rs2 rs1 110 rs3 0101011  (p.sb 100, p.sh 101)
//   lp.starti L, uimmL          uimmL rs1=0 000 0000 L 1111011   lpstart[L] = pc + (uimmL << 1)
//   lp.endi   L, uimmL          uimmL 00000 001 0000 L 1111011   lpend[L]   = pc + (uimmL << 1)
//   lp.count  L, rs1            0     rs1   010 0000 L 1111011   lpcount[L] = rs1
//   lp.setup  L, rs1, uimmL     uimmL rs1   100 0000 L 1111011   start pc + 4, end pc + (uimmL <<
//   1),
//                                                                count rs1
//   lp.setupi L, uimmL, uimmS   uimmL uimmS 101 0000 L 1111011   start pc + 4, end pc + (uimmS <<
//   1),
//                                                                count uimmL
//
// Hardware-loop offsets are in HALF-WORDS (uimm << 1), relative to the setup instruction's own
// address, and the end is INCLUSIVE: lpend is the address of the LAST instruction of the body
// (after it, the count is decremented and the core jumps back to lpstart while it is not 0).
// With a body of B 32-bit instructions right after lp.setup: uimmL = 2 * B. (CORE-V's cv.setup
// counts words and ends after the body: uimm = B + 1. The two must not be mixed.) Bodies here
// are 32-bit instructions only (`.option norvc`), 4-byte aligned, at least 3, no branches; a
// nested loop 1 never ends on loop 0's last instruction.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ctile/kernels/arch/geometry.hpp"
#include "ctile/kernels/arch/portable.hpp"

#if !defined(__riscv) || __riscv_xlen != 32
#error "the XpulpV2 backend (CTILE_KERNELS_XPULPV2) targets RV32 (-march=rv32imc -mabi=ilp32)"
#endif

// clang-format off
// The instructions as assembler text: each takes its operands as strings ("a0", "%[x]"), and
// immediates as text. `.insn r OPC, F3, F7, rd, rs1, rs2`, `.insn i OPC, F3, rd, rs1, imm`,
// `.insn s OPC, F3, rs2, imm(rs1)`.
#define CTILE_XPULPV2_SDOTUSP_B(D, A, B) ".insn r 0x57, 1, 0x54, " D ", " A ", " B "\n"
#define CTILE_XPULPV2_SDOTSP_B(D, A, B)  ".insn r 0x57, 1, 0x5C, " D ", " A ", " B "\n"
#define CTILE_XPULPV2_DOTUSP_B(D, A, B)  ".insn r 0x57, 1, 0x44, " D ", " A ", " B "\n"
#define CTILE_XPULPV2_MAXU_B(D, A, B)    ".insn r 0x57, 1, 0x1C, " D ", " A ", " B "\n"
#define CTILE_XPULPV2_PACKLO_B(D, A, B)  ".insn r 0x57, 1, 0x70, " D ", " A ", " B "\n"
#define CTILE_XPULPV2_PACKHI_B(D, A, B)  ".insn r 0x57, 1, 0x6C, " D ", " A ", " B "\n"
#define CTILE_XPULPV2_PACK_H(D, A, B)    ".insn r 0x57, 0, 0x68, " D ", " A ", " B "\n"
#define CTILE_XPULPV2_CLIP(D, A, BITS)   ".insn r 0x33, 1, 0x0A, " D ", " A ", x" BITS "\n"
#define CTILE_XPULPV2_CLIPU(D, A, BITS)  ".insn r 0x33, 2, 0x0A, " D ", " A ", x" BITS "\n"
#define CTILE_XPULPV2_CLIPR(D, A, B)     ".insn r 0x33, 5, 0x0A, " D ", " A ", " B "\n"
#define CTILE_XPULPV2_CLIPUR(D, A, B)    ".insn r 0x33, 6, 0x0A, " D ", " A ", " B "\n"
#define CTILE_XPULPV2_MIN(D, A, B)       ".insn r 0x33, 4, 0x02, " D ", " A ", " B "\n"
#define CTILE_XPULPV2_MAX(D, A, B)       ".insn r 0x33, 6, 0x02, " D ", " A ", " B "\n"
#define CTILE_XPULPV2_MAC(D, A, B)       ".insn r 0x33, 0, 0x21, " D ", " A ", " B "\n"
#define CTILE_XPULPV2_ADDNR(D, A, B)     ".insn r 0x5B, 2, 0x20, " D ", " A ", " B "\n"
/// Post-increment loads: p.lw rD, IMM(rs1!) and p.lw rD, rs2(rs1!).
#define CTILE_XPULPV2_LW_PI(D, A, IMM)   ".insn i 0x0B, 2, " D ", " A ", " IMM "\n"
#define CTILE_XPULPV2_LBU_PI(D, A, IMM)  ".insn i 0x0B, 4, " D ", " A ", " IMM "\n"
#define CTILE_XPULPV2_LW_PR(D, A, B)     ".insn r 0x0B, 7, 0x10, " D ", " A ", " B "\n"
/// Post-increment stores: p.sw rs2, IMM(rs1!) and p.sw / p.sb rs2, rs3(rs1!) (rs3 in rd's field).
#define CTILE_XPULPV2_SW_PI(S, A, IMM)   ".insn s 0x2B, 2, " S ", " IMM "(" A ")\n"
#define CTILE_XPULPV2_SW_PR(S, A, R)     ".insn r 0x2B, 6, 0x00, " R ", " A ", " S "\n"
#define CTILE_XPULPV2_SB_PR(S, A, R)     ".insn r 0x2B, 4, 0x00, " R ", " A ", " S "\n"
/// Hardware loops: L is "x0" (loop 0) or "x1" (loop 1) in the rd field; UIMM in half-words.
#define CTILE_XPULPV2_LP_SETUP(L, N, UIMM)      ".insn i 0x7B, 4, " L ", " N ", " UIMM "\n"
#define CTILE_XPULPV2_LP_SETUPI(L, COUNT, UIMMS) ".insn i 0x7B, 5, " L ", x" UIMMS ", " COUNT "\n"
#define CTILE_XPULPV2_LP_STARTI(L, UIMM)        ".insn i 0x7B, 0, " L ", x0, " UIMM "\n"
#define CTILE_XPULPV2_LP_ENDI(L, UIMM)          ".insn i 0x7B, 1, " L ", x0, " UIMM "\n"
#define CTILE_XPULPV2_LP_COUNT(L, N)            ".insn i 0x7B, 2, " L ", " N ", 0\n"
#define CTILE_XPULPV2_LP_COUNTI(L, COUNT)       ".insn i 0x7B, 3, " L ", x0, " COUNT "\n"
// clang-format on

namespace ctile::kernels::arch::xpulpv2 {

inline constexpr const char* name = "xpulpv2";

using portable::sbyte;
using portable::ubyte;

inline std::int32_t sdotusp4(std::uint32_t a, std::uint32_t b, std::int32_t acc) {
  __asm__(CTILE_XPULPV2_SDOTUSP_B("%0", "%1", "%2") : "+r"(acc) : "r"(a), "r"(b));
  return acc;
}
inline std::int32_t sdotsp4(std::uint32_t a, std::uint32_t b, std::int32_t acc) {
  __asm__(CTILE_XPULPV2_SDOTSP_B("%0", "%1", "%2") : "+r"(acc) : "r"(a), "r"(b));
  return acc;
}
/// u8(a) . s8(b) without accumulator (pv.dotusp.b).
inline std::int32_t dotusp4(std::uint32_t a, std::uint32_t b) {
  std::int32_t r;
  __asm__(CTILE_XPULPV2_DOTUSP_B("%0", "%1", "%2") : "=r"(r) : "r"(a), "r"(b));
  return r;
}
inline std::uint32_t maxu4(std::uint32_t a, std::uint32_t b) {
  std::uint32_t r;
  __asm__(CTILE_XPULPV2_MAXU_B("%0", "%1", "%2") : "=r"(r) : "r"(a), "r"(b));
  return r;
}
/// portable::clipu_r: [0, hi] (p.clipur).
inline std::int32_t clipu_r(std::int32_t x, std::int32_t hi) {
  std::int32_t r;
  __asm__(CTILE_XPULPV2_CLIPUR("%0", "%1", "%2") : "=r"(r) : "r"(x), "r"(hi));
  return r;
}
/// portable::clipu_bits: [0, 2^p - 1] (the GAP SDK's __CLIPU(x, p)), with a run-time `p`
/// through p.clipur.
inline std::int32_t clipu_bits(std::int32_t x, int p) {
  return clipu_r(x, static_cast<std::int32_t>((std::uint32_t{1} << p) - 1u));
}
/// portable::clipu_bits(x, P) with the immediate form: p.clipu's bound is 2^(Is2-1) - 1, so it
/// is encoded with Is2 = P + 1 (P in 0..30).
template <int P>
inline std::int32_t clipu_bits_i(std::int32_t x) {
  static_assert(P >= 0 && P <= 30, "p.clipu takes an immediate of 1..31 (P = 0..30)");
  std::int32_t r;
  __asm__(CTILE_XPULPV2_CLIPU("%0", "%1", "%2") : "=r"(r) : "r"(x), "i"(P + 1));
  return r;
}
/// Signed clip to [-2^(Bits-1), 2^(Bits-1) - 1] (p.clip rD, rs1, Bits), Bits in 1..31.
template <int Bits>
inline std::int32_t clip_i(std::int32_t x) {
  static_assert(Bits >= 1 && Bits <= 31, "p.clip takes 1..31 bits");
  std::int32_t r;
  __asm__(CTILE_XPULPV2_CLIP("%0", "%1", "%2") : "=r"(r) : "r"(x), "i"(Bits));
  return r;
}
/// Signed clip to [-hi - 1, hi] (p.clipr).
inline std::int32_t clip_r(std::int32_t x, std::int32_t hi) {
  std::int32_t r;
  __asm__(CTILE_XPULPV2_CLIPR("%0", "%1", "%2") : "=r"(r) : "r"(x), "r"(hi));
  return r;
}
inline std::int32_t max(std::int32_t a, std::int32_t b) {
  std::int32_t r;
  __asm__(CTILE_XPULPV2_MAX("%0", "%1", "%2") : "=r"(r) : "r"(a), "r"(b));
  return r;
}
inline std::int32_t min(std::int32_t a, std::int32_t b) {
  std::int32_t r;
  __asm__(CTILE_XPULPV2_MIN("%0", "%1", "%2") : "=r"(r) : "r"(a), "r"(b));
  return r;
}
/// acc + a * b, wrapping (p.mac).
inline std::int32_t mac(std::int32_t acc, std::int32_t a, std::int32_t b) {
  __asm__(CTILE_XPULPV2_MAC("%0", "%1", "%2") : "+r"(acc) : "r"(a), "r"(b));
  return acc;
}
/// portable::pack4 in two instructions: pv.packlo.b (bytes 0, 1), then pv.packhi.b (2, 3).
inline std::uint32_t pack4(std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d) {
  std::uint32_t r;
  __asm__(CTILE_XPULPV2_PACKLO_B("%0", "%1", "%2") CTILE_XPULPV2_PACKHI_B("%0", "%3", "%4")
          : "=&r"(r)
          : "r"(b), "r"(a), "r"(d), "r"(c));
  return r;
}
/// hi[15:0] << 16 | lo[15:0] (pv.pack.h).
inline std::uint32_t pack2(std::uint32_t lo, std::uint32_t hi) {
  std::uint32_t r;
  __asm__(CTILE_XPULPV2_PACK_H("%0", "%1", "%2") : "=r"(r) : "r"(hi), "r"(lo));
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

// The instructions the loops shared with the CORE-V backend need (hwloop_kernels.inc), as
// PULP v2 words. lp.setup's immediate counts half-words from the set-up to the body's last
// instruction (2 x the body's length).
// clang-format off
#define CTILE_HW_LW(D, A, I) CTILE_XPULPV2_LW_PI(CTILE_HW_(D), CTILE_HW_(A), #I)
#define CTILE_HW_LWR(D, A, R) CTILE_XPULPV2_LW_PR(CTILE_HW_(D), CTILE_HW_(A), CTILE_HW_(R))
#define CTILE_HW_SW(S, A, I) CTILE_XPULPV2_SW_PI(CTILE_HW_(S), CTILE_HW_(A), #I)
#define CTILE_HW_SBR(S, A, R) CTILE_XPULPV2_SB_PR(CTILE_HW_(S), CTILE_HW_(A), CTILE_HW_(R))
#define CTILE_HW_SDOTUSP(D, A, B) CTILE_XPULPV2_SDOTUSP_B(D, A, B)
#define CTILE_HW_DOTUSP(D, A, B) CTILE_XPULPV2_DOTUSP_B(D, A, B)
#define CTILE_HW_CLIPUR(D, A, B) CTILE_XPULPV2_CLIPUR(D, A, B)
#define CTILE_HW_BEQZ(R, L) "beqz " R ", " L "\n"
#define CTILE_HW_LOOP0(N, B) CTILE_XPULPV2_LP_SETUP("x0", N, "2 * (" B ")")
#define CTILE_HW_LOOP1(N, B) CTILE_XPULPV2_LP_SETUP("x1", N, "2 * (" B ")")
// clang-format on

#include "ctile/kernels/arch/hwloop_kernels.inc"

/// The 4x2 inner loop: 4 filter rows w0..w3 against 2 pixel columns a0, a1, over `words`
/// 4-byte groups (words >= 1), adding into acc[0..7] (acc[2 * f + p] = filter f, pixel p).
/// One iteration: 6 post-increment loads + 8 pv.sdotusp.b for 32 MACs, in a hardware loop. The
/// sums are read and written by the statement itself (GCC allows at most 30 asm operands).
inline void mm4x2(const std::uint8_t* a0, const std::uint8_t* a1, const std::int8_t* w0,
                  const std::int8_t* w1, const std::int8_t* w2, const std::int8_t* w3, int words,
                  std::int32_t* acc) {
  std::int32_t s0, s1, s2, s3, s4, s5, s6, s7;
  std::uint32_t x0, x1, y0, y1;
  // Body of 14 instructions: the last one 14 * 4 bytes after lp.setup, uimmL = 28.
  __asm__ volatile(
      // clang-format off
      "lw %[s0], 0(%[acc])\n"
      "lw %[s1], 4(%[acc])\n"
      "lw %[s2], 8(%[acc])\n"
      "lw %[s3], 12(%[acc])\n"
      "lw %[s4], 16(%[acc])\n"
      "lw %[s5], 20(%[acc])\n"
      "lw %[s6], 24(%[acc])\n"
      "lw %[s7], 28(%[acc])\n"
      ".balign 4\n"
      ".option push\n"
      ".option norvc\n"
      CTILE_XPULPV2_LP_SETUP("x0", "%[n]", "28")
      CTILE_HW_4X2(CTILE_HW_SDOTUSP)
      ".option pop\n"
      "sw %[s0], 0(%[acc])\n"
      "sw %[s1], 4(%[acc])\n"
      "sw %[s2], 8(%[acc])\n"
      "sw %[s3], 12(%[acc])\n"
      "sw %[s4], 16(%[acc])\n"
      "sw %[s5], 20(%[acc])\n"
      "sw %[s6], 24(%[acc])\n"
      "sw %[s7], 28(%[acc])\n"
      // clang-format on
      : [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3), [s4] "=&r"(s4),
        [s5] "=&r"(s5), [s6] "=&r"(s6), [s7] "=&r"(s7), [a0] "+r"(a0), [a1] "+r"(a1), [w0] "+r"(w0),
        [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3), [x0] "=&r"(x0), [x1] "=&r"(x1), [y0] "=&r"(y0),
        [y1] "=&r"(y1)
      : [n] "r"(words), [acc] "r"(acc)
      : "memory");
}

// clang-format off
// The fused 4x4 run (mm4x4_run) takes all 28 allocatable registers; GCC allows at most 30 asm
// operands, so its registers are named here and clobbered, and the run's state is read from
// `quad_run` through a pointer kept on the stack. Sums s0..s15, pixel words x0..x3, filter words
// y0, y1, the walking pointers a, w, the steps ps, k, ba, bw (bw is a0, which brings the pointer).
#define CTILE_XQ_s0 "t0"
#define CTILE_XQ_s1 "t1"
#define CTILE_XQ_s2 "t2"
#define CTILE_XQ_s3 "s0"
#define CTILE_XQ_s4 "s1"
#define CTILE_XQ_s5 "a1"
#define CTILE_XQ_s6 "a2"
#define CTILE_XQ_s7 "a3"
#define CTILE_XQ_s8 "a4"
#define CTILE_XQ_s9 "a5"
#define CTILE_XQ_s10 "a6"
#define CTILE_XQ_s11 "a7"
#define CTILE_XQ_s12 "s2"
#define CTILE_XQ_s13 "s3"
#define CTILE_XQ_s14 "s4"
#define CTILE_XQ_s15 "s5"
#define CTILE_XQ_x0 "s6"
#define CTILE_XQ_x1 "s7"
#define CTILE_XQ_x2 "s8"
#define CTILE_XQ_x3 "s9"
#define CTILE_XQ_y0 "s10"
#define CTILE_XQ_y1 "s11"
#define CTILE_XQ_a "t3"
#define CTILE_XQ_w "t4"
#define CTILE_XQ_ps "t5"
#define CTILE_XQ_k "t6"
#define CTILE_XQ_ba "ra"
#define CTILE_XQ_bw "a0"
#define CTILE_XQ(x) CTILE_XQ_##x
#define CTILE_XQ3(OP, D, A, B) OP " " CTILE_XQ(D) ", " CTILE_XQ(A) ", " CTILE_XQ(B) "\n"
/// A field of quad_run at OFF from the pointer in register P.
#define CTILE_XQ_LD(D, OFF, P) "lw " CTILE_XQ(D) ", " #OFF "(" CTILE_XQ(P) ")\n"
#define CTILE_XQ_ST(S, OFF, P) "sw " CTILE_XQ(S) ", " #OFF "(" CTILE_XQ(P) ")\n"
#define CTILE_XQ_PTR(D) "lw " CTILE_XQ(D) ", 0(sp)\n"
#define CTILE_XQ_LWR(D, A, R) CTILE_XPULPV2_LW_PR(CTILE_XQ(D), CTILE_XQ(A), CTILE_XQ(R))
#define CTILE_XQ_DOT(DOT, S, X, Y) DOT(CTILE_XQ(S), CTILE_XQ(X), CTILE_XQ(Y))
/// 4 filters x 4 pixels, one word each (see corev's CTILE_COREV_4X4_A / _B).
#define CTILE_XQ_4X4_A(DOT)         \
  CTILE_XQ_LWR(x0, a, ps)           \
  CTILE_XQ_LWR(x1, a, ps)           \
  CTILE_XQ_LWR(x2, a, ps)           \
  CTILE_XQ_LWR(x3, a, ba)           \
  CTILE_XQ_LWR(y0, w, k)            \
  CTILE_XQ_LWR(y1, w, k)            \
  CTILE_XQ_DOT(DOT, s0, x0, y0)     \
  CTILE_XQ_DOT(DOT, s1, x1, y0)     \
  CTILE_XQ_DOT(DOT, s2, x2, y0)     \
  CTILE_XQ_DOT(DOT, s3, x3, y0)     \
  CTILE_XQ_LWR(y0, w, k)            \
  CTILE_XQ_DOT(DOT, s4, x0, y1)     \
  CTILE_XQ_DOT(DOT, s5, x1, y1)     \
  CTILE_XQ_DOT(DOT, s6, x2, y1)     \
  CTILE_XQ_DOT(DOT, s7, x3, y1)     \
  CTILE_XQ_LWR(y1, w, bw)           \
  CTILE_XQ_DOT(DOT, s8, x0, y0)     \
  CTILE_XQ_DOT(DOT, s9, x1, y0)     \
  CTILE_XQ_DOT(DOT, s10, x2, y0)    \
  CTILE_XQ_DOT(DOT, s11, x3, y0)
#define CTILE_XQ_4X4_B(DOT)         \
  CTILE_XQ_DOT(DOT, s12, x0, y1)    \
  CTILE_XQ_DOT(DOT, s13, x1, y1)    \
  CTILE_XQ_DOT(DOT, s14, x2, y1)    \
  CTILE_XQ_DOT(DOT, s15, x3, y1)
/// Requantization of one sum S in place (see corev's CTILE_COREV_QOUT); `cfg` = kind | clip << 2
/// | bn << 3 | bias << 4 | cm << 5.
#define CTILE_XQ_QOUT(S)                                              \
  ".if (%[cfg] & 3) == 0\n"                                           \
  ".if (%[cfg] & 8) != 0\n"                                           \
  ".if (%[cfg] & 16) != 0\n"                                          \
  CTILE_XQ3("add", S, S, x2)                                          \
  ".endif\n"                                                          \
  CTILE_XQ3("mul", S, S, x0)                                          \
  CTILE_XPULPV2_ADDNR(CTILE_XQ(S), CTILE_XQ(x1), CTILE_XQ(bw))        \
  ".elseif (%[cfg] & 16) != 0\n"                                      \
  CTILE_XPULPV2_ADDNR(CTILE_XQ(S), CTILE_XQ(x2), CTILE_XQ(bw))        \
  ".else\n"                                                           \
  CTILE_XQ3("sra", S, S, bw)                                          \
  ".endif\n"                                                          \
  CTILE_XPULPV2_CLIPUR(CTILE_XQ(S), CTILE_XQ(S), CTILE_XQ(ba))        \
  ".else\n"                                                           \
  ".if (%[cfg] & 16) != 0\n"                                          \
  CTILE_XQ3("add", S, S, x2)                                          \
  ".endif\n"                                                          \
  ".if (%[cfg] & 8) != 0\n"                                           \
  CTILE_XQ3("mul", S, S, x0)                                          \
  CTILE_XQ3("add", S, S, x1)                                          \
  ".endif\n"                                                          \
  CTILE_XPULPV2_CLIPUR(CTILE_XQ(S), CTILE_XQ(S), CTILE_XQ(ba))        \
  ".if (%[cfg] & 3) == 1\n"                                           \
  CTILE_XQ3("mul", S, S, ps)                                          \
  ".endif\n"                                                          \
  ".if (%[cfg] & 3) == 2\n"                                           \
  CTILE_XQ3("mulhu", S, S, ps)                                        \
  ".endif\n"                                                          \
  CTILE_XQ3("srl", S, S, bw)                                          \
  ".if (%[cfg] & 4) != 0\n"                                           \
  CTILE_XPULPV2_CLIPUR(CTILE_XQ(S), CTILE_XQ(S), CTILE_XQ(k))         \
  ".endif\n"                                                          \
  ".endif\n"
/// Channel F's parameters by post-increment loads (bias through x3, kappa through y0, lambda
/// through y1), then its 4 pixels' sums.
#define CTILE_XQ_QCH(S0, S1, S2, S3)                                  \
  ".if (%[cfg] & 16) != 0\n"                                          \
  CTILE_XPULPV2_LW_PI(CTILE_XQ(x2), CTILE_XQ(x3), "4")                \
  ".endif\n"                                                          \
  ".if (%[cfg] & 8) != 0\n"                                           \
  CTILE_XPULPV2_LW_PI(CTILE_XQ(x0), CTILE_XQ(y0), "4")                \
  CTILE_XPULPV2_LW_PI(CTILE_XQ(x1), CTILE_XQ(y1), "4")                \
  ".endif\n"                                                          \
  CTILE_XQ_QOUT(S0) CTILE_XQ_QOUT(S1) CTILE_XQ_QOUT(S2) CTILE_XQ_QOUT(S3)
/// Four outputs as one word: bytes 0, 1 by pv.packlo.b, 2, 3 by pv.packhi.b, a post-increment
/// word store by STEP.
#define CTILE_XQ_QPIX(S0, S1, S2, S3, STEP)                             \
  CTILE_XPULPV2_PACKLO_B(CTILE_XQ(S0), CTILE_XQ(S1), CTILE_XQ(S0))      \
  CTILE_XPULPV2_PACKHI_B(CTILE_XQ(S0), CTILE_XQ(S3), CTILE_XQ(S2))      \
  CTILE_XPULPV2_SW_PR(CTILE_XQ(S0), CTILE_XQ(a), CTILE_XQ(STEP))
// clang-format on

static_assert(sizeof(void*) != 4 ||
                  (offsetof(quad_run, words_minus_1) == 20 && offsetof(quad_run, oc) == 44 &&
                   offsetof(quad_run, w) == 52 && offsetof(quad_run, lambda) == 68),
              "mm4x4_run reads quad_run at the offsets of RV32");

/// The blocks of one group of 4 pixels, requantized and stored (see corev::mm4x4_run, the same
/// loops): `r.blocks` >= 1 times 4 filters in loop 1, each block's first word peeled with
/// pv.dotusp.b, the other words - 1 in loop 0 (8 p.lw + 16 pv.sdotusp.b for 64 MACs), the
/// requantization from the sums (p.addNr, p.clipur, selected with .if), the packed stores
/// (pv.packlo.b, pv.packhi.b, p.sw with register post-increment). Its 28 registers are named and
/// clobbered (see CTILE_XQ_s0): optimized builds only, without a frame pointer.
template <int Kind, bool Clip, bool Bias, bool BN, bool CM = false>
[[gnu::always_inline]] inline void mm4x4_run(quad_run& r) {
  static_assert(Kind != 0 || !Clip,
                "mm4x4_run: kind 0 (shift only) folds the final clip into its one p.clipur, so "
                "it has no variant with a separate final clip.");
  constexpr int bias = Bias ? 1 : 0, bn = BN ? 1 : 0, clip = Clip ? 1 : 0;
  constexpr int per_out = Kind == 0 ? (BN ? 3 + bias : 2) : bias + 2 * bn + 3 + clip;
  // Loop 1 body: the pointer and 6 loads, the peeled word (24 + pointer + count load +
  // lp.setup), loop 0 (24), the weight pointer update, the pointer and the requantization
  // constants, the 4 channels, the parameter pointers written back, the 3 loads, the 4 packed
  // stores, the pointer and the output pointer written.
  constexpr int body = 7 + 27 + 24 + (4 + 3 + (Kind > 0 ? 1 : 0) + clip + 2 * bn + bias) +
                       4 * (bias + 2 * bn) + 16 * per_out + (2 * bn + bias) + 3 + 12 + 2;
  constexpr int cfg = Kind | clip << 2 | bn << 3 | bias << 4 | (CM ? 32 : 0);
  register quad_run* rp __asm__("a0") = &r;
  __asm__ volatile(
      // clang-format off
      "addi sp, sp, -16\n"
      "sw a0, 0(sp)\n"
      CTILE_XQ_LD(y0, 24, bw)
      ".balign 4\n"
      ".option push\n"
      ".option norvc\n"
      CTILE_XPULPV2_LP_SETUP("x1", CTILE_XQ(y0), "%[end1]")
      "0:\n"
      CTILE_XQ_PTR(bw)
      CTILE_XQ_LD(a, 0, bw)
      CTILE_XQ_LD(ps, 4, bw)
      CTILE_XQ_LD(k, 8, bw)
      CTILE_XQ_LD(ba, 12, bw)
      CTILE_XQ_LD(w, 52, bw)
      CTILE_XQ_LD(bw, 16, bw)
      CTILE_XQ_4X4_A(CTILE_XPULPV2_DOTUSP_B)
      CTILE_XQ_PTR(s12)
      CTILE_XQ_LD(y0, 20, s12)
      CTILE_XQ_4X4_B(CTILE_XPULPV2_DOTUSP_B)
      CTILE_XPULPV2_LP_SETUP("x0", CTILE_XQ(y0), "48")
      CTILE_XQ_4X4_A(CTILE_XPULPV2_SDOTUSP_B)
      CTILE_XQ_4X4_B(CTILE_XPULPV2_SDOTUSP_B)
      // w is at filter 1 of this block: the next block's is 3 k on.
      CTILE_XQ3("add", w, w, k)
      CTILE_XQ3("add", w, w, k)
      CTILE_XQ3("add", w, w, k)
      CTILE_XQ_PTR(a)
      ".if (%[cfg] & 16) != 0\n"
      CTILE_XQ_LD(x3, 60, a)
      ".endif\n"
      ".if (%[cfg] & 8) != 0\n"
      CTILE_XQ_LD(y0, 64, a)
      CTILE_XQ_LD(y1, 68, a)
      ".endif\n"
      CTILE_XQ_LD(ba, 28, a)
      CTILE_XQ_LD(bw, 36, a)
      CTILE_XQ_ST(w, 52, a)
      ".if (%[cfg] & 3) != 0\n"
      CTILE_XQ_LD(ps, 32, a)
      ".endif\n"
      ".if (%[cfg] & 4) != 0\n"
      CTILE_XQ_LD(k, 40, a)
      ".endif\n"
      CTILE_XQ_QCH(s0, s1, s2, s3)
      CTILE_XQ_QCH(s4, s5, s6, s7)
      CTILE_XQ_QCH(s8, s9, s10, s11)
      CTILE_XQ_QCH(s12, s13, s14, s15)
      ".if (%[cfg] & 16) != 0\n"
      CTILE_XQ_ST(x3, 60, a)
      ".endif\n"
      ".if (%[cfg] & 8) != 0\n"
      CTILE_XQ_ST(y0, 64, a)
      CTILE_XQ_ST(y1, 68, a)
      ".endif\n"
      CTILE_XQ_LD(w, 44, a)
      CTILE_XQ_LD(x0, 48, a)
      CTILE_XQ_LD(a, 56, a)
      ".if (%[cfg] & 32) != 0\n"
      CTILE_XQ_QPIX(s0, s1, s2, s3, w)
      CTILE_XQ_QPIX(s4, s5, s6, s7, w)
      CTILE_XQ_QPIX(s8, s9, s10, s11, w)
      CTILE_XQ_QPIX(s12, s13, s14, s15, x0)
      ".else\n"
      CTILE_XQ_QPIX(s0, s4, s8, s12, w)
      CTILE_XQ_QPIX(s1, s5, s9, s13, w)
      CTILE_XQ_QPIX(s2, s6, s10, s14, w)
      CTILE_XQ_QPIX(s3, s7, s11, s15, x0)
      ".endif\n"
      CTILE_XQ_PTR(w)
      CTILE_XQ_ST(a, 56, w)
      "2:\n"
      ".if (2b - 0b) != 4 * %[body]\n"
      ".error \"mm4x4_run: the loop 1 body is not the length its lp.setup assumes\"\n"
      ".endif\n"
      ".option pop\n"
      "addi sp, sp, 16\n"
      // clang-format on
      : "+r"(rp)
      : [cfg] "i"(cfg), [body] "i"(body), [end1] "i"(2 * body)
      : "ra", "t0", "t1", "t2", "s0", "s1", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "s2", "s3",
        "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6", "memory");
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

/// One interior column of a 3x3 depthwise filter at stride 1 over `channels` >= 1 consecutive
/// channels (see corev::dw3_roll_chans): loop 1 per channel loads the filter rows (three
/// post-increment word loads, the fourth lane cleared by a shift pair), the bias (and kappa,
/// lambda), the column's first two rows, runs loop 0 and moves to the next channel. The caller
/// keeps the last channel of the tile out (its last filter word would end past the weights).
template <int Kind, bool Clip, bool BN, bool Bias>
[[gnu::always_inline]] inline void dw3_roll_chans(const dw3_chans& c, const dw_quant& q) {
  static_assert(sizeof(void*) == 4 && offsetof(dw3_chans, lambda) == 20 &&
                    offsetof(dw3_chans, channels) == 24,
                "dw3_roll_chans reads dw3_chans at the offsets of RV32");
  constexpr int per = dw_per<Kind, Clip, BN>;
  constexpr int head = 3 + (Bias ? 1 : 0) + (BN ? 2 : 0) + 6 + 2 + 1;
  const std::uint8_t* p;
  std::uint8_t* o;
  const std::int8_t* w;
  const std::int32_t *bp, *kp, *lp;
  std::uint32_t r0, r1, r2, acc, f0, f1, f2, kf, lf;
  std::int32_t b;
  // The moving pointers are read from `c` by the statement (GCC allows at most 30 operands).
  __asm__ volatile(
      // clang-format off
      "lw %[p], 0(%[c])\n"
      "lw %[o], 4(%[c])\n"
      "lw %[w], 8(%[c])\n"
      ".if (%[cfg] & 16) == 0\n"
      "li %[b], 0\n"
      ".else\n"
      "lw %[bp], 12(%[c])\n"
      ".endif\n"
      ".if (%[cfg] & 8) != 0\n"
      "lw %[kp], 16(%[c])\n"
      "lw %[lp], 20(%[c])\n"
      ".endif\n"
      "lw %[acc], 24(%[c])\n"
      ".balign 4\n"
      ".option push\n"
      ".option norvc\n"
      CTILE_HW_LOOP1("%[acc]", "%[body1]")
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
      : [p] "=&r"(p), [o] "=&r"(o), [w] "=&r"(w), [bp] "=&r"(bp), [kp] "=&r"(kp), [lp] "=&r"(lp),
        [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2), [acc] "=&r"(acc), [f0] "=&r"(f0),
        [f1] "=&r"(f1), [f2] "=&r"(f2), [b] "=&r"(b), [kf] "=&r"(kf), [lf] "=&r"(lf)
      : [c] "r"(&c), [n3] "r"(c.n3), [wi] "r"(c.wi), [os] "r"(c.os), [pch] "r"(c.pch),
        [och] "r"(c.och), [thi] "r"(q.t_hi), [mul] "r"(q.mul), [sh] "r"(q.shift), [hi] "r"(q.hi),
        [body0] "i"(3 * per), [body1] "i"(head + 3 * per + 2),
        [cfg] "i"(dw_cfg<Kind, Clip, BN, Bias>)
      : "memory");
}

}  // namespace ctile::kernels::arch::xpulpv2

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
