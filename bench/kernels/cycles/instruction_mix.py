#!/usr/bin/env python3
"""Static instruction mix of the kernels in CORE-V cycle programs, from their disassembly.

Usage: instruction_mix.py OBJDUMP ELF...

For each program: every ctile::kernels function (size in instructions, the share of CORE-V
instructions) and every hardware loop with its body (instructions, MACs per iteration).
"""
import collections
import re
import subprocess
import sys

MATTR = "--mattr=+m,+xcvsimd,+xcvmac,+xcvmem,+xcvalu,+xcvbi"
LINE = re.compile(r"^\s*([0-9a-f]+):\s+([0-9a-f]+)\s+(\S+)?")
FUNC = re.compile(r"^([0-9a-f]+) <(.+)>:$")


def main() -> int:
    objdump = sys.argv[1]
    for elf in sys.argv[2:]:
        text = subprocess.run([objdump, "-d", "-C", MATTR, elf], check=True,
                              capture_output=True, text=True).stdout
        funcs = collections.OrderedDict()
        insns = []
        func = "?"
        for line in text.splitlines():
            m = FUNC.match(line)
            if m:
                func = m.group(2)
                continue
            m = LINE.match(line)
            if m:
                word, mnem = m.group(2), m.group(3) or ""
                if len(word) == 8 and (int(word, 16) & 0x707F) == 0x402B and \
                        ((int(word, 16) >> 8) & 0xF) == 0x7:
                    mnem = "cv.setup"
                insns.append((int(m.group(1), 16), word, mnem, func))
                funcs.setdefault(func, []).append(mnem)
        print(f"== {elf.split('/')[-1]}")
        for fn, ms in funcs.items():
            if "ctile::kernels" not in fn:
                continue
            cv = sum(1 for x in ms if x.startswith("cv."))
            name = fn.split("(")[0]
            print(f"  {name}: {len(ms)} instructions, {cv} CORE-V ({100 * cv // max(1, len(ms))}%)")
        for i, (addr, word, mnem, fn) in enumerate(insns):
            if mnem != "cv.setup":
                continue
            end = addr + 4 * (int(word, 16) >> 20)
            body = [x[2] for x in insns[i + 1:i + 64] if addr < x[0] < end]
            mix = collections.Counter(body)
            macs = 4 * mix["cv.sdotusp.b"]
            desc = ", ".join(f"{v} {k}" for k, v in sorted(mix.items()))
            print(f"  loop in {fn.split('(')[0]}: {len(body)} instructions, {macs} MACs: {desc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
