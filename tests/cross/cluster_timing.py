#!/usr/bin/env python3
"""A PULP-cluster timing model for the tests' instruction-set simulator (one core's view).

Usage: cluster_timing.py [--corev] [--region KIND=RANGE]... [--probe SYMBOL [--breakdown]] ELF
                              (runs ELF with the model; XpulpV2 decoding unless --corev)
       cluster_timing.py --self-test       (the model against hand-computed small cases)

--region KIND=RANGE (repeatable; the first range holding an address decides, and with any
--region the default cluster map below is not used) says what an address range of the ELF is:
KIND is l2, tcdm or peripheral; RANGE is SYMBOL (the object's extent from the ELF's symbol
table) or LO:HI, each end a number or SYMBOL, SYMBOL+N or SYMBOL-N. --probe SYMBOL names a
code-fetch probe, a struct of 32-bit words {mark, lines, bytes, functions, all_lines,
all_bytes, all_functions}: storing 1 to mark starts counting the distinct 16-byte instruction
lines fetched, the distinct instruction bytes executed and the function symbols they belong
to; storing 0 stops and writes the counts since the start (lines, bytes, and the functions'
summed sizes in bytes) and the same over every counted interval (all_*) into the struct for
the program to read. --breakdown prints, after the run, what the model charged in each
probe interval: lines refilled from L2 (18 cycles each), L0 refills from the L1 (2), L2 data
accesses (14) and peripheral accesses (6), every core's fork body included.

On top of corev_iss.py's in-order estimate, every instruction fetch goes through a two-level
instruction cache and every data access pays the latency of the memory it reaches:

* I-cache: the geometry of GVSoC's pulp-open cluster configuration (gvsoc-pulp,
  pulp/chips/pulp_open/cluster.json, "icache"): a private L0 per core of 2^3 sets x 2^2 ways
  x 2^4-byte lines (512 B) and a shared L1 of 2 banks x 2^5 sets x 2^2 ways x 16-byte lines
  (4 KiB; lines interleaved over the banks), each level with a refill latency of 2 cycles.
  Modeled: an L0 hit costs nothing, an L0 miss that hits the L1 costs L0_REFILL (2) cycles,
  a miss in both costs L2_REFILL (18) cycles, the refill of a cold line from L2 as measured
  on GVSoC's pulp-open (not a configuration value). Replacement: least recently used.
* Data: an access to L2 (L2_BASE.., 512 KiB) costs +L2_DATA (14) cycles, an access to the
  cluster peripherals (0x10200000..0x10400000) or the SoC peripherals (0x1A100000..0x1A400000)
  +PERIPHERAL (6) cycles; the TCDM (0x10000000..0x10040000) is single-cycle. Both figures
  were measured on GVSoC's pulp-open, not read from its configuration.

The addresses of an ELF built for the model map (RAM at 0) or QEMU virt are not cluster
addresses: such a run sees only I-cache costs unless `regions` says where its code and data
live (see Timing; on the command line, --region).
"""
import bisect
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corev_iss as base  # noqa: E402

LINE = 16
L0_REFILL = 2
L2_REFILL = 18
L2_DATA = 14
PERIPHERAL = 6
L2_BASE, L2_SIZE = 0x1C000000, 512 << 10
TCDM = (0x10000000, 0x10040000)
PERIPHERALS = ((0x10200000, 0x10400000), (0x1A100000, 0x1A400000))


class Cache:
    """Set-associative, LRU, line-granular: access(line) -> hit."""

    def __init__(self, sets, ways, banks=1):
        self.sets, self.ways, self.banks = sets, ways, banks
        self.tags = [[] for _ in range(sets * banks)]  # most recently used last

    def access(self, line):
        bank = line % self.banks
        rest = line // self.banks
        s = self.tags[bank * self.sets + rest % self.sets]
        tag = rest // self.sets
        if tag in s:
            s.remove(tag)
            s.append(tag)
            return True
        if len(s) == self.ways:
            s.pop(0)
        s.append(tag)
        return False


class Timing:
    """The cluster costs of one core: fetch(pc) and data(addr) return extra cycles.
    `regions` maps (start, end) address ranges to 'l2', 'tcdm' or 'peripheral'."""

    def __init__(self, regions=None):
        self.l0 = Cache(8, 4)
        self.l1 = Cache(32, 4, banks=2)
        self.regions = regions if regions is not None else (
            [((L2_BASE, L2_BASE + L2_SIZE), "l2"), (TCDM, "tcdm")] +
            [(r, "peripheral") for r in PERIPHERALS])
        self.stats = {"l0_miss": 0, "l1_miss": 0, "l2_data": 0, "peripheral": 0}
        self.counting = False  # the probe's distinct lines and instruction bytes
        self.lines, self.pcs = set(), {}

    def fetch(self, pc, size):
        extra = 0
        lines = {pc // LINE, (pc + size - 1) // LINE}
        if self.counting:
            self.lines |= lines
            self.pcs[pc] = size
        for line in lines:
            if self.l0.access(line):
                continue
            self.stats["l0_miss"] += 1
            if self.l1.access(line):
                extra += L0_REFILL
            else:
                self.stats["l1_miss"] += 1
                extra += L2_REFILL
        return extra

    def data(self, addr):
        for (lo, hi), kind in self.regions:
            if lo <= addr < hi:
                if kind == "l2":
                    self.stats["l2_data"] += 1
                    return L2_DATA
                if kind == "peripheral":
                    self.stats["peripheral"] += 1
                    return PERIPHERAL
                return 0
        return 0


class ClusterMachine(base.Machine):
    """corev_iss's Machine with the cluster costs: each decoded instruction charges its fetch,
    each load and store its data latency."""

    def __init__(self, image, entry, timing):
        super().__init__(image, entry)
        self.timing = timing
        self.probe = None  # the probe's address
        self.probe_functions = {}
        self.all_lines, self.all_pcs = set(), {}
        self.intervals = []  # per probe interval: the timing's stats charged in it
        self.stats0 = None

    def decode(self, pc):
        fn, size, reads, load_rd = super().decode(pc)
        t = self.timing

        def timed(m, pc):
            m.cycles += t.fetch(pc, size)
            return fn(m, pc)
        return timed, size, reads, load_rd

    def load(self, addr, size, signed):
        self.cycles += self.timing.data(addr & base.MASK)
        return super().load(addr, size, signed)

    def store(self, addr, size, v):
        self.cycles += self.timing.data(addr & base.MASK)
        super().store(addr, size, v)
        if self.probe is not None and addr & base.MASK == self.probe:
            self.probe_mark(v & base.MASK)

    def probe_mark(self, v):
        t = self.timing
        if v == 1:
            t.counting, t.lines, t.pcs = True, set(), {}
            self.stats0 = dict(t.stats)
            return
        t.counting = False
        if self.stats0 is not None:
            self.intervals.append({k: t.stats[k] - self.stats0[k] for k in t.stats})
            self.stats0 = None
        self.all_lines |= t.lines
        self.all_pcs.update(t.pcs)
        words = (len(t.lines), sum(t.pcs.values()), self.function_bytes(t.pcs),
                 len(self.all_lines), sum(self.all_pcs.values()),
                 self.function_bytes(self.all_pcs))
        for i, w in enumerate(words):
            super().store(self.probe + 4 + 4 * i, 4, w)

    def function_bytes(self, pcs):
        """The summed sizes of the function symbols holding the addresses pcs."""
        starts = [a for a, _, _ in self.probe_functions]
        seen = {}
        for pc in pcs:
            k = bisect.bisect_right(starts, pc) - 1
            if k >= 0:
                a, size, _ = self.probe_functions[k]
                if pc < a + size:
                    seen[a] = size
        return sum(seen.values())


def breakdown_lines(intervals):
    """One line per probe interval: what the model charged in it, by kind."""
    out = []
    for i, s in enumerate(intervals, 1):
        refills = s["l0_miss"] - s["l1_miss"]
        out.append(f"breakdown {i}: {s['l1_miss']} lines from L2 ({s['l1_miss'] * L2_REFILL} "
                   f"cycles), {refills} L0 refills ({refills * L0_REFILL}), {s['l2_data']} L2 "
                   f"data accesses ({s['l2_data'] * L2_DATA}), {s['peripheral']} peripheral "
                   f"accesses ({s['peripheral'] * PERIPHERAL})\n")
    return out


def program(words, base_addr=0x80):
    """An image of 32-bit words at base_addr."""
    return [(base_addr, b"".join(w.to_bytes(4, "little") for w in words))]


def addi(rd, rs1, imm):
    return ((imm & 0xFFF) << 20) | (rs1 << 15) | (rd << 7) | 0x13


def lw(rd, rs1, imm):
    return ((imm & 0xFFF) << 20) | (rs1 << 15) | (2 << 12) | (rd << 7) | 0x03


def sw(rs2, rs1, imm):
    return (((imm >> 5) & 0x7F) << 25) | (rs2 << 20) | (rs1 << 15) | (2 << 12) | \
        ((imm & 31) << 7) | 0x23


def lui(rd, imm20):
    return (imm20 << 12) | (rd << 7) | 0x37


def bne(rs1, rs2, off):
    o = off & 0x1FFF
    return (((o >> 12) & 1) << 31) | (((o >> 5) & 63) << 25) | (rs2 << 20) | (rs1 << 15) | \
        (1 << 12) | (((o >> 1) & 15) << 8) | (((o >> 11) & 1) << 7) | 0x63


def run(words, regions, decode32=None):
    """Runs words from 0x80 on the model map until the exit store; returns (cycles, stats)."""
    t = Timing(regions)
    m = ClusterMachine(program(words), 0x80, t)
    if decode32 is not None:
        m.decode32 = decode32
    m.x[2] = m.base + m.size
    try:
        m.run(limit=100000)
    except base.Exit:
        pass
    return m.cycles, m.instret, t.stats


def self_test():
    """Small programs whose cycles are counted by hand from the figures of the module's
    documentation (18, 2, 14, 6: written out, not the constants). The store that
    ends a run is fetched (its line is charged) but neither counted nor timed."""
    exit_seq = [lui(5, 0x20000), sw(0, 5, 0)]  # store to 0x20000000 ends the run
    bad = 0

    def check(name, got, want):
        nonlocal bad
        ok = got == want
        bad += not ok
        print(f"{name}: {got} cycles, by hand {want} {'ok' if ok else 'FAIL'}")

    # 1. Straight line: 6 addi + lui + sw = 8 instructions = 32 bytes from 0x80: lines 0x80 and
    #    0x90, both cold: 8 + 2 x 18.
    cyc, n, _ = run([addi(1, 1, 1)] * 6 + exit_seq, [])
    check("straight line, 2 cold lines", cyc, 7 + 2 * 18)
    assert n == 7, n
    # 2. A loop of 4 instructions (one line, 0x90..0x9f) run 10 times: the line is cold once.
    #    0x80: addi x1, x0, 10; 3 x addi x0 (pad to 0x90); 0x90: addi x2, x2, 1;
    #    addi x1, x1, -1; addi x0, x0, 0; bne x1, x0, -12 (to 0x94? no: to 0x90 is -12 from
    #    0x9c); 0xa0: lui; 0xa4: sw (the exit). Instructions: 4 + 10 x 4 + 1 = 45; taken
    #    branches: 9 x 2; lines 0x80, 0x90, 0xa0 cold: 3 x 18.
    loop = [addi(1, 0, 10), addi(0, 0, 0), addi(0, 0, 0), addi(0, 0, 0),
            addi(2, 2, 1), addi(1, 1, -1), addi(0, 0, 0), bne(1, 0, -12)] + exit_seq
    cyc, n, _ = run(loop, [])
    check("loop in one line, 10 iterations", cyc, 45 + 9 * 2 + 3 * 18)
    assert n == 45, n
    # 3. Data latencies: a load from L2 (+14), a store to a peripheral (+6), a load from the
    #    TCDM (+0), each followed by an independent instruction (no load-use stall).
    #    Regions (test map): L2 0x4000.., TCDM 0x8000.., peripheral 0xC000... Instructions:
    #    lui x3, 0 ; addi x3, x3, 0x400 (x3 = 0x400); lw x4, 0x3c00(x3) -> 0x4000 (L2);
    #    addi; sw x4, ... (0xC000 = 0x400 + 0xBC00: out of imm range, so build x6 = 0xC000)
    regions = [((0x4000, 0x8000), "l2"), ((0x8000, 0xC000), "tcdm"),
               ((0xC000, 0xD000), "peripheral")]
    words = [lui(3, 0x4), lw(4, 3, 0), addi(0, 0, 0), lui(6, 0xC), sw(4, 6, 0),
             lui(7, 0x8), lw(8, 7, 0), addi(0, 0, 0)] + exit_seq
    # 10 instructions = 40 bytes from 0x80: lines 0x80, 0x90, 0xa0 cold.
    cyc, n, st = run(words, regions)
    check("L2 load, peripheral store, TCDM load", cyc, 9 + 3 * 18 + 14 + 6)
    assert n == 9, n
    # 4. The L0 holds 8 sets x 4 ways: 5 lines mapping to one L0 set (line indices 8 apart, 128
    #    bytes) evict each other from the L0 but stay in the L1 (32 sets x 2 banks): a second
    #    pass over them costs 5 x L0_REFILL, the first 5 x L2_REFILL. Jumps chain the lines.
    def jal(rd, off):
        o = off & 0x1FFFFF
        return (((o >> 20) & 1) << 31) | (((o >> 1) & 0x3FF) << 21) | (((o >> 11) & 1) << 20) \
            | (((o >> 12) & 0xFF) << 12) | (rd << 7) | 0x6F
    img = {}
    # line k at 0x100 + 128 k (k = 0..4): jal x0, +128 (the last: addi x9, x9, 1; bne to start)
    for k in range(5):
        a = 0x100 + 128 * k
        img[a] = jal(0, 128) if k < 4 else bne(9, 10, -(a - 0x100) + 0)
    # start at 0x80: x10 = 2 (passes), x9 counts: line 4 increments then branches back.
    words = {0x80: addi(10, 0, 2), 0x84: jal(0, 0x100 - 0x84)}
    img[0x100 + 128 * 4] = addi(9, 9, 1)
    img[0x100 + 128 * 4 + 4] = bne(9, 10, -(128 * 4 + 4))
    img[0x100 + 128 * 4 + 8] = lui(5, 0x20000)
    img[0x100 + 128 * 4 + 12] = sw(0, 5, 0)
    img.update(words)
    lo, hi = min(img), max(img) + 4
    flat = [img.get(a, addi(0, 0, 0)) for a in range(lo, hi, 4)]
    t = Timing([])
    m = ClusterMachine(program(flat, lo), 0x80, t)
    m.x[2] = m.base + m.size
    try:
        m.run(limit=10000)
    except base.Exit:
        pass
    # Instructions: addi, jal, then per pass: 4 jal + addi + bne = 6 (2 passes), then lui (the
    # exit store uncounted): 2 + 12 + 1 = 15. Control transfers: jal +1 each (1 + 8), bne
    # taken once (+2). Lines (16-byte line indices 8, 16, 24, 32, 40, 48: all L0 set 0, all
    # different L1 sets): the 6 cold on pass 1; then the L0 set holds 24..48 and pass 2 misses
    # each of 16..48 in the L0 (LRU evicts the next one needed) and hits the L1: 5 x 2.
    want = 15 + 9 + 2 + 6 * 18 + 5 * 2
    check("L0 conflict, L1 hit", m.cycles, want)
    assert m.instret == 15, m.instret
    # 5. The code-fetch probe (probe struct at 0x4000; one function symbol 0x80..0xc0):
    #    0x80: lui x5, 4; 0x84: addi x6, x0, 1; 0x88: sw x6, 0(x5) starts counting (its own
    #    fetch came before); 0x8c: addi; 0x90..0x9c: 4 x addi; 0xa0: sw x0, 0(x5) stops (its
    #    fetch counted). Counted: 6 instructions of 4 bytes = 24 bytes, lines 0x80, 0x90, 0xa0 = 3;
    #    functions: the one symbol, 64 bytes. The second interval (0xa4: sw x6 starts, 0xa8:
    #    addi, 0xac: sw x0 stops: 2 instructions, 8 bytes, line 0xa0) leaves lines 1, bytes 8,
    #    and over both intervals 3 lines (0xa0 again), 32 bytes, 64 function bytes.
    words = [lui(5, 4), addi(6, 0, 1), sw(6, 5, 0), addi(1, 1, 1)] + [addi(1, 1, 1)] * 4 + \
        [sw(0, 5, 0), sw(6, 5, 0), addi(1, 1, 1), sw(0, 5, 0)] + exit_seq
    def probed(regions):
        """The machine after running `words` with the probe at 0x4000."""
        m = ClusterMachine(program(words), 0x80, Timing(regions))
        m.probe, m.probe_functions = 0x4000, [(0x80, 0x40, "f")]
        m.x[2] = m.base + m.size
        try:
            m.run(limit=1000)
        except base.Exit:
            pass
        return m
    m = probed([])
    got = [m.load(0x4004 + 4 * i, 4, False) for i in range(6)]
    want = [1, 8, 64, 3, 32, 64]
    ok = got == want
    bad += not ok
    print(f"probe: {got}, by hand {want} {'ok' if ok else 'FAIL'}")
    # 6. The breakdown of the same program with the probe a peripheral: interval 1 fetches
    #    lines 0x90 and 0xa0 cold and its closing store reaches the peripheral (the opening
    #    store's access comes before the interval starts); interval 2 only its closing store.
    got = probed([((0x4000, 0x4100), "peripheral")]).intervals
    want = [{"l0_miss": 2, "l1_miss": 2, "l2_data": 0, "peripheral": 1},
            {"l0_miss": 0, "l1_miss": 0, "l2_data": 0, "peripheral": 1}]
    ok = got == want
    bad += not ok
    print(f"breakdown: {got}, by hand {want} {'ok' if ok else 'FAIL'}")
    # 7. --region ranges from symbols.
    syms = {"a": (0x100, 4), "b": (0x200, 0)}
    got = [parse_region("tcdm=a+0x10:b", syms), parse_region("peripheral=a", syms),
           parse_region("l2=0x10:b-0x100", syms)]
    want = [((0x110, 0x200), "tcdm"), ((0x100, 0x104), "peripheral"), ((0x10, 0x100), "l2")]
    ok = got == want
    bad += not ok
    print(f"regions: {got} {'ok' if ok else 'FAIL'}")
    print("cluster timing ok" if bad == 0 else "cluster timing FAIL")
    return 1 if bad else 0


def load_symbols(path):
    """name -> (address, size) of every named symbol of a 32-bit ELF."""
    data = open(path, "rb").read()
    shoff, = struct.unpack_from("<I", data, 32)
    shentsize, shnum = struct.unpack_from("<HH", data, 46)
    sections = [struct.unpack_from("<IIIIIIIIII", data, shoff + i * shentsize)
                for i in range(shnum)]
    symbols = {}
    for sec in sections:
        if sec[1] != 2:  # SHT_SYMTAB
            continue
        strtab = sections[sec[6]]
        for off in range(sec[4], sec[4] + sec[5], 16):
            name, value, size = struct.unpack_from("<III", data, off)
            end = data.index(b"\0", strtab[4] + name)
            if end > strtab[4] + name:
                symbols[data[strtab[4] + name:end].decode()] = (value, size)
    return symbols


def parse_region(spec, symbols):
    """KIND=RANGE (see the module's documentation) -> ((lo, hi), kind)."""
    kind, _, rng = spec.partition("=")
    if kind not in ("l2", "tcdm", "peripheral") or not rng:
        raise SystemExit(f"--region {spec}: want l2|tcdm|peripheral=SYMBOL or =LO:HI")

    def address(a):
        for sep in "+-":
            if sep in a[1:]:
                name, _, n = a.rpartition(sep)
                return address(name) + (int(n, 0) if sep == "+" else -int(n, 0))
        if a in symbols:
            return symbols[a][0]
        try:
            return int(a, 0)
        except ValueError:
            raise SystemExit(f"--region {spec}: no symbol {a} in the ELF") from None
    if ":" in rng:
        lo, hi = (address(a) for a in rng.split(":", 1))
    elif rng in symbols:
        lo = symbols[rng][0]
        hi = lo + symbols[rng][1]
    else:
        raise SystemExit(f"--region {spec}: no symbol {rng} in the ELF")
    if hi <= lo:
        raise SystemExit(f"--region {spec}: empty range {lo:#x}:{hi:#x}")
    return (lo, hi), kind


def main():
    args = sys.argv[1:]
    if "--self-test" in args:
        return self_test()
    path = args[-1]
    regions, probe = [], None
    i = 0
    while i < len(args) - 1:
        if args[i] == "--breakdown":
            i += 1
        elif args[i] in ("--region", "--probe") and i + 1 < len(args) - 1:
            if args[i] == "--region":
                regions.append(args[i + 1])
            else:
                probe = args[i + 1]
            i += 2
        elif args[i] == "--corev":
            i += 1
        else:
            raise SystemExit(f"unknown argument {args[i]}")
    image, entry = base.load_elf(path)
    symbols = load_symbols(path) if regions or probe else {}
    t = Timing([parse_region(r, symbols) for r in regions] if regions else None)
    m = ClusterMachine(image, entry, t)
    if probe is not None:
        if probe not in symbols:
            raise SystemExit(f"--probe {probe}: no symbol {probe} in the ELF")
        m.probe = symbols[probe][0]
        m.probe_functions = base.load_functions(path)
    if "--corev" not in args[:-1]:
        import xpulpv2_iss
        xpulpv2_iss.configure(m)
    m.x[2] = m.base + m.size
    code = 0
    try:
        m.run()
    except base.Exit as e:
        code = e.code
    sys.stdout.write("".join(m.out))
    if "--breakdown" in args[:-1]:
        sys.stdout.write("".join(breakdown_lines(m.intervals)))
    sys.stdout.write(f"cluster: {t.stats}\n")
    sys.stdout.write(f"iss: {m.instret} instructions executed in total, exit code {code}\n")
    return code


if __name__ == "__main__":
    sys.exit(main())
