#!/usr/bin/env python3
"""A small instruction-set simulator for the CORE-V builds of the kernel test programs.

Usage: corev_iss.py [--profile] ELF

With --profile, the instructions and estimated cycles spent while the counters run (between
`csrw mcountinhibit, 0` and the end) are printed per function of the ELF's symbol table, and
per instruction address for the hottest addresses.

QEMU cannot execute CORE-V instructions, so this runs the freestanding cycle programs of
bench/kernels/cycles (model memory map: RAM at 0x0, entry 0x80, a byte stored to 0x10000000
is printed, a word stored to 0x20000000 ends the run) and the picolibc test program of
tests/cross (QEMU virt's layout from 0x80000000, output and exit through the semihosting
calls picolibc makes) on an interpreter of RV32IMC, Zicsr
(mcycle, minstret, mcountinhibit) and the CORE-V instructions the kernels use (xcvmem
post-increment and register-offset loads/stores, xcvbi immediate branches, xcvalu min/max/
clip and add-and-shift, xcvsimd 8-bit dot products, max and byte packing, xcvmac, and cv.setup
hardware loops), as described in the CV32E40P v2 user manual. It checks that the inline assembly computes what the portable
code computes (each program compares with its own reference and prints ok=0/1) and counts
instructions exactly. `mcycle` follows a simple in-order timing model (1 cycle per
instruction, +1 after a load whose result the next instruction uses, +2 for a taken branch,
+1 for jal, +2 for jalr, 5 for mulh*, 35 for div/rem, +1 for a misaligned access): an
estimate, not a cycle-accurate model. The exit code is the program's.
"""
import struct
import sys

MASK = 0xFFFFFFFF
RAM_SIZE = 1 << 20


def sx(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def s32(v):
    return sx(v, 32)


class Exit(Exception):
    def __init__(self, code):
        super().__init__(code)
        self.code = code


class Machine:
    def __init__(self, image, entry):
        # The core model's map (RAM at 0x0), or QEMU virt's (flash and RAM from 0x80000000,
        # semihosting) for programs linked with the picolibc toolchain files.
        self.base = 0x80000000 if entry >= 0x80000000 else 0
        self.size = (4 << 20) if self.base else RAM_SIZE
        self.mem = bytearray(self.size)
        for addr, data in image:
            self.mem[addr - self.base:addr - self.base + len(data)] = data
        self.x = [0] * 32
        self.pc = entry
        self.instret = 0
        self.cycles = 0
        self.inhibit = 7
        self.base_instret = 0
        self.base_cycles = 0
        self.lp = [[0, 0, 0], [0, 0, 0]]  # start, end, count
        self.out = []
        self.last_load_rd = 0
        self.cache = {}
        self.profile = None  # pc -> [instructions, cycles] while the counters run
        self.loop_end_last = False
        self.decode32 = decode32

    # Memory.
    def load(self, addr, size, signed):
        addr = (addr & MASK) - self.base
        if addr < 0 or addr + size > self.size:
            raise RuntimeError(f"load outside RAM at {addr + self.base:#x}, pc {self.pc:#x}")
        v = int.from_bytes(self.mem[addr:addr + size], "little")
        if addr % size:
            self.cycles += 1
        return sx(v, 8 * size) & MASK if signed else v

    def store(self, addr, size, v):
        addr &= MASK
        if addr == 0x10000000:
            self.out.append(chr(v & 0xFF))
            return
        if addr == 0x20000000 and not self.base:
            raise Exit(v & MASK)
        addr -= self.base
        if addr < 0 or addr + size > self.size:
            raise RuntimeError(f"store outside RAM at {addr + self.base:#x}, pc {self.pc:#x}")
        if addr % size:
            self.cycles += 1
        self.mem[addr:addr + size] = (v & ((1 << (8 * size)) - 1)).to_bytes(size, "little")

    def csr(self, n, new=None):
        counting = not (self.inhibit & 1)
        if n == 0xB00 or n == 0xC00:
            old = self.cycles - self.base_cycles if counting else 0
        elif n == 0xB02 or n == 0xC02:
            old = self.instret - self.base_instret if counting else 0
        elif n == 0x320:
            old = self.inhibit
            if new is not None:
                if (self.inhibit & 1) and not (new & 1):
                    self.base_cycles, self.base_instret = self.cycles, self.instret
                self.inhibit = new
            return old
        else:
            old = 0
        return old & MASK

    def run(self, limit=400_000_000):
        x = self.x
        while self.instret < limit:
            pc = self.pc
            op = self.cache.get(pc)
            if op is None:
                op = self.decode(pc)
                self.cache[pc] = op
            fn, size, reads, rd_load = op
            c0 = self.cycles
            if self.last_load_rd and self.last_load_rd in reads:
                self.cycles += 1
            self.last_load_rd = 0
            nxt = fn(self, pc)
            x[0] = 0
            self.instret += 1
            self.cycles += 1
            if self.profile is not None and not (self.inhibit & 1):
                e = self.profile.setdefault(pc, [0, 0])
                e[0] += 1
                e[1] += self.cycles - c0
            if nxt is None:
                nxt = pc + size
                # Hardware loops: the last instruction of a body jumps back while count > 1.
                # CORE-V's end is the first address after the body; PULP v2's (loop_end_last)
                # is the last instruction's, and loop 1 is checked when loop 0 did not jump.
                at = pc if self.loop_end_last else nxt
                for lp in self.lp:
                    if lp[2] and at == lp[1]:
                        if lp[2] > 1:
                            lp[2] -= 1
                            nxt = lp[0]
                            break
                        lp[2] = 0
                        if not self.loop_end_last:
                            break
            self.last_load_rd = rd_load
            self.pc = nxt & MASK
        raise RuntimeError("instruction limit reached")

    # Decoding: each instruction becomes (function(machine, pc) -> next pc or None, size,
    # registers read, register loaded).
    def decode(self, pc):
        a = pc - self.base
        lo = self.mem[a] | (self.mem[a + 1] << 8)
        if lo & 3 != 3:
            return decode_c(lo, pc)
        w = lo | (self.mem[a + 2] << 16) | (self.mem[a + 3] << 24)
        return self.decode32(w, pc)


def bad(kind, w, pc):
    raise RuntimeError(f"unsupported {kind} instruction {w:#010x} at {pc:#x}")


def decode32(w, pc):
    opc = w & 0x7F
    rd = (w >> 7) & 31
    f3 = (w >> 12) & 7
    rs1 = (w >> 15) & 31
    rs2 = (w >> 20) & 31
    f7 = w >> 25
    imm_i = sx(w >> 20, 12)
    imm_s = sx(((w >> 25) << 5) | ((w >> 7) & 31), 12)
    imm_b = sx((((w >> 31) & 1) << 12) | (((w >> 7) & 1) << 11) | (((w >> 25) & 63) << 5) |
               (((w >> 8) & 15) << 1), 13)
    imm_u = w & 0xFFFFF000
    imm_j = sx((((w >> 31) & 1) << 20) | (((w >> 12) & 255) << 12) | (((w >> 20) & 1) << 11) |
               (((w >> 21) & 1023) << 1), 21)

    def op(fn, reads=(), load_rd=0):
        return fn, 4, tuple(r for r in reads if r), load_rd

    if opc == 0x37:
        def f(m, pc):
            m.x[rd] = imm_u
        return op(f)
    if opc == 0x17:
        def f(m, pc):
            m.x[rd] = (pc + imm_u) & MASK
        return op(f)
    if opc == 0x6F:
        def f(m, pc):
            m.x[rd] = pc + 4
            m.cycles += 1
            return pc + imm_j
        return op(f)
    if opc == 0x67:
        def f(m, pc):
            t = (m.x[rs1] + imm_i) & ~1
            m.x[rd] = pc + 4
            m.cycles += 2
            return t
        return op(f, (rs1,))
    if opc == 0x63:
        cmp = {0: lambda a, b: a == b, 1: lambda a, b: a != b,
               4: lambda a, b: s32(a) < s32(b), 5: lambda a, b: s32(a) >= s32(b),
               6: lambda a, b: a < b, 7: lambda a, b: a >= b}[f3]

        def f(m, pc):
            if cmp(m.x[rs1], m.x[rs2]):
                m.cycles += 2
                return pc + imm_b
        return op(f, (rs1, rs2))
    if opc == 0x03:
        size, signed = {0: (1, True), 1: (2, True), 2: (4, False), 4: (1, False),
                        5: (2, False)}[f3]

        def f(m, pc):
            m.x[rd] = m.load(m.x[rs1] + imm_i, size, signed)
        return op(f, (rs1,), rd)
    if opc == 0x23:
        size = 1 << f3

        def f(m, pc):
            m.store(m.x[rs1] + imm_s, size, m.x[rs2])
        return op(f, (rs1, rs2))
    if opc == 0x13:
        sh = rs2
        fn = {0: lambda a: a + imm_i, 2: lambda a: int(s32(a) < imm_i),
              3: lambda a: int(a < (imm_i & MASK)), 4: lambda a: a ^ (imm_i & MASK),
              6: lambda a: a | (imm_i & MASK), 7: lambda a: a & (imm_i & MASK),
              1: lambda a: a << sh,
              5: (lambda a: s32(a) >> sh) if f7 & 0x20 else (lambda a: a >> sh)}[f3]

        def f(m, pc):
            m.x[rd] = fn(m.x[rs1]) & MASK
        return op(f, (rs1,))
    if opc == 0x33:
        if f7 == 1:
            def mulh(a, b):
                return (s32(a) * s32(b)) >> 32

            def div(a, b):
                a, b = s32(a), s32(b)
                if b == 0:
                    return -1
                if a == -(1 << 31) and b == -1:
                    return a
                q = abs(a) // abs(b)
                return q if (a < 0) == (b < 0) else -q

            def rem(a, b):
                a, b = s32(a), s32(b)
                if b == 0:
                    return a
                if a == -(1 << 31) and b == -1:
                    return 0
                r = abs(a) % abs(b)
                return -r if a < 0 else r
            fn = {0: lambda a, b: a * b, 1: mulh, 2: lambda a, b: (s32(a) * b) >> 32,
                  3: lambda a, b: (a * b) >> 32, 4: div,
                  5: lambda a, b: (a // b) if b else MASK, 6: rem,
                  7: lambda a, b: (a % b) if b else a}[f3]
            extra = 0 if f3 == 0 else (4 if f3 < 4 else 34)
        else:
            fn = {(0, 0): lambda a, b: a + b, (0, 0x20): lambda a, b: a - b,
                  (1, 0): lambda a, b: a << (b & 31),
                  (2, 0): lambda a, b: int(s32(a) < s32(b)), (3, 0): lambda a, b: int(a < b),
                  (4, 0): lambda a, b: a ^ b, (5, 0): lambda a, b: a >> (b & 31),
                  (5, 0x20): lambda a, b: s32(a) >> (b & 31), (6, 0): lambda a, b: a | b,
                  (7, 0): lambda a, b: a & b}.get((f3, f7))
            if fn is None:
                bad("OP", w, pc)
            extra = 0

        def f(m, pc):
            m.x[rd] = fn(m.x[rs1], m.x[rs2]) & MASK
            m.cycles += extra
        return op(f, (rs1, rs2))
    if opc == 0x73:
        if w == 0x00100073:  # ebreak: a semihosting call when framed by the magic shifts
            def f(m, pc):
                if m.load(pc - 4, 4, False) != 0x01F01013 or m.load(pc + 4, 4, False) != 0x40705013:
                    raise RuntimeError(f"ebreak at {pc:#x}")
                m.x[10] = semihost(m, m.x[10], m.x[11]) & MASK
            return op(f, (10, 11))
        if f3 == 0:
            bad("SYSTEM", w, pc)
        n = (w >> 20) & 0xFFF

        def f(m, pc):
            src = m.x[rs1] if f3 < 4 else rs1
            old = m.csr(n)
            if f3 & 3 == 1:
                m.csr(n, src)
            elif f3 & 3 == 2 and rs1:
                m.csr(n, old | src)
            elif f3 & 3 == 3 and rs1:
                m.csr(n, old & ~src)
            m.x[rd] = old
        return op(f, (rs1,))
    if opc == 0x0F:
        return op(lambda m, pc: None)
    if opc == 0x0B:  # custom-0: post-increment loads (immediate), immediate branches
        if f3 in (0, 1, 2, 4, 5):
            size, signed = {0: (1, True), 1: (2, True), 2: (4, False), 4: (1, False),
                            5: (2, False)}[f3]

            def f(m, pc):
                a = m.x[rs1]
                m.x[rs1] = (a + imm_i) & MASK
                m.x[rd] = m.load(a, size, signed)
            return op(f, (rs1,), rd)
        if f3 in (6, 7):
            k = sx(rs2, 5) & MASK
            eq = f3 == 6

            def f(m, pc):
                if (m.x[rs1] == k) == eq:
                    m.cycles += 2
                    return pc + imm_b
            return op(f, (rs1,))
        bad("custom-0", w, pc)
    if opc == 0x2B:  # custom-1
        if f3 in (0, 1, 2):  # cv.sb/sh/sw rs2, (rs1), imm: post-increment
            size = 1 << f3

            def f(m, pc):
                a = m.x[rs1]
                m.store(a, size, m.x[rs2])
                m.x[rs1] = (a + imm_s) & MASK
            return op(f, (rs1, rs2))
        if f3 == 3:
            return decode_reg_reg(w, pc, rd, rs1, rs2, f7, op)
        if f3 == 4:  # hardware loops
            sub = (w >> 8) & 15
            L = (w >> 7) & 1
            uimm = (w >> 20) & 0xFFF
            if sub == 7:  # cv.setup L, rs1, uimm
                def f(m, pc):
                    m.lp[L] = [pc + 4, pc + 4 * uimm, m.x[rs1]]
                return op(f, (rs1,))
            if sub == 6:  # cv.setupi L, uimm(count), uimmS(end)
                def f(m, pc):
                    m.lp[L] = [pc + 4, pc + 4 * rs1, uimm]
                return op(f)
            bad("hardware-loop", w, pc)
        bad("custom-1", w, pc)
    if opc == 0x7B:  # custom-3: SIMD
        funct6 = w >> 26
        if f3 == 1:  # .b vector-vector
            return decode_simd(w, pc, rd, rs1, rs2, funct6, op)
        bad("SIMD", w, pc)
    bad("", w, pc)


def semihost(m, call, arg):
    """The few semihosting calls picolibc's stdio and exit make."""
    def word(i):
        return m.load(arg + 4 * i, 4, False)
    if call == 0x01:  # SYS_OPEN
        return 1
    if call in (0x02, 0x0C, 0x13):  # SYS_CLOSE, SYS_FLEN, SYS_ERRNO
        return 0
    if call == 0x09:  # SYS_ISTTY
        return 1
    if call == 0x03:  # SYS_WRITEC
        m.out.append(chr(m.load(arg, 1, False)))
        return 0
    if call == 0x04:  # SYS_WRITE0
        while True:
            c = m.load(arg, 1, False)
            if c == 0:
                return 0
            m.out.append(chr(c))
            arg += 1
    if call == 0x05:  # SYS_WRITE: handle, buffer, length
        buf, n = word(1), word(2)
        m.out.append(bytes(m.load(buf + i, 1, False) for i in range(n)).decode("latin-1"))
        return 0
    if call == 0x18:  # SYS_EXIT: reason (0x20026 = application exit)
        raise Exit(0 if arg == 0x20026 else 1)
    if call == 0x20:  # SYS_EXIT_EXTENDED: reason, code
        raise Exit(word(1))
    if call == 0x15:  # SYS_GET_CMDLINE: none
        return -1
    if call in (0x10, 0x11):  # SYS_CLOCK, SYS_TIME
        return m.instret
    raise RuntimeError(f"semihosting call {call:#x} not supported")


def lanes_u(v):
    return [(v >> (8 * i)) & 0xFF for i in range(4)]


def lanes_s(v):
    return [sx(v >> (8 * i), 8) for i in range(4)]


def decode_simd(w, pc, rd, rs1, rs2, funct6, op):
    # funct6 of the 8-bit vector-vector forms, as llvm-mc-19 encodes them.
    dot = lambda la, lb: lambda a, b, c: sum(x * y for x, y in zip(la(a), lb(b)))  # noqa: E731
    table = {
        0b100000: ("dotup", dot(lanes_u, lanes_u)),
        0b100010: ("dotusp", dot(lanes_u, lanes_s)),
        0b100100: ("dotsp", dot(lanes_s, lanes_s)),
        0b100110: ("sdotup", lambda a, b, c: c + dot(lanes_u, lanes_u)(a, b, c)),
        0b101000: ("sdotusp", lambda a, b, c: c + dot(lanes_u, lanes_s)(a, b, c)),
        0b101010: ("sdotsp", lambda a, b, c: c + dot(lanes_s, lanes_s)(a, b, c)),
        0b001110: ("maxu", lambda a, b, c: sum(max(x, y) << (8 * i) for i, (x, y) in
                                               enumerate(zip(lanes_u(a), lanes_u(b))))),
        0b001010: ("minu", lambda a, b, c: sum(min(x, y) << (8 * i) for i, (x, y) in
                                               enumerate(zip(lanes_u(a), lanes_u(b))))),
    }
    if funct6 == 0b111110:  # cv.packlo.b / cv.packhi.b: two bytes into rd, the others kept
        at = 16 if (w >> 25) & 1 else 0

        def f(m, pc):
            keep = m.x[rd] & ~(0xFFFF << at)
            pair = ((m.x[rs1] & 0xFF) << 8) | (m.x[rs2] & 0xFF)
            m.x[rd] = (keep | (pair << at)) & MASK
        return op(f, (rs1, rs2, rd))
    name, fn = table.get(funct6, (None, None))
    if fn is None:
        bad("SIMD", w, pc)

    def f(m, pc):
        m.x[rd] = fn(m.x[rs1], m.x[rs2], m.x[rd]) & MASK
    return op(f, (rs1, rs2, rd))


def decode_reg_reg(w, pc, rd, rs1, rs2, f7, op):
    if f7 < 0b0001000 or 0b0001000 <= f7 < 0b0010000:  # register loads
        indexed = (f7 >> 2) & 1
        unsigned = (f7 >> 3) & 1
        size = {0: 1, 1: 2, 2: 4}[f7 & 3]
        signed = not unsigned and size < 4

        def f(m, pc):
            a = m.x[rs1]
            v = m.load(a + m.x[rs2], size, signed) if indexed else m.load(a, size, signed)
            if not indexed:
                m.x[rs1] = (a + m.x[rs2]) & MASK
            m.x[rd] = v
        return op(f, (rs1, rs2), rd)
    if 0b0010000 <= f7 < 0b0011000:  # register stores: data rs2, offset in rd field (rs3)
        indexed = (f7 >> 2) & 1
        size = {0: 1, 1: 2, 2: 4}[f7 & 3]

        def f(m, pc):
            a = m.x[rs1]
            if indexed:
                m.store(a + m.x[rd], size, m.x[rs2])
            else:
                m.store(a, size, m.x[rs2])
                m.x[rs1] = (a + m.x[rd]) & MASK
            return None
        return f, 4, tuple(r for r in (rs1, rs2, rd) if r), 0
    if 0b0100000 <= f7 < 0b1000000:  # general ALU
        sub = f7 & 31
        imm5 = rs2
        fns = {
            0b01011: lambda a, b: min(s32(a), s32(b)),           # cv.min
            0b01100: lambda a, b: min(a, b),                     # cv.minu
            0b01101: lambda a, b: max(s32(a), s32(b)),           # cv.max
            0b01110: lambda a, b: max(a, b),                     # cv.maxu
            0b01000: lambda a, b: abs(s32(a)),                   # cv.abs
            0b01001: lambda a, b: int(s32(a) <= s32(b)),         # cv.slet
            0b01010: lambda a, b: int(a <= b),                   # cv.sletu
            0b10000: lambda a, b: sx(a, 16),                     # cv.exths
            0b10001: lambda a, b: a & 0xFFFF,                    # cv.exthz
            0b10010: lambda a, b: sx(a, 8),                      # cv.extbs
            0b10011: lambda a, b: a & 0xFF,                      # cv.extbz
            0b11011: lambda a, b: 0 if s32(a) <= 0 else (b if s32(a) >= s32(b) else a),  # clipur
            0b11001: lambda a, b: 0 if s32(a) <= 0 else min(s32(a), (1 << (imm5 - 1)) - 1),
        }
        fn = fns.get(sub)
        if fn is None:
            bad("ALU", w, pc)

        def f(m, pc):
            m.x[rd] = fn(m.x[rs1], m.x[rs2]) & MASK
        return op(f, (rs1, rs2))
    if f7 in (0b1000000, 0b1000001):  # cv.addNr / cv.adduNr: rd = (rd + rs1) >> rs2[4:0]
        arith = f7 == 0b1000000

        def f(m, pc):
            t = (m.x[rd] + m.x[rs1]) & MASK
            m.x[rd] = ((s32(t) if arith else t) >> (m.x[rs2] & 31)) & MASK
        return op(f, (rs1, rs2, rd))
    if f7 in (0b1001000, 0b1001001):  # cv.mac / cv.msu
        sign = 1 if f7 == 0b1001000 else -1

        def f(m, pc):
            m.x[rd] = (m.x[rd] + sign * s32(m.x[rs1]) * s32(m.x[rs2])) & MASK
        return op(f, (rs1, rs2, rd))
    bad("register-register", w, pc)


def decode_c(h, pc):
    q = h & 3
    f3 = h >> 13
    rdp = 8 + ((h >> 2) & 7)
    rs1p = 8 + ((h >> 7) & 7)
    rd = (h >> 7) & 31
    rs2 = (h >> 2) & 31

    def op(fn, reads=(), load_rd=0):
        return fn, 2, tuple(r for r in reads if r), load_rd

    def imm6():
        return sx((((h >> 12) & 1) << 5) | ((h >> 2) & 31), 6)

    def cj():
        i = (((h >> 12) & 1) << 11) | (((h >> 11) & 1) << 4) | (((h >> 9) & 3) << 8) | \
            (((h >> 8) & 1) << 10) | (((h >> 7) & 1) << 6) | (((h >> 6) & 1) << 7) | \
            (((h >> 3) & 7) << 1) | (((h >> 2) & 1) << 5)
        return sx(i, 12)

    def cb():
        i = (((h >> 12) & 1) << 8) | (((h >> 10) & 3) << 3) | (((h >> 5) & 3) << 6) | \
            (((h >> 3) & 3) << 1) | (((h >> 2) & 1) << 5)
        return sx(i, 9)

    if q == 0:
        if f3 == 0:  # c.addi4spn
            nz = (((h >> 11) & 3) << 4) | (((h >> 7) & 15) << 6) | (((h >> 6) & 1) << 2) | \
                 (((h >> 5) & 1) << 3)
            if nz == 0:
                bad("compressed", h, pc)

            def f(m, pc):
                m.x[rdp] = (m.x[2] + nz) & MASK
            return op(f, (2,))
        off = (((h >> 10) & 7) << 3) | (((h >> 6) & 1) << 2) | (((h >> 5) & 1) << 6)
        if f3 == 2:
            def f(m, pc):
                m.x[rdp] = m.load(m.x[rs1p] + off, 4, False)
            return op(f, (rs1p,), rdp)
        if f3 == 6:
            def f(m, pc):
                m.store(m.x[rs1p] + off, 4, m.x[rdp])
            return op(f, (rs1p, rdp))
        bad("compressed", h, pc)
    if q == 1:
        if f3 == 0:
            i = imm6()

            def f(m, pc):
                m.x[rd] = (m.x[rd] + i) & MASK
            return op(f, (rd,))
        if f3 in (1, 5):  # c.jal, c.j
            t = cj()
            link = f3 == 1

            def f(m, pc):
                if link:
                    m.x[1] = pc + 2
                m.cycles += 1
                return pc + t
            return op(f)
        if f3 == 2:
            i = imm6() & MASK

            def f(m, pc):
                m.x[rd] = i
            return op(f)
        if f3 == 3:
            if rd == 2:
                i = sx((((h >> 12) & 1) << 9) | (((h >> 6) & 1) << 4) | (((h >> 5) & 1) << 6) |
                       (((h >> 3) & 3) << 7) | (((h >> 2) & 1) << 5), 10)

                def f(m, pc):
                    m.x[2] = (m.x[2] + i) & MASK
                return op(f, (2,))
            i = (imm6() << 12) & MASK

            def f(m, pc):
                m.x[rd] = i
            return op(f)
        if f3 == 4:
            k = (h >> 10) & 3
            sh = ((h >> 2) & 31) | (((h >> 12) & 1) << 5)
            if k == 0:
                def f(m, pc):
                    m.x[rs1p] = m.x[rs1p] >> sh
            elif k == 1:
                def f(m, pc):
                    m.x[rs1p] = (s32(m.x[rs1p]) >> sh) & MASK
            elif k == 2:
                i = imm6() & MASK

                def f(m, pc):
                    m.x[rs1p] &= i
            else:
                sub = (h >> 5) & 3
                fn = {0: lambda a, b: a - b, 1: lambda a, b: a ^ b, 2: lambda a, b: a | b,
                      3: lambda a, b: a & b}[sub]
                if (h >> 12) & 1:
                    bad("compressed", h, pc)

                def f(m, pc):
                    m.x[rs1p] = fn(m.x[rs1p], m.x[rdp]) & MASK
                return op(f, (rs1p, rdp))
            return op(f, (rs1p,))
        if f3 in (6, 7):
            t = cb()
            eq = f3 == 6

            def f(m, pc):
                if (m.x[rs1p] == 0) == eq:
                    m.cycles += 2
                    return pc + t
            return op(f, (rs1p,))
    if q == 2:
        if f3 == 0:
            sh = ((h >> 2) & 31) | (((h >> 12) & 1) << 5)

            def f(m, pc):
                m.x[rd] = (m.x[rd] << sh) & MASK
            return op(f, (rd,))
        if f3 == 2:
            off = (((h >> 12) & 1) << 5) | (((h >> 4) & 7) << 2) | (((h >> 2) & 3) << 6)

            def f(m, pc):
                m.x[rd] = m.load(m.x[2] + off, 4, False)
            return op(f, (2,), rd)
        if f3 == 6:
            off = (((h >> 9) & 15) << 2) | (((h >> 7) & 3) << 6)

            def f(m, pc):
                m.store(m.x[2] + off, 4, m.x[rs2])
            return op(f, (2, rs2))
        if f3 == 4:
            hi = (h >> 12) & 1
            if not hi and rs2 == 0:  # c.jr
                def f(m, pc):
                    m.cycles += 2
                    return m.x[rd] & ~1
                return op(f, (rd,))
            if not hi:  # c.mv
                def f(m, pc):
                    m.x[rd] = m.x[rs2]
                return op(f, (rs2,))
            if rs2 == 0 and rd == 0:
                bad("c.ebreak", h, pc)
            if rs2 == 0:  # c.jalr
                def f(m, pc):
                    t = m.x[rd] & ~1
                    m.x[1] = pc + 2
                    m.cycles += 2
                    return t
                return op(f, (rd,))

            def f(m, pc):  # c.add
                m.x[rd] = (m.x[rd] + m.x[rs2]) & MASK
            return op(f, (rd, rs2))
    bad("compressed", h, pc)


def load_elf(path):
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF" or data[4] != 1:
        raise RuntimeError("not a 32-bit ELF")
    entry, phoff = struct.unpack_from("<II", data, 24)
    phentsize, phnum = struct.unpack_from("<HH", data, 42)
    image = []
    for i in range(phnum):
        p_type, p_off, _, p_paddr, p_filesz, _, _, _ = struct.unpack_from(
            "<IIIIIIII", data, phoff + i * phentsize)
        if p_type == 1 and p_filesz:  # loaded at the physical address, as QEMU does
            image.append((p_paddr, data[p_off:p_off + p_filesz]))
    return image, entry


def load_functions(path):
    """(address, size, name) of the FUNC symbols of a 32-bit ELF, sorted by address."""
    data = open(path, "rb").read()
    shoff, = struct.unpack_from("<I", data, 32)
    shentsize, shnum = struct.unpack_from("<HH", data, 46)
    sections = [struct.unpack_from("<IIIIIIIIII", data, shoff + i * shentsize)
                for i in range(shnum)]
    funcs = []
    for sec in sections:
        if sec[1] != 2:  # SHT_SYMTAB
            continue
        strtab = sections[sec[6]]
        for off in range(sec[4], sec[4] + sec[5], 16):
            name, value, size, info = struct.unpack_from("<IIIB", data, off)
            if info & 15 != 2:
                continue
            end = data.index(b"\0", strtab[4] + name)
            funcs.append((value & ~1, size, data[strtab[4] + name:end].decode()))
    return sorted(funcs)


def print_profile(m, path, top=40):
    funcs = load_functions(path)
    per = {}
    for pc, (n, c) in m.profile.items():
        name = "?"
        for a, size, fname in funcs:
            if a <= pc < a + max(size, 1):
                name = fname
        e = per.setdefault(name, [0, 0])
        e[0] += n
        e[1] += c
    sys.stdout.write("profile: instructions cycles function\n")
    for name, (n, c) in sorted(per.items(), key=lambda kv: -kv[1][1]):
        sys.stdout.write(f"  {n:10d} {c:10d} {name}\n")
    sys.stdout.write("profile: hottest addresses (instructions cycles)\n")
    for pc, (n, c) in sorted(m.profile.items(), key=lambda kv: -kv[1][1])[:top]:
        sys.stdout.write(f"  {pc:#010x} {n:10d} {c:10d}\n")


def main(configure=None):
    """Runs the ELF named last on the command line; `configure(machine)` may change the
    decoder (the XpulpV2 simulator does)."""
    path = sys.argv[-1]
    image, entry = load_elf(path)
    m = Machine(image, entry)
    if configure is not None:
        configure(m)
    m.x[2] = m.base + m.size
    if "--profile" in sys.argv[1:-1]:
        m.profile = {}
    code = 0
    try:
        m.run()
    except Exit as e:
        code = e.code
    sys.stdout.write("".join(m.out))
    if m.profile is not None:
        print_profile(m, path)
    sys.stdout.write(f"iss: {m.instret} instructions executed in total, exit code {code}\n")
    return code


if __name__ == "__main__":
    sys.exit(main())
