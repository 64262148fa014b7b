#!/usr/bin/env python3
"""Measures the cost model's constants of the wide kernels (ctile::cost::wide_* in
include/ctile/plan/cost_model.hpp) from the CORE-V builds of the cycle programs
cycles_wide_<tile>.elf (bench/kernels/cycles/wide.cpp) on the instruction-set simulator, and
prints them as the header's C++, with each wide kernel's rate against the 8-bit kernel of the
same tile.

Usage: wide_cost.py [--check HEADER] ELF...

Each program times the wide kernel on its tile (the first `kernel=wide_<tile>` line) and then
the 8-bit kernel on the same tile (`kernel=narrow_<tile>`). The simulator runs it with its
profile; the loop constants ([loop]) are the cycles per iteration of the wide kernel's inner
loop: the addresses inside ctile::kernels::wide's functions executed exactly once per
iteration (per MAC for conv and linear, per window tap for depthwise and pools), their cycles
summed and divided by the iteration count. The fitted constants ([fit]) take the rest of the
wide run's cycles, less the model's per-call kernel_call (30), over the tile's outputs:

  conv, pointwise: cycles = macs x conv_per_mac + outputs x (rows x per_row + per_output),
                   rows the kernel rows (one sum over a row's taps), the 3x3 and the 1x1
                   programs giving per_row and per_output exactly;
  depthwise:       cycles = outputs x (9 x dw_per_tap + dw_per_output);
  linear:          cycles = macs x linear_per_mac + outputs x linear_per_output;
  average pool:    cycles = outputs x (4 x pool_per_tap + avgpool_per_output);
  max pool:        cycles = outputs x (4 x pool_per_tap + maxpool_per_output), the tap loop
                   measured on the average pool (one function runs both);
  add:             cycles = elements x add_per_element.

--check HEADER compares them with the header's: each within 10% (or 2 cycles), else FAIL.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "tests", "cross"))
import corev_iss as iss  # noqa: E402

KERNEL_CALL = 30
# The programs' tiles (wide.cpp): outputs and window taps per output.
TILES = {
    "conv3x3": (8 * 4 * 16, 9),
    "pointwise": (8 * 4 * 16, 1),
    "depthwise3x3": (8 * 4 * 16, 9),
    "linear": (16, 1),
    "avgpool2x2": (4 * 4 * 16, 4),
    "add": (8 * 8 * 16, 1),
    "maxpool2x2": (4 * 4 * 16, 4),
}
WIDE_NS = "_ZN5ctile7kernels4wide"
LINE = re.compile(r"^kernel=(\w+) macs=(\d+) cycles=(\d+) instret=(\d+) ok=(\d)$")
CONST = re.compile(r"inline constexpr int (wide_\w+) = (-?\d+);")


def run(path):
    """The program's result lines and the loop's cycles per iteration (None: no loop)."""
    image, entry = iss.load_elf(path)
    m = iss.Machine(image, entry)
    m.x[2] = m.base + m.size
    m.profile = {}
    try:
        m.run()
    except iss.Exit:
        pass
    lines = {}
    for text in "".join(m.out).splitlines():
        f = LINE.match(text)
        if f:
            lines[f.group(1)] = (int(f.group(2)), int(f.group(3)), int(f.group(4)), f.group(5))
    wide = [(a, s) for a, s, n in iss.load_functions(path) if n.startswith(WIDE_NS)]
    in_wide = {pc: v for pc, v in m.profile.items() if any(a <= pc < a + s for a, s in wide)}
    return lines, in_wide


def loop_cycles(profile, count):
    """Cycles per iteration of the loop whose addresses ran `count` times."""
    hot = [c for n, c in profile.values() if n == count]
    if not hot:
        raise RuntimeError(f"no loop of {count} iterations in the wide kernel")
    return sum(hot) / count


def measure(elfs):
    runs = {}
    for path in elfs:
        lines, prof = run(path)
        wide = [k for k in lines if k.startswith("wide_")]
        if len(wide) != 1:
            raise RuntimeError(f"{path}: no wide_ result line")
        tile = wide[0][len("wide_"):]
        for k in (f"wide_{tile}", f"narrow_{tile}"):
            if k not in lines or lines[k][3] != "1":
                raise RuntimeError(f"{path}: {k} missing or its own check failed")
        runs[tile] = (lines, prof)
    missing = [t for t in TILES if t not in runs]
    if missing:
        raise RuntimeError("missing programs: " + ", ".join(missing))

    def cyc(tile):
        return runs[tile][0][f"wide_{tile}"][1] - KERNEL_CALL

    def macs(tile):
        return runs[tile][0][f"wide_{tile}"][0]

    c = {}
    per_mac = loop_cycles(runs["conv3x3"][1], macs("conv3x3"))
    c["wide_conv_per_mac"] = per_mac
    o3, _ = TILES["conv3x3"]
    o1, _ = TILES["pointwise"]
    r3, r1 = 3, 1  # kernel rows of the two tiles
    a = (cyc("conv3x3") - macs("conv3x3") * per_mac) / o3  # r3 rows + out
    b = (cyc("pointwise") - macs("pointwise") * per_mac) / o1  # r1 row + out
    c["wide_conv_per_row"] = (a - b) / (r3 - r1)
    c["wide_conv_per_output"] = b - r1 * c["wide_conv_per_row"]
    o, t = TILES["depthwise3x3"]
    c["wide_dw_per_tap"] = loop_cycles(runs["depthwise3x3"][1], o * t)
    c["wide_dw_per_output"] = cyc("depthwise3x3") / o - t * c["wide_dw_per_tap"]
    o, _ = TILES["linear"]
    c["wide_linear_per_mac"] = loop_cycles(runs["linear"][1], macs("linear"))
    c["wide_linear_per_output"] = (cyc("linear") - macs("linear") * c["wide_linear_per_mac"]) / o
    o, t = TILES["avgpool2x2"]
    c["wide_pool_per_tap"] = loop_cycles(runs["avgpool2x2"][1], o * t)
    c["wide_avgpool_per_output"] = cyc("avgpool2x2") / o - t * c["wide_pool_per_tap"]
    o, t = TILES["maxpool2x2"]
    c["wide_maxpool_per_output"] = cyc("maxpool2x2") / o - t * c["wide_pool_per_tap"]
    o, _ = TILES["add"]
    c["wide_add_per_element"] = cyc("add") / o
    return runs, c


def main():
    args = sys.argv[1:]
    header = None
    if args[:1] == ["--check"]:
        header, args = args[1], args[2:]
    if not args:
        print(__doc__)
        return 2
    runs, c = measure(args)
    print(f"{'tile':<14} {'wide cycles':>12} {'8-bit cycles':>13} {'ratio':>7}"
          f" {'wide MAC/cycle':>15} {'8-bit MAC/cycle':>16}")
    for tile in TILES:
        lines = runs[tile][0]
        m, w = lines[f"wide_{tile}"][:2]
        n = lines[f"narrow_{tile}"][1]
        print(f"{tile:<14} {w:>12} {n:>13} {w / n:>7.1f} {m / w:>15.4f} {m / n:>16.3f}")
    print("measured constants (the header's form):")
    for k, v in c.items():
        print(f"inline constexpr int {k} = {round(v)};")
    if header is None:
        return 0
    have = dict((k, int(v)) for k, v in CONST.findall(open(header).read()))
    bad = 0
    for k, v in c.items():
        if k not in have:
            print(f"FAIL {k}: not in {header}")
            bad += 1
            continue
        if abs(have[k] - v) > max(2, 0.10 * abs(v)):
            print(f"FAIL {k}: header {have[k]}, measured {v:.1f}")
            bad += 1
    print("wide kernel constants ok" if bad == 0 else f"{bad} constant(s) off")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
