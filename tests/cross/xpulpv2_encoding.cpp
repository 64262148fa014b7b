// Every XpulpV2 instruction spelling of kernels/ctile/kernels/arch/xpulpv2.hpp, assembled with
// fixed registers and immediates at a global label each (xpulpv2_enc_<name>), linked into the
// XpulpV2 build of the test program; check_xpulpv2_encoding.py reads each word from the ELF and
// checks it field by field against a table written from the RI5CY manual and GVSoC's PULP v2
// tables. Registers: rD = a2 (x12), rs1 = a0 (x10), rs2 = a1 (x11), rs3 = a3 (x13).
#include <ctile/kernels/arch/xpulpv2.hpp>

// clang-format off
#define CTILE_ENC(NAME, INSN) ".globl xpulpv2_enc_" #NAME "\nxpulpv2_enc_" #NAME ":\n" INSN
__asm__(
    ".text\n"
    ".balign 4\n"
    ".option push\n"
    ".option norvc\n"
    CTILE_ENC(sdotusp_b, CTILE_XPULPV2_SDOTUSP_B("a2", "a0", "a1"))
    CTILE_ENC(sdotsp_b, CTILE_XPULPV2_SDOTSP_B("a2", "a0", "a1"))
    CTILE_ENC(dotusp_b, CTILE_XPULPV2_DOTUSP_B("a2", "a0", "a1"))
    CTILE_ENC(maxu_b, CTILE_XPULPV2_MAXU_B("a2", "a0", "a1"))
    CTILE_ENC(packlo_b, CTILE_XPULPV2_PACKLO_B("a2", "a0", "a1"))
    CTILE_ENC(packhi_b, CTILE_XPULPV2_PACKHI_B("a2", "a0", "a1"))
    CTILE_ENC(pack_h, CTILE_XPULPV2_PACK_H("a2", "a0", "a1"))
    CTILE_ENC(clip, CTILE_XPULPV2_CLIP("a2", "a0", "9"))
    CTILE_ENC(clipu, CTILE_XPULPV2_CLIPU("a2", "a0", "9"))
    CTILE_ENC(clipr, CTILE_XPULPV2_CLIPR("a2", "a0", "a1"))
    CTILE_ENC(clipur, CTILE_XPULPV2_CLIPUR("a2", "a0", "a1"))
    CTILE_ENC(min, CTILE_XPULPV2_MIN("a2", "a0", "a1"))
    CTILE_ENC(max, CTILE_XPULPV2_MAX("a2", "a0", "a1"))
    CTILE_ENC(mac, CTILE_XPULPV2_MAC("a2", "a0", "a1"))
    CTILE_ENC(addnr, CTILE_XPULPV2_ADDNR("a2", "a0", "a1"))
    CTILE_ENC(lw_pi, CTILE_XPULPV2_LW_PI("a2", "a0", "4"))
    CTILE_ENC(lw_pi_neg, CTILE_XPULPV2_LW_PI("a2", "a0", "-12"))
    CTILE_ENC(lbu_pi, CTILE_XPULPV2_LBU_PI("a2", "a0", "3"))
    CTILE_ENC(lw_pr, CTILE_XPULPV2_LW_PR("a2", "a0", "a1"))
    CTILE_ENC(sw_pi, CTILE_XPULPV2_SW_PI("a1", "a0", "36"))
    CTILE_ENC(sw_pi_neg, CTILE_XPULPV2_SW_PI("a1", "a0", "-8"))
    CTILE_ENC(sw_pr, CTILE_XPULPV2_SW_PR("a1", "a0", "a3"))
    CTILE_ENC(sb_pr, CTILE_XPULPV2_SB_PR("a1", "a0", "a3"))
    CTILE_ENC(lp_setup0, CTILE_XPULPV2_LP_SETUP("x0", "a0", "28"))
    CTILE_ENC(lp_setup1, CTILE_XPULPV2_LP_SETUP("x1", "a0", "2046"))
    CTILE_ENC(lp_setupi, CTILE_XPULPV2_LP_SETUPI("x1", "1000", "30"))
    CTILE_ENC(lp_starti, CTILE_XPULPV2_LP_STARTI("x1", "6"))
    CTILE_ENC(lp_endi, CTILE_XPULPV2_LP_ENDI("x0", "8"))
    CTILE_ENC(lp_count, CTILE_XPULPV2_LP_COUNT("x1", "a0"))
    CTILE_ENC(lp_counti, CTILE_XPULPV2_LP_COUNTI("x0", "4"))
    ".option pop\n");
// clang-format on
