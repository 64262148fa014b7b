#!/usr/bin/env python3
"""Checks the hardware loops of an XpulpV2 build from its disassembly.

Usage: check_inner_loop_xpulpv2.py OBJDUMP ELF [4x2] [4x4] [dw]

OBJDUMP (llvm-objdump-19 or GNU objdump) gives the instruction boundaries and functions; every
32-bit word is named by the PULP v2 table of xpulpv2_iss.py (written from the RI5CY manual,
not from the emitter). For every lp.setup / lp.setupi, the body runs from the next instruction
to the setup's address + (uimm << 1) included (PULP v2: half-words, the end is the LAST
instruction of the body). Each body must be at least 3 whole 32-bit instructions, end exactly
on one, contain no branch, and the setup must be word aligned. The loops named on the command
line must be found (default 4x2): `4x2`, the conv/pointwise loop of 8 pv.sdotusp.b and 6
post-increment p.lw in 14 instructions for 32 MACs; `4x4`, the pointwise loop of 16
pv.sdotusp.b and 8 p.lw (register post-increment) in 24 instructions for 64 MACs; `dw`, the depthwise column loop (3
pv.sdotusp.b per output, its rows loaded and its outputs stored by register post-increment).
Prints the instruction mix of each loop. The instruction spellings of xpulpv2_encoding.cpp
(labels xpulpv2_enc_*) are not loops and are skipped.
"""
import collections
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import xpulpv2_iss as xp  # noqa: E402

LINE = re.compile(r"^\s*([0-9a-f]+):\s+([0-9a-f]{4}|[0-9a-f]{8})\s+(\S+)?")
FUNC = re.compile(r"^([0-9a-f]+) <(.+)>:$")
BRANCH = re.compile(r"^(c\.)?(b|j)")


def name_of(hexword, mnemonic):
    if len(hexword) != 8:
        return "c." + (mnemonic or "?").removeprefix("c.")
    w = int(hexword, 16)
    pulp = xp.lookup(w)
    if pulp is not None:
        return pulp
    if w & 0x7F in xp.CUSTOM:
        return "?custom"
    return mnemonic or "?"


def main() -> int:
    objdump, elf = sys.argv[1], sys.argv[2]
    wanted = sys.argv[3:] or ["4x2"]
    mattr = ["--mattr=+m,+c"] if "llvm" in os.path.basename(objdump) else []
    text = subprocess.run([objdump, "-d", "-C", *mattr, elf], check=True, capture_output=True,
                          text=True).stdout
    insns = []  # (address, hex word, name, function)
    func = "?"
    for line in text.splitlines():
        m = FUNC.match(line)
        if m:
            func = m.group(2)
            continue
        m = LINE.match(line)
        if m:
            word = m.group(2)
            insns.append((int(m.group(1), 16), word, name_of(word, m.group(3)), func))
    failures = []
    found = {"4x2": False, "4x4": False, "dw": False}
    loops = 0
    for i, (addr, word, name, fn) in enumerate(insns):
        if name not in ("lp.setup", "lp.setupi") or fn.startswith("xpulpv2_enc_"):
            continue  # (xpulpv2_encoding.cpp's spellings are no loops)
        w = int(word, 16)
        loops += 1
        f = xp.fields(w)
        end = addr + ((f["uimm_l"] if name == "lp.setup" else f["rs1"]) << 1)
        body = [x for x in insns[i + 1:i + 512] if addr < x[0] <= end]
        n = len(body)
        mix = collections.Counter(x[2] for x in body)
        desc = ", ".join(f"{k} x{v}" for k, v in sorted(mix.items()))
        print(f"loop at {addr:#x} in {fn}: {n} instructions, "
              f"{4 * mix['pv.sdotusp.b']} MACs/iteration: {desc}")
        if addr % 4 != 0:
            failures.append(f"{name} at {addr:#x} is not word aligned")
        if n < 3 or any(len(x[1]) != 8 for x in body) or body[-1][0] != end:
            failures.append(f"loop at {addr:#x}: the body does not end on its last 32-bit "
                            f"instruction at {end:#x} (or has fewer than 3)")
        if any(BRANCH.match(x[2]) and not x[2].startswith("p.") for x in body) or \
                mix["p.beqimm"] or mix["p.bneimm"]:
            failures.append(f"loop at {addr:#x}: branch or compressed instruction in the body")
        if mix["pv.sdotusp.b"] == 8 and mix["p.lw.pi"] == 6 and n == 14:
            found["4x2"] = True
        if mix["pv.sdotusp.b"] == 16 and mix["p.lw.pr"] == 8 and n == 24:
            found["4x4"] = True
        if mix["pv.sdotusp.b"] == 9 and mix["p.lw.pr"] == 3 and mix["p.sb.pr"] == 3:
            found["dw"] = True
    if "4x2" in wanted and not found["4x2"]:
        failures.append("no 4x2 loop of 8 pv.sdotusp.b and 6 p.lw (post-increment) in 14 "
                        "instructions")
    if "4x4" in wanted and not found["4x4"]:
        failures.append("no 4x4 loop of 16 pv.sdotusp.b and 8 p.lw (register post-increment) in "
                        "24 instructions")
    if "dw" in wanted and not found["dw"]:
        failures.append("no depthwise column loop (9 pv.sdotusp.b, 3 p.lw and 3 p.sb with "
                        "register post-increment per 3 outputs)")
    if any(x[2] == "?custom" for x in insns):
        failures.append("a custom-opcode word the PULP v2 table does not know")
    print(f"{loops} hardware loops checked")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
