#!/usr/bin/env python3
"""Measures the loop nests' code-fetch and L2 terms of the cost model (ctile::cost::loop_cost in
include/ctile/plan/cost_model.hpp) from tile_overhead_<network>.elf under the simulator's
PULP-cluster timing model, and prints the table the header's constants must equal.

Usage: code_cost.py [--check HEADER] [--layers] ELF...
       code_cost.py --self-test   (the simulator's caches on the model's hand-computed cases)

Each ELF (bench/runtime, rv32imc) runs twice under tests/cross/cluster_timing.py with the
placement of bench/README.md: (A) code and read-only data in L2, (B) the same with the
read-only data (the plan, the layer array, the executor's tables) in L1. The probe marks that
bracket each layer's loop nest also snapshot the model's counters, so per layer:

  cycles, instructions, tiles          (the bench's line; the fork stand-in's other cores
                                        already taken off)
  code_bytes = lines touched x 16      (the probe: what a cold layer refills from L2)
  l0 = L0 misses that hit the shared cache (each +2 cycles), l2 = lines refilled from L2 (+18)
  reads = (cycles A - cycles B) / 14   (the data accesses to L2 that placing the tables in L1
                                        saves)
  rest = cycles A - 18 l2 - 2 l0 - 14 reads - tiles x (an empty fork's cycles)
       (instructions, branch and load-use stalls, the DMA queue's peripheral accesses;
       for a layer with output groups, plus what the model takes off for the output commands
       they save, the bench's "output groups" line times cost::output_command_cycles)

Per loop kind (conv; depthwise; pool = maxpool, avgpool; linear) a least-squares line over
the layers of that kind that run the rolled nest (all of the kind's layers when fewer than two
tile counts among them run rolled) against their tile counts gives a per-layer and a per-tile
figure of reads and of rest, and the per-tile figure of l0 x 16 (the per-tile path's bytes
that miss the 512 B private cache: fetched again every tile); code_bytes is the median over
the layers. A kind with one tile count, or whose per-tile figure comes out negative, takes the
per-tile figure of all layers pooled. Where a kind's layers take both paths of the nest (the
bench's "spatial layers" line: cut in more than one row or column tile, else every tile a
channel tile of its own), the line of rest has a third term, the spatial path's per-tile
cycles more (spatial_tile_cycles; 0 where the kind has one path, or the fit gives a negative
figure). The unrolled nests (the layers the bench reports as
unrolled, of any kind) get their own line of code bytes and of cycles (all but the cold code
and the fork) against the tile count: `loop_cost_unrolled`. Pass the _rolled and _unrolled
variants (every nest rolled; every one with few enough tiles unrolled), so that the terms do
not depend on which layers the unroll rule picks. The table printed is C++ of the form of the
header's constants.
--check HEADER compares them with the header's: each within 10% or 16 (bytes, reads or
cycles), else FAIL.
--layers also prints each layer's measured figures and what the header's constants model for
it (cost::loop_overhead without the fork term, against the simulated cycles without the
fork stand-in). Re-measuring after a change to the loop nests: bench/runtime/code_cost.sh
(builds the variants with CTILE_OVERHEAD_VARIANTS=ON, runs this with --check on them); paste
the table into the header.
"""
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "cross"))
import cluster_timing as ct  # noqa: E402
import corev_iss as base  # noqa: E402

KINDS = {"conv": "conv", "depthwise": "depthwise", "maxpool": "pool", "avgpool": "pool",
         "add": "pool", "linear": "linear"}
FIELDS = ("code_bytes", "tile_path_bytes", "layer_l2_reads", "tile_l2_reads", "layer_cycles",
          "tile_cycles", "spatial_tile_cycles")
LAYER = re.compile(r"^(\d+)\s+(\w+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+|-)\s+")
FORK = re.compile(r"^an empty fork: (\d+) instructions, (\d+) cycles$")
UNROLLED = re.compile(r"^unrolled layers \w+:((?: \d+)*)$")
SPATIAL = re.compile(r"^spatial layers \w+:((?: \d+)*)$")
GROUPS = re.compile(r"^output groups \w+:((?: \d+:\d+)*)$")
OUTPUT_COMMAND = re.compile(r"inline constexpr int output_command_cycles = (\d+);")
UNROLLED_FIELDS = ("run_bytes", "tile_bytes", "run_cycles", "tile_cycles")
REGIONS = ["peripheral=ctile_dma_queue", "tcdm=ctile_l1_arena", "tcdm=ctile_code_probe",
           "tcdm=__bss_end:__stack"]
L2 = "l2=0x80000000:0x80400000"
RODATA_L1 = "tcdm=__text_end:__data_source"


class Probed(ct.ClusterMachine):
    """The cluster machine with a snapshot of the model's counters at each probe mark."""

    def __init__(self, *a):
        super().__init__(*a)
        self.marks = []

    def probe_mark(self, v):
        self.marks.append((v, dict(self.timing.stats)))
        super().probe_mark(v)


def simulate(path, regions):
    image, entry = base.load_elf(path)
    symbols = ct.load_symbols(path)
    t = ct.Timing([ct.parse_region(r, symbols) for r in regions])
    m = Probed(image, entry, t)
    m.probe = symbols["ctile_code_probe"][0]
    m.probe_functions = base.load_functions(path)
    m.x[2] = m.base + m.size
    try:
        m.run()
    except base.Exit as e:
        if e.code != 0:
            raise SystemExit(f"{path}: exit code {e.code}")
    out = "".join(m.out).splitlines()
    # The loop nests' table only: the executor's table that follows it (each layer through
    # schedule::run_network) holds the per-layer path, which these terms leave out.
    execs = [k for k, ln in enumerate(out) if ln.startswith("executor ")]
    out = out[:execs[0]] if execs else out
    layers = [LAYER.match(ln) for ln in out]
    layers = [x for x in layers if x]
    fork = [FORK.match(ln) for ln in out]
    fork = [x for x in fork if x]
    unrolled = [UNROLLED.match(ln) for ln in out]
    unrolled = [x for x in unrolled if x]
    if len(unrolled) != 1:
        raise SystemExit(f"{path}: no 'unrolled layers' line")
    unrolled = {int(v) for v in unrolled[0].group(1).split()}
    spatial = [SPATIAL.match(ln) for ln in out]
    spatial = [x for x in spatial if x]
    if len(spatial) != 1:
        raise SystemExit(f"{path}: no 'spatial layers' line")
    spatial = {int(v) for v in spatial[0].group(1).split()}
    groups = [GROUPS.match(ln) for ln in out]
    groups = [x for x in groups if x]
    if len(groups) != 1:
        raise SystemExit(f"{path}: no 'output groups' line")
    groups = dict(tuple(int(u) for u in v.split(":")) for v in groups[0].group(1).split())
    # Each layer is a start (1) followed by a stop (0); the start-up code's stores of 0 to
    # the probe (its initialisation) open no interval.
    deltas, start = [], None
    for v, s in m.marks:
        if v == 1:
            start = s
        elif start is not None:
            deltas.append({key: s[key] - start[key] for key in s})
            start = None
    # (The executor's table brackets its layers too, after the loop nests' table.)
    deltas = deltas[:len(layers)]
    if not layers or len(deltas) != len(layers) or not fork:
        raise SystemExit(f"{path}: {len(layers)} layer lines, {len(deltas)} probe intervals")
    return layers, deltas, int(fork[0].group(2)), unrolled, spatial, groups


def output_command_cycles():
    """The header's cost::output_command_cycles: what the model takes off a layer for each
    output command its output groups save."""
    with open(os.path.join(HERE, "..", "..", "include", "ctile", "plan", "cost_model.hpp")) as f:
        m = OUTPUT_COMMAND.search(f.read())
    if not m:
        raise SystemExit("cost_model.hpp: no output_command_cycles")
    return int(m.group(1))


def measure(path):
    la, da, fork, unrolled, spatial, groups = simulate(path, REGIONS + [L2])
    lb, _, _, _, _, _ = simulate(path, REGIONS + [RODATA_L1, L2])
    per_command = output_command_cycles()
    rows = []
    for a, d, b in zip(la, da, lb):
        tiles, cycles = int(a.group(3)), int(a.group(6))
        l2 = d["l1_miss"]
        l0 = d["l0_miss"] - d["l1_miss"]
        reads = (cycles - int(b.group(6))) / ct.L2_DATA
        rows.append({
            "net": os.path.basename(path), "layer": int(a.group(1)), "kind": a.group(2),
            "tiles": tiles, "instr": int(a.group(5)), "cycles": cycles,
            "code_bytes": int(a.group(7)) if a.group(7) != "-" else 0, "l0": l0, "l2": l2,
            "reads": reads, "fork": fork, "unrolled": int(a.group(1)) in unrolled,
            "spatial": int(a.group(1)) in spatial,
            # (A layer with output groups: what the model takes off for the commands they
            # save added back, so that the per-tile line is the one-command-a-tile nest's.)
            "saved": groups.get(int(a.group(1)), 0) * per_command,
            "rest": cycles - ct.L2_REFILL * l2 - ct.L0_REFILL * l0 - ct.L2_DATA * reads -
            tiles * fork + groups.get(int(a.group(1)), 0) * per_command})
    return rows


def fit(xs, ys):
    """Least squares y = a + b x; None when the x are all equal."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return None
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return my - b * mx, b


def fit3(xs, zs, ys):
    """Least squares y = a + b x + c z; None when the columns 1, x, z are dependent."""
    n = len(xs)
    cols = [[1.0] * n, [float(x) for x in xs], [float(z) for z in zs]]
    m = [[sum(u * v for u, v in zip(ci, cj)) for cj in cols] for ci in cols]
    r = [sum(u * y for u, y in zip(ci, ys)) for ci in cols]

    def det(a):
        return (a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
                a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
                a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]))
    d = det(m)
    if abs(d) < 1e-9 * max(1.0, abs(m[1][1] * m[2][2])):
        return None
    out = []
    for k in range(3):
        mk = [row[:] for row in m]
        for i in range(3):
            mk[i][k] = r[i]
        out.append(det(mk) / d)
    return tuple(out)


def constants(rows):
    table = {}
    pooled = {q: fit([r["tiles"] for r in rows], [r[q] for r in rows]) for q in ("reads", "rest",
                                                                                 "l0")}
    for kind in sorted(set(KINDS.values())):
        rs = [r for r in rows if KINDS[r["kind"]] == kind]
        if not rs:
            continue
        rolled = [r for r in rs if not r["unrolled"]]
        if len({r["tiles"] for r in rolled}) >= 2:
            rs = rolled  # the rolled nest's terms, where its layers allow a fit
        tiles = [r["tiles"] for r in rs]
        c = {"code_bytes": statistics.median(r["code_bytes"] for r in rs)}
        for q, layer_name, tile_name in (("reads", "layer_l2_reads", "tile_l2_reads"),
                                         ("rest", "layer_cycles", "tile_cycles"),
                                         ("l0", None, "tile_path_bytes")):
            ys = [r[q] for r in rs]
            f = fit(tiles, ys)
            if f is None or f[1] < 0:
                b = pooled[q][1]
                f = (sum(ys) / len(ys) - b * sum(tiles) / len(tiles), b)
            a, b = f
            if q == "rest":
                # The spatial path's own per-tile cycles, where the kind's layers take both
                # paths (else 0: the channel path's line serves both).
                f3 = fit3(tiles, [r["tiles"] if r["spatial"] else 0 for r in rs], ys)
                c["spatial_tile_cycles"] = 0.0
                if f3 is not None and f3[1] >= 0 and f3[2] >= 0:
                    a, b, c["spatial_tile_cycles"] = f3
            if q == "l0":
                c[tile_name] = b * ct.LINE
            else:
                c[layer_name], c[tile_name] = max(a, 0.0), b
        table[kind] = {k: int(round(v)) for k, v in c.items()}
    # The unrolled nests: code bytes and cycles (all but the cold code and the fork) against
    # the tile count, over the unrolled layers of every kind.
    rs = [r for r in rows if r["unrolled"]]
    if rs:
        tiles = [r["tiles"] for r in rs]
        fb = fit(tiles, [r["code_bytes"] for r in rs]) or (0.0, 0.0)
        fc = fit(tiles, [r["cycles"] - ct.L2_REFILL * r["l2"] - r["tiles"] * r["fork"]
                         for r in rs]) or (0.0, 0.0)
        table["unrolled"] = {"run_bytes": int(round(fb[0])), "tile_bytes": int(round(fb[1])),
                             "run_cycles": int(round(fc[0])), "tile_cycles": int(round(fc[1]))}
    return table


def modeled_unrolled(u, tiles):
    """cost::unrolled_overhead's formula without the fork (cold code, empty kernels)."""
    return u["run_cycles"] + tiles * u["tile_cycles"] + \
        (u["run_bytes"] + tiles * u["tile_bytes"]) // ct.LINE * ct.L2_REFILL


def modeled(c, tiles, spatial=False):
    """What the header's terms give for a cold layer of `tiles` tiles with empty kernels and
    the tables in L2, without the fork (cost::loop_overhead's formula; `spatial`: more than one
    row or column tile)."""
    line_fetch = c["code_bytes"] // ct.LINE * ct.L2_REFILL
    per_tile = c["tile_cycles"] + c["tile_path_bytes"] // ct.LINE * ct.L0_REFILL + \
        c["tile_l2_reads"] * ct.L2_DATA + (c["spatial_tile_cycles"] if spatial else 0)
    return c["layer_cycles"] + line_fetch + c["layer_l2_reads"] * ct.L2_DATA + tiles * per_tile


def header_constants(path):
    text = open(path).read()
    got = {}
    for m in re.finditer(r"loop_cost_(\w+)\{([^}]*)\}", text):
        vals = [int(v) for v in re.findall(r"-?\d+", m.group(2))]
        names = UNROLLED_FIELDS if m.group(1) == "unrolled" else FIELDS
        if len(vals) == len(names):
            got[m.group(1)] = dict(zip(names, vals))
    return got


def self_test():
    """The cost model's code-fetch terms (cost::loop_layer_cycles, cost::loop_tile_cycles) on
    small cases computed by hand from the cluster figures (16-byte lines, +18 a line from L2,
    +2 an L0 miss that hits the shared cache, +14 a data access to L2), against the cluster
    timing model's caches (cluster_timing.Timing) fetching the same code: a layer's nest of
    1,024 B (64 lines) whose per-tile path is its first 768 B (48 lines, more than the 512 B
    L0), and a kernel of 3,584 B (224 lines) between tiles. tests/bench/test_report.cpp checks
    the C++ functions on the same cases against the same hand-computed figures. Tolerance: 0
    cycles for line-aligned code; a path starting 8 bytes into a line touches one line more
    per pass (at most +2 cycles a tile, +18 cold)."""
    bad = 0

    def fetch_range(t, lo, n):
        return sum(t.fetch(pc, 4) for pc in range(lo, lo + n, 4))

    def check(name, got, want, tol=0):
        nonlocal bad
        ok = abs(got - want) <= tol
        bad += not ok
        print(f"{name}: simulated {got}, by hand {want} (tolerance {tol}) "
              f"{'ok' if ok else 'FAIL'}")

    nest, path, kernel_bytes = 0x1000, 768, 3584
    # 1. A cold layer: every line of its 1,024 B from L2, 64 x 18.
    t = ct.Timing([])
    check("cold nest 1024 B", fetch_range(t, nest, 1024), 1024 // 16 * 18)
    # 2. Tiles without a kernel: the 768 B path misses L0 on every pass (48 lines in 8 sets of
    #    4 ways, LRU) and hits the shared cache: 48 x 2 a tile.
    tiles = [fetch_range(t, nest, path) for _ in range(10)]
    check("tile path 768 B, no kernel", max(tiles), 768 // 16 * 2)
    check("tile path 768 B, no kernel (min)", min(tiles), 768 // 16 * 2)
    # 3. With a 3,584 B kernel after each tile, placed so its 224 lines fill sets 0..31 of the
    #    shared cache (64 sets by line) 4 deep and 32..63 3 deep: the path's lines in sets
    #    0..31 (32 lines = 1024 + 3584 - 4096 B, what the model takes as evicted) come from
    #    L2 each tile, the other 16 from the shared cache: 32 x 18 + 16 x 2 = 608.
    kernel = 0x8000  # line 2048: set 0
    t = ct.Timing([])
    fetch_range(t, nest, 1024)
    got = []
    for _ in range(6):
        fetch_range(t, kernel, kernel_bytes)
        got.append(fetch_range(t, nest, path))
    check("tile path after a 3584 B kernel", got[-1], 32 * 18 + 16 * 2)
    # 4. The same path 8 bytes into a line: one line more per pass.
    t = ct.Timing([])
    fetch_range(t, nest + 8, 1024)
    tiles = [fetch_range(t, nest + 8, path) for _ in range(4)]
    check("unaligned tile path", tiles[-1], 768 // 16 * 2, tol=2)
    # 5. Table reads: 10 loads from L2, none from L1.
    t = ct.Timing([((0x1C000000, 0x1C080000), "l2"), ((0x10000000, 0x10040000), "tcdm")])
    check("10 table reads in L2", sum(t.data(0x1C000100 + 4 * i) for i in range(10)), 10 * 14)
    check("10 table reads in L1", sum(t.data(0x10000100 + 4 * i) for i in range(10)), 0)
    print("code cost self-test FAIL" if bad else "code cost self-test ok")
    return 1 if bad else 0


def main():
    args = sys.argv[1:]
    if "--self-test" in args:
        return self_test()
    check = None
    if "--check" in args:
        i = args.index("--check")
        check = args[i + 1]
        del args[i:i + 2]
    show_layers = "--layers" in args
    args = [a for a in args if a != "--layers"]
    if not args:
        raise SystemExit(__doc__)
    rows = [r for path in args for r in measure(path)]
    table = constants(rows)
    print("// measured by bench/runtime/code_cost.py on " +
          ", ".join(os.path.basename(a) for a in args))
    print("// {" + ", ".join(FIELDS) + "}")
    for kind, c in table.items():
        if kind == "unrolled":
            print("// {" + ", ".join(UNROLLED_FIELDS) + "}")
            print("inline constexpr unrolled_cost loop_cost_unrolled{" +
                  ", ".join(str(c[f]) for f in UNROLLED_FIELDS) + "};")
        else:
            print(f"inline constexpr loop_cost loop_cost_{kind}{{" +
                  ", ".join(str(c[f]) for f in FIELDS) + "};")
    if show_layers:
        use = header_constants(check) if check else table
        print("net layer kind tiles instr cycles cycles-fork modeled error code_bytes l0 l2 "
              "reads rest (u: unrolled, s: spatial)")
        for r in rows:
            sim = r["cycles"] - r["tiles"] * r["fork"]
            if r["unrolled"] and "unrolled" in use:
                mod = modeled_unrolled(use["unrolled"], r["tiles"])
            else:
                mod = modeled(use[KINDS[r["kind"]]], r["tiles"], r["spatial"]) - r["saved"]
            kind = r["kind"] + ("(u)" if r["unrolled"] else "(s)" if r["spatial"] else "")
            print(f"{r['net']} {r['layer']} {kind} {r['tiles']} {r['instr']} {r['cycles']} "
                  f"{sim} {mod} {100.0 * (mod - sim) / sim:+.1f}% {r['code_bytes']} {r['l0']} "
                  f"{r['l2']} {r['reads']:.0f} {r['rest']:.0f}")
    if check is None:
        return 0
    have = header_constants(check)
    bad = []
    for kind, c in table.items():
        if kind not in have:
            bad.append(f"loop_cost_{kind}: not in {check}")
            continue
        for f in (UNROLLED_FIELDS if kind == "unrolled" else FIELDS):
            want, got = c[f], have[kind][f]
            if abs(got - want) > max(16, 0.10 * abs(want)):
                bad.append(f"loop_cost_{kind}.{f}: header {got}, measured {want}")
    for b in bad:
        print(b)
    print("code cost constants FAIL" if bad else "code cost constants ok")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
