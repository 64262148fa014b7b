#!/usr/bin/env python3
"""Checks every XpulpV2 word the kernels' backend emits, field by field, against the PULP v2
encodings of the RI5CY user manual (and GVSoC's PULP v2 instruction tables).

Usage: check_xpulpv2_encoding.py ELF

The ELF is an XpulpV2 build of the test program: tests/cross/xpulpv2_encoding.cpp puts each
instruction spelling of xpulpv2.hpp at a global label xpulpv2_enc_<name>, with rD = a2 (x12),
rs1 = a0 (x10), rs2 = a1 (x11), rs3 = a3 (x13). EXPECTED below is written from the manual, field
by field, not from the emitter. Field positions: opcode [6:0], rd [11:7], funct3 [14:12],
rs1 [19:15], rs2 [24:20], funct7 [31:25] (the SIMD forms: funct6 [31:26], bit 25 free),
I-immediate [31:20] (signed; the hardware-loop uimmL unsigned), S-immediate [31:25] | [11:7],
hardware loops: L = bit 7, bits [11:8] = 0000, lp.setupi's uimmS in [19:15].

Hardware-loop offsets are in half-words (uimm << 1) from the setup instruction, the end being
the last instruction of the body; the offsets the kernels use are checked on their loops by
check_inner_loop_xpulpv2.py and by running them on xpulpv2_iss.py.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corev_iss as base  # noqa: E402

OP, OP_V, CUSTOM0, CUSTOM1, CUSTOM2, HWLOOP = 0b0110011, 0b1010111, 0b0001011, 0b0101011, \
    0b1011011, 0b1111011
A0, A1, A2, A3 = 10, 11, 12, 13

# name: the fields the manual gives for the spelling in xpulpv2_encoding.cpp.
EXPECTED = {
    "sdotusp_b": dict(opcode=OP_V, funct3=0b001, funct6=0b101010, rd=A2, rs1=A0, rs2=A1),
    "sdotsp_b": dict(opcode=OP_V, funct3=0b001, funct6=0b101110, rd=A2, rs1=A0, rs2=A1),
    "dotusp_b": dict(opcode=OP_V, funct3=0b001, funct6=0b100010, rd=A2, rs1=A0, rs2=A1),
    "maxu_b": dict(opcode=OP_V, funct3=0b001, funct6=0b001110, rd=A2, rs1=A0, rs2=A1),
    "packlo_b": dict(opcode=OP_V, funct3=0b001, funct6=0b111000, rd=A2, rs1=A0, rs2=A1),
    "packhi_b": dict(opcode=OP_V, funct3=0b001, funct6=0b110110, rd=A2, rs1=A0, rs2=A1),
    "pack_h": dict(opcode=OP_V, funct3=0b000, funct7=0b1101000, rd=A2, rs1=A0, rs2=A1),
    "clip": dict(opcode=OP, funct3=0b001, funct7=0b0001010, rd=A2, rs1=A0, rs2=9),
    "clipu": dict(opcode=OP, funct3=0b010, funct7=0b0001010, rd=A2, rs1=A0, rs2=9),
    "clipr": dict(opcode=OP, funct3=0b101, funct7=0b0001010, rd=A2, rs1=A0, rs2=A1),
    "clipur": dict(opcode=OP, funct3=0b110, funct7=0b0001010, rd=A2, rs1=A0, rs2=A1),
    "min": dict(opcode=OP, funct3=0b100, funct7=0b0000010, rd=A2, rs1=A0, rs2=A1),
    "max": dict(opcode=OP, funct3=0b110, funct7=0b0000010, rd=A2, rs1=A0, rs2=A1),
    "mac": dict(opcode=OP, funct3=0b000, funct7=0b0100001, rd=A2, rs1=A0, rs2=A1),
    "addnr": dict(opcode=CUSTOM2, funct3=0b010, funct7=0b0100000, rd=A2, rs1=A0, rs2=A1),
    "lw_pi": dict(opcode=CUSTOM0, funct3=0b010, rd=A2, rs1=A0, imm_i=4),
    "lw_pi_neg": dict(opcode=CUSTOM0, funct3=0b010, rd=A2, rs1=A0, imm_i=-12),
    "lbu_pi": dict(opcode=CUSTOM0, funct3=0b100, rd=A2, rs1=A0, imm_i=3),
    "lw_pr": dict(opcode=CUSTOM0, funct3=0b111, funct7=0b0010000, rd=A2, rs1=A0, rs2=A1),
    "sw_pi": dict(opcode=CUSTOM1, funct3=0b010, rs1=A0, rs2=A1, imm_s=36),
    "sw_pi_neg": dict(opcode=CUSTOM1, funct3=0b010, rs1=A0, rs2=A1, imm_s=-8),
    "sw_pr": dict(opcode=CUSTOM1, funct3=0b110, funct7=0, rd=A3, rs1=A0, rs2=A1),
    "sb_pr": dict(opcode=CUSTOM1, funct3=0b100, funct7=0, rd=A3, rs1=A0, rs2=A1),
    "lp_setup0": dict(opcode=HWLOOP, funct3=0b100, L=0, hw0=0, rs1=A0, uimm_l=28),
    "lp_setup1": dict(opcode=HWLOOP, funct3=0b100, L=1, hw0=0, rs1=A0, uimm_l=2046),
    "lp_setupi": dict(opcode=HWLOOP, funct3=0b101, L=1, hw0=0, rs1=30, uimm_l=1000),
    "lp_starti": dict(opcode=HWLOOP, funct3=0b000, L=1, hw0=0, rs1=0, uimm_l=6),
    "lp_endi": dict(opcode=HWLOOP, funct3=0b001, L=0, hw0=0, rs1=0, uimm_l=8),
    "lp_count": dict(opcode=HWLOOP, funct3=0b010, L=1, hw0=0, rs1=A0, uimm_l=0),
    "lp_counti": dict(opcode=HWLOOP, funct3=0b011, L=0, hw0=0, rs1=0, uimm_l=4),
}


def fields(w):
    return dict(opcode=w & 0x7F, rd=(w >> 7) & 31, funct3=(w >> 12) & 7, rs1=(w >> 15) & 31,
                rs2=(w >> 20) & 31, funct7=w >> 25, funct6=w >> 26,
                imm_i=base.sx(w >> 20, 12), uimm_l=w >> 20,
                imm_s=base.sx(((w >> 25) << 5) | ((w >> 7) & 31), 12),
                L=(w >> 7) & 1, hw0=(w >> 8) & 15)


def symbols(path):
    """name -> value of every symbol of a 32-bit ELF."""
    data = open(path, "rb").read()
    shoff, = struct.unpack_from("<I", data, 32)
    shentsize, shnum = struct.unpack_from("<HH", data, 46)
    sections = [struct.unpack_from("<IIIIIIIIII", data, shoff + i * shentsize)
                for i in range(shnum)]
    out = {}
    for sec in sections:
        if sec[1] != 2:
            continue
        strtab = sections[sec[6]]
        for off in range(sec[4], sec[4] + sec[5], 16):
            name, value = struct.unpack_from("<II", data, off)
            end = data.index(b"\0", strtab[4] + name)
            out[data[strtab[4] + name:end].decode()] = value
    return out


def main():
    path = sys.argv[1]
    image, _ = base.load_elf(path)
    syms = symbols(path)

    def word(addr):
        for start, data in image:
            if start <= addr and addr + 4 <= start + len(data):
                return int.from_bytes(data[addr - start:addr - start + 4], "little")
        raise RuntimeError(f"{addr:#x} is not in the image")

    bad = 0
    for name, want in EXPECTED.items():
        sym = "xpulpv2_enc_" + name
        if sym not in syms:
            print(f"FAIL: {sym} missing")
            bad += 1
            continue
        w = word(syms[sym])
        got = fields(w)
        wrong = [f"{k}={got[k]:#x} (manual: {v:#x})" for k, v in want.items() if got[k] != v]
        print(f"{name:<10} {w:#010x} {'ok' if not wrong else 'FAIL: ' + ', '.join(wrong)}")
        bad += len(wrong) > 0
    print(f"{len(EXPECTED)} encodings checked, {bad} wrong")
    print("encoding ok" if bad == 0 else "encoding FAIL")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
