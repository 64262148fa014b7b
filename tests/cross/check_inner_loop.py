#!/usr/bin/env python3
"""Checks the hardware loops of a CORE-V build from its disassembly.

Usage: check_inner_loop.py OBJDUMP ELF

Finds every `cv.setup` (emitted through .insn: opcode 0x2B, funct3 4, bits [11:8] 0111; ends at
pc + 4 * uimm), checks each body obeys the hardware-loop rules (aligned, 32-bit instructions
only, at least 3, no branches), prints the instruction mix of each loop, and requires the
conv/pointwise 4x2 loop (8 cv.sdotusp.b in at most 14 instructions for 32 MACs) and the 4x4
loop of single-row kernels such as pointwise (16 cv.sdotusp.b in at most 24 instructions for
64 MACs).
"""
import collections
import re
import subprocess
import sys

MATTR = "--mattr=+m,+xcvsimd,+xcvmac,+xcvmem,+xcvalu,+xcvbi"
LINE = re.compile(r"^\s*([0-9a-f]+):\s+([0-9a-f]+)\s+(\S+)?")
FUNC = re.compile(r"^([0-9a-f]+) <(.+)>:$")


def main() -> int:
    objdump, elf = sys.argv[1], sys.argv[2]
    text = subprocess.run([objdump, "-d", "-C", MATTR, elf], check=True,
                          capture_output=True, text=True).stdout
    insns = []  # (address, hex, mnemonic, function)
    func = "?"
    for line in text.splitlines():
        m = FUNC.match(line)
        if m:
            func = m.group(2)
            continue
        m = LINE.match(line)
        if m:
            insns.append((int(m.group(1), 16), m.group(2), m.group(3) or "", func))
    failures = []
    found = {"4x2": False, "4x4": False}
    loops = 0
    for i, (addr, word, _, fn) in enumerate(insns):
        if len(word) != 8:
            continue
        w = int(word, 16)
        # cv.setup: opcode 0x2B, funct3 4, bits [11:8] = 0111 (bit 7: loop number).
        if (w & 0x707F) != 0x402B or ((w >> 8) & 0xF) != 0x7:
            continue
        loops += 1
        end = addr + 4 * (w >> 20)
        # Outer loops (the pointwise block loop around its MAC loop) run to ~200 instructions.
        body = [x for x in insns[i + 1:i + 512] if addr < x[0] < end]
        n = len(body)
        mix = collections.Counter(x[2] for x in body)
        sdot = mix["cv.sdotusp.b"]
        desc = ", ".join(f"{k} x{v}" for k, v in sorted(mix.items()))
        print(f"loop at {addr:#x} in {fn}: {n} instructions, {4 * sdot} MACs/iteration: {desc}")
        if addr % 4 != 0:
            failures.append(f"cv.setup at {addr:#x} is not word aligned")
        if n < 3 or any(len(x[1]) != 8 for x in body) or body[-1][0] + 4 != end:
            failures.append(f"loop at {addr:#x}: body is not >= 3 whole 32-bit instructions")
        if any(x[2].startswith(("b", "j", "c.")) and not x[2].startswith("bset") for x in body):
            failures.append(f"loop at {addr:#x}: branch or compressed instruction in the body")
        if re.search(r"matmul|conv|pointwise|mm4x", fn):
            if sdot == 8 and n <= 14:
                found["4x2"] = True
            if sdot == 16 and n <= 24:
                found["4x4"] = True
    if not found["4x2"]:
        failures.append("no conv/pointwise loop with 8 cv.sdotusp.b in at most 14 instructions")
    if not found["4x4"]:
        failures.append("no pointwise loop with 16 cv.sdotusp.b in at most 24 instructions")
    print(f"{loops} hardware loops checked")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
