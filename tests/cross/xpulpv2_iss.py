#!/usr/bin/env python3
"""The instruction-set simulator of tests/cross/corev_iss.py, decoding PULP v2 (XpulpV2, RI5CY:
GAP-8's cluster cores) instead of CORE-V.

Usage: xpulpv2_iss.py [--profile] ELF

The PULP v2 instructions are decoded from TABLE below, written from the RI5CY user manual and
the PULP v2 instruction tables of the open GVSoC simulator (gvsoc-core, isa_pulpv2.py and
pulp_v2.hpp): one bit pattern per instruction, MSB first, `-` a free bit, in the manual's field
layout (funct7 | rs2 | rs1 | funct3 | rd | opcode). RV32IMC and Zicsr come from corev_iss.py,
whose CORE-V decoding is never reached: every custom opcode (0x0B, 0x2B, 0x57, 0x5B, 0x7B) and
every non-standard OP / LOAD / STORE / BRANCH form is decoded here or rejected.

Hardware loops (lp.*): offsets are half-words from the setup instruction (uimm << 1) and the
end is the address of the LAST instruction of the body; after it the count is decremented
and the core jumps back while the count is not 0; loop 0 is checked first, loop 1 when loop 0
did not jump (GVSoC's hwloop check). The cycle model is corev_iss.py's (1 cycle per
instruction, +1 after a load whose result the next instruction uses, +2 for a taken branch,
+1 for a misaligned access; hardware loops cost nothing).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corev_iss as base  # noqa: E402

MASK = base.MASK
sx = base.sx
s32 = base.s32

# (mnemonic, pattern). Format and meaning follow from the mnemonic (see semantics below).
TABLE = [
    # Post-increment loads and stores, immediate offset: p.lw rD, Imm(rs1!), p.sw rs2, Imm(rs1!)
    ("p.lb.pi", "------- ----- ----- 000 ----- 0001011"),
    ("p.lh.pi", "------- ----- ----- 001 ----- 0001011"),
    ("p.lw.pi", "------- ----- ----- 010 ----- 0001011"),
    ("p.lbu.pi", "------- ----- ----- 100 ----- 0001011"),
    ("p.lhu.pi", "------- ----- ----- 101 ----- 0001011"),
    ("p.sb.pi", "------- ----- ----- 000 ----- 0101011"),
    ("p.sh.pi", "------- ----- ----- 001 ----- 0101011"),
    ("p.sw.pi", "------- ----- ----- 010 ----- 0101011"),
    # Post-increment, register offset: p.lw rD, rs2(rs1!), p.sw rs2, rs3(rs1!) (rs3 in rd)
    ("p.lb.pr", "0000000 ----- ----- 111 ----- 0001011"),
    ("p.lh.pr", "0001000 ----- ----- 111 ----- 0001011"),
    ("p.lw.pr", "0010000 ----- ----- 111 ----- 0001011"),
    ("p.lbu.pr", "0100000 ----- ----- 111 ----- 0001011"),
    ("p.lhu.pr", "0101000 ----- ----- 111 ----- 0001011"),
    ("p.sb.pr", "0000000 ----- ----- 100 ----- 0101011"),
    ("p.sh.pr", "0000000 ----- ----- 101 ----- 0101011"),
    ("p.sw.pr", "0000000 ----- ----- 110 ----- 0101011"),
    # Register-register addressing: p.lw rD, rs2(rs1), p.sw rs2, rs3(rs1)
    ("p.lb.rr", "0000000 ----- ----- 111 ----- 0000011"),
    ("p.lh.rr", "0001000 ----- ----- 111 ----- 0000011"),
    ("p.lw.rr", "0010000 ----- ----- 111 ----- 0000011"),
    ("p.lbu.rr", "0100000 ----- ----- 111 ----- 0000011"),
    ("p.lhu.rr", "0101000 ----- ----- 111 ----- 0000011"),
    ("p.sb.rr", "0000000 ----- ----- 100 ----- 0100011"),
    ("p.sh.rr", "0000000 ----- ----- 101 ----- 0100011"),
    ("p.sw.rr", "0000000 ----- ----- 110 ----- 0100011"),
    # Hardware loops: L in bit 7
    ("lp.starti", "------- ----- ----- 000 0000- 1111011"),
    ("lp.endi", "------- ----- ----- 001 0000- 1111011"),
    ("lp.count", "------- ----- ----- 010 0000- 1111011"),
    ("lp.counti", "------- ----- ----- 011 0000- 1111011"),
    ("lp.setup", "------- ----- ----- 100 0000- 1111011"),
    ("lp.setupi", "------- ----- ----- 101 0000- 1111011"),
    # ALU (OP opcode)
    ("p.abs", "0000010 00000 ----- 000 ----- 0110011"),
    ("p.slet", "0000010 ----- ----- 010 ----- 0110011"),
    ("p.sletu", "0000010 ----- ----- 011 ----- 0110011"),
    ("p.min", "0000010 ----- ----- 100 ----- 0110011"),
    ("p.minu", "0000010 ----- ----- 101 ----- 0110011"),
    ("p.max", "0000010 ----- ----- 110 ----- 0110011"),
    ("p.maxu", "0000010 ----- ----- 111 ----- 0110011"),
    ("p.exths", "0001000 00000 ----- 100 ----- 0110011"),
    ("p.exthz", "0001000 00000 ----- 101 ----- 0110011"),
    ("p.extbs", "0001000 00000 ----- 110 ----- 0110011"),
    ("p.extbz", "0001000 00000 ----- 111 ----- 0110011"),
    ("p.clip", "0001010 ----- ----- 001 ----- 0110011"),     # Is2 in the rs2 field
    ("p.clipu", "0001010 ----- ----- 010 ----- 0110011"),    # Is2 in the rs2 field
    ("p.clipr", "0001010 ----- ----- 101 ----- 0110011"),
    ("p.clipur", "0001010 ----- ----- 110 ----- 0110011"),
    ("p.mac", "0100001 ----- ----- 000 ----- 0110011"),
    ("p.msu", "0100001 ----- ----- 001 ----- 0110011"),
    # Add with normalization, register shift: rD = (rD + rs1) >> rs2[4:0]
    ("p.addNr", "0100000 ----- ----- 010 ----- 1011011"),
    ("p.adduNr", "1100000 ----- ----- 010 ----- 1011011"),
    # Immediate branches: imm5 (signed) in the rs2 field
    ("p.beqimm", "------- ----- ----- 010 ----- 1100011"),
    ("p.bneimm", "------- ----- ----- 011 ----- 1100011"),
    # SIMD, 8-bit vector-vector (funct3 001); funct6 | free bit
    ("pv.add.b", "000000- ----- ----- 001 ----- 1010111"),
    ("pv.sub.b", "000010- ----- ----- 001 ----- 1010111"),
    ("pv.min.b", "001000- ----- ----- 001 ----- 1010111"),
    ("pv.minu.b", "001010- ----- ----- 001 ----- 1010111"),
    ("pv.max.b", "001100- ----- ----- 001 ----- 1010111"),
    ("pv.maxu.b", "001110- ----- ----- 001 ----- 1010111"),
    ("pv.dotup.b", "100000- ----- ----- 001 ----- 1010111"),
    ("pv.dotusp.b", "100010- ----- ----- 001 ----- 1010111"),
    ("pv.dotsp.b", "100110- ----- ----- 001 ----- 1010111"),
    ("pv.sdotup.b", "101000- ----- ----- 001 ----- 1010111"),
    ("pv.sdotusp.b", "101010- ----- ----- 001 ----- 1010111"),
    ("pv.sdotsp.b", "101110- ----- ----- 001 ----- 1010111"),
    ("pv.packhi.b", "110110- ----- ----- 001 ----- 1010111"),
    ("pv.packlo.b", "111000- ----- ----- 001 ----- 1010111"),
    ("pv.pack.h", "1101000 ----- ----- 000 ----- 1010111"),
]

CUSTOM = {0x0B, 0x2B, 0x57, 0x5B, 0x7B}


def pattern(p):
    bits = p.replace(" ", "")
    assert len(bits) == 32, p
    mask = int("".join("0" if c == "-" else "1" for c in bits), 2)
    match = int("".join("1" if c == "1" else "0" for c in bits), 2)
    return mask, match


ENTRIES = [(name, *pattern(p)) for name, p in TABLE]
# The more specific pattern wins (p.lb.pr and p.lb.pi share an opcode and funct3 only in part).
ENTRIES.sort(key=lambda e: -bin(e[1]).count("1"))


def lookup(w):
    """The mnemonic of a PULP v2 word, or None."""
    for name, mask, match in ENTRIES:
        if w & mask == match:
            return name
    return None


def fields(w):
    return dict(rd=(w >> 7) & 31, f3=(w >> 12) & 7, rs1=(w >> 15) & 31, rs2=(w >> 20) & 31,
                imm_i=sx(w >> 20, 12), imm_s=sx(((w >> 25) << 5) | ((w >> 7) & 31), 12),
                uimm_l=(w >> 20) & 0xFFF, L=(w >> 7) & 1,
                imm_b=sx((((w >> 31) & 1) << 12) | (((w >> 7) & 1) << 11) |
                         (((w >> 25) & 63) << 5) | (((w >> 8) & 15) << 1), 13))


def lanes_u(v):
    return [(v >> (8 * i)) & 0xFF for i in range(4)]


def lanes_s(v):
    return [sx(v >> (8 * i), 8) for i in range(4)]


def bytes_of(f):
    return lambda a, b: sum((f(x, y) & 0xFF) << (8 * i)
                            for i, (x, y) in enumerate(zip(lanes_u(a), lanes_u(b))))


def bytes_s(f):
    return lambda a, b: sum((f(x, y) & 0xFF) << (8 * i)
                            for i, (x, y) in enumerate(zip(lanes_s(a), lanes_s(b))))


def dot(la, lb):
    return lambda a, b: sum(x * y for x, y in zip(la(a), lb(b)))


def clip(x, lo, hi):
    return lo if x < lo else (hi if x > hi else x)


SIZE = {"b": (1, True), "h": (2, True), "w": (4, False), "bu": (1, False), "hu": (2, False)}

# Two-operand results: rD = f(rs1, rs2) (the register values, unsigned 32-bit).
ALU2 = {
    "p.slet": lambda a, b: int(s32(a) <= s32(b)),
    "p.sletu": lambda a, b: int(a <= b),
    "p.min": lambda a, b: min(s32(a), s32(b)),
    "p.minu": lambda a, b: min(a, b),
    "p.max": lambda a, b: max(s32(a), s32(b)),
    "p.maxu": lambda a, b: max(a, b),
    "p.abs": lambda a, b: abs(s32(a)),
    "p.exths": lambda a, b: sx(a, 16),
    "p.exthz": lambda a, b: a & 0xFFFF,
    "p.extbs": lambda a, b: sx(a, 8),
    "p.extbz": lambda a, b: a & 0xFF,
    "p.clipr": lambda a, b: clip(s32(a), -s32(b) - 1, s32(b)),
    "p.clipur": lambda a, b: clip(s32(a), 0, s32(b)),
    "pv.add.b": bytes_of(lambda x, y: x + y),
    "pv.sub.b": bytes_of(lambda x, y: x - y),
    "pv.min.b": bytes_s(min),
    "pv.minu.b": bytes_of(min),
    "pv.max.b": bytes_s(max),
    "pv.maxu.b": bytes_of(max),
    "pv.dotup.b": dot(lanes_u, lanes_u),
    "pv.dotusp.b": dot(lanes_u, lanes_s),
    "pv.dotsp.b": dot(lanes_s, lanes_s),
    "pv.pack.h": lambda a, b: ((a & 0xFFFF) << 16) | (b & 0xFFFF),
}
# Accumulating forms: rD = f(rs1, rs2, rD).
ALU3 = {
    "pv.sdotup.b": lambda a, b, d: d + dot(lanes_u, lanes_u)(a, b),
    "pv.sdotusp.b": lambda a, b, d: d + dot(lanes_u, lanes_s)(a, b),
    "pv.sdotsp.b": lambda a, b, d: d + dot(lanes_s, lanes_s)(a, b),
    "pv.packlo.b": lambda a, b, d: (d & 0xFFFF0000) | ((a & 0xFF) << 8) | (b & 0xFF),
    "pv.packhi.b": lambda a, b, d: (d & 0x0000FFFF) | ((a & 0xFF) << 24) | ((b & 0xFF) << 16),
    "p.mac": lambda a, b, d: d + s32(a) * s32(b),
    "p.msu": lambda a, b, d: d - s32(a) * s32(b),
    "p.addNr": lambda a, b, d: s32((d + a) & MASK) >> (b & 31),
    "p.adduNr": lambda a, b, d: ((d + a) & MASK) >> (b & 31),
}


def decode32(w, pc):
    name = lookup(w)
    if name is None:
        if w & 0x7F in CUSTOM:
            base.bad("PULP v2", w, pc)
        return base.decode32(w, pc)  # RV32IM, Zicsr, fence, semihosting
    f = fields(w)
    rd, rs1, rs2 = f["rd"], f["rs1"], f["rs2"]

    def op(fn, reads=(), load_rd=0):
        return fn, 4, tuple(r for r in reads if r), load_rd

    kind = name.split(".")
    if name.startswith(("p.l", "p.s")) and kind[-1] in ("pi", "pr", "rr"):
        size_name, mode = kind[1][1:], kind[-1]
        if kind[1][0] == "l":
            size, signed = SIZE[size_name]
            imm = f["imm_i"]

            def fn(m, pc):
                a = m.x[rs1]
                step = imm if mode == "pi" else m.x[rs2]
                if mode == "rr":
                    m.x[rd] = m.load(a + step, size, signed)
                    return None
                v = m.load(a, size, signed)
                m.x[rs1] = (a + step) & MASK  # the address register first: rD wins if equal
                m.x[rd] = v
            return op(fn, (rs1, rs2) if mode != "pi" else (rs1,), rd)
        size = SIZE[size_name][0]
        imm = f["imm_s"]

        def fn(m, pc):
            a = m.x[rs1]
            step = imm if mode == "pi" else m.x[rd]
            if mode == "rr":
                m.store(a + step, size, m.x[rs2])
                return None
            m.store(a, size, m.x[rs2])
            m.x[rs1] = (a + step) & MASK
        return op(fn, (rs1, rs2) if mode == "pi" else (rs1, rs2, rd))
    if name.startswith("lp."):
        L, ul, us = f["L"], f["uimm_l"], rs1

        if name == "lp.setup":
            def fn(m, pc):
                m.lp[L] = [pc + 4, pc + (ul << 1), m.x[rs1]]
            return op(fn, (rs1,))
        if name == "lp.setupi":
            def fn(m, pc):
                m.lp[L] = [pc + 4, pc + (us << 1), ul]
            return op(fn)
        if name == "lp.starti":
            def fn(m, pc):
                m.lp[L][0] = pc + (ul << 1)
            return op(fn)
        if name == "lp.endi":
            def fn(m, pc):
                m.lp[L][1] = pc + (ul << 1)
            return op(fn)
        if name == "lp.count":
            def fn(m, pc):
                m.lp[L][2] = m.x[rs1]
            return op(fn, (rs1,))

        def fn(m, pc):  # lp.counti
            m.lp[L][2] = ul
        return op(fn)
    if name in ("p.clip", "p.clipu"):
        bits = rs2  # Is2
        hi = (1 << max(bits - 1, 0)) - 1
        lo = 0 if name == "p.clipu" else -(1 << max(bits - 1, 0))

        def fn(m, pc):
            m.x[rd] = clip(s32(m.x[rs1]), lo, hi) & MASK
        return op(fn, (rs1,))
    if name in ("p.beqimm", "p.bneimm"):
        k = sx(rs2, 5) & MASK
        eq = name == "p.beqimm"
        t = f["imm_b"]

        def fn(m, pc):
            if (m.x[rs1] == k) == eq:
                m.cycles += 2
                return pc + t
        return op(fn, (rs1,))
    if name in ALU2:
        g = ALU2[name]

        def fn(m, pc):
            m.x[rd] = g(m.x[rs1], m.x[rs2]) & MASK
        return op(fn, (rs1, rs2))
    g = ALU3[name]

    def fn(m, pc):
        m.x[rd] = g(m.x[rs1], m.x[rs2], m.x[rd]) & MASK
    return op(fn, (rs1, rs2, rd))


def configure(m):
    m.decode32 = decode32
    m.loop_end_last = True


if __name__ == "__main__":
    sys.exit(base.main(configure))
