#!/usr/bin/env python3
"""Worst-case stack depth of RISC-V code, read from its machine code.

    stack_need.py [--objdump PROG] --root REGEX [--root REGEX ...] [--extern NAME=BYTES ...]
                  [--budget BYTES | --budget-symbol SYMBOL] [--margin BYTES] FILE...

FILE: linked ELF executables or relocatable objects and archives (rv32, GNU objdump's
disassembly with relocations). Every function matching a --root regular expression (searched in
its mangled name) is a root; the report gives, per root kind, the deepest chain of frames below
it and the functions on that chain.

How a function's frame and calls are found:
- frame: the sum of every stack-pointer decrement in the function (`addi sp,sp,-N` and its
  compressed forms; `sub sp,sp,R` / `add sp,sp,R` with R set from a constant in the function).
  A shrink-wrapped function with two prologues is counted twice: an upper bound.
- calls: `jal`/`jalr` with a link to a symbol (linked code), or to the symbol of an
  R_RISCV_CALL / R_RISCV_CALL_PLT / R_RISCV_JAL relocation (relocatable code).
- tail calls (`j` or `tail` to another function): the callee runs in place of the caller, its
  frame released, when the jump follows a stack-pointer increment (the epilogue) in straight-line
  code: no branch of the function lands between the increment and the jump (in relocatable
  code, a function with unresolved branch targets has none of these). Any other tail call is
  counted as a call made inside the caller's frame, which can only overstate.
- `-msave-restore` millicode: a call of `__riscv_save_N` (link in t0) adds that routine's
  frame to the caller's own; a jump to `__riscv_restore_N` releases it.
- a jump through a register without a link (`jr`) is taken for a switch table inside the
  function, except in a function named by --indirect: there it may be an indirect tail call
  (a call through a pointer as the function's last act), and the named targets count as
  calls made inside its frame, which can only overstate. Elsewhere such a tail call would be
  missed.
- refused, with the function named: a stack pointer moved by an unknown amount, an indirect
  call (`jalr` with a link through a register), recursion, a call to a function that is in none
  of the files and has no --extern figure.

The depth of a function is its frame plus the deepest of its callees, or the depth of its
deepest released tail call if that is more. --budget (or the 32-bit
value of --budget-symbol in the first file) checks: every root's depth plus --margin must fit.
Prints `stack need ok` when it does, `FAIL ...` otherwise.

`stack_need.py --self-test` assembles a program of hand-counted frames (every form above: small
and large frames, a frame built from a constant, calls and tail calls, an indirect call named
with --indirect) as a relocatable object and as a linked executable, and checks the depths, and
that a stack pointer moved by a register, an unnamed indirect call, recursion and a missing
function are refused.
"""
import argparse
import os
import re
import subprocess
import sys

FUNC = re.compile(r"^([0-9a-f]+) <(.+)>:$")
INSN = re.compile(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$")
RELOC = re.compile(r"^\s*([0-9a-f]+):\s+(R_RISCV_\w+)\s+(\S+)")
TARGET = re.compile(r"<([^>+]+)(\+0x[0-9a-f]+)?>")
REG_SP = "sp"


class Function:
    def __init__(self, name):
        self.name = name
        self.frame = 0
        self.calls = set()
        self.problems = []
        self.indirect = False  # calls through a register
        self.jumps = False  # jumps through a register (a switch table, or a tail call)
        self.millicode = set()  # __riscv_save_N routines: their frame stays the caller's
        self.tail_calls = set()  # tail calls made with the frame released (see read_functions)
        self.events = []  # (address, "release" | "sp" | "tail", callee) in address order
        self.targets = set()  # addresses the function's own branches and jumps land on
        self.unresolved = False  # a branch whose target is a relocation (relocatable code)


def parse_int(s):
    s = s.strip()
    return int(s, 0)


def disassemble(objdump, path):
    out = subprocess.run([objdump, "-dr", "--no-show-raw-insn", path], check=True,
                         capture_output=True, text=True).stdout
    return out.splitlines()


def read_functions(lines, funcs):
    """Adds the functions of one disassembly to `funcs` (a name seen twice, as the same weak
    function in two objects of an archive, keeps the larger figures)."""
    cur = None
    consts = {}
    pending_call = None  # symbol of an R_RISCV_CALL* relocation awaiting its jalr
    pending_jal = None   # symbol of an R_RISCV_JAL relocation on the last jal

    def finish(f):
        if f is None:
            return
        # Tail calls: released when the last stack-pointer change before the jump is an
        # increment and no branch lands after it, up to and including the jump.
        last = None
        for addr, kind, callee in f.events:
            if kind != "tail":
                last = (addr, kind)
                continue
            released = (not f.unresolved and not f.millicode and last is not None and
                        last[1] == "release" and
                        not any(last[0] < t <= addr for t in f.targets))
            (f.tail_calls if released else f.calls).add(callee)
        f.tail_calls -= f.calls
        old = funcs.get(f.name)
        if old is None:
            funcs[f.name] = f
        else:
            old.frame = max(old.frame, f.frame)
            old.calls |= f.calls
            old.tail_calls = (old.tail_calls | f.tail_calls) - old.calls
            old.indirect = old.indirect or f.indirect
            old.millicode |= f.millicode
            old.problems += [p for p in f.problems if p not in old.problems]

    for line in lines:
        m = FUNC.match(line)
        if m and m.group(2).startswith(".L"):
            continue  # a local label kept for linker relaxation: inside the current function
        if m:
            finish(cur)
            cur = Function(m.group(2))
            consts = {}
            pending_call = None
            continue
        if cur is None:
            continue
        r = RELOC.match(line)
        if r:
            kind, sym = r.group(2), r.group(3)
            if kind in ("R_RISCV_BRANCH", "R_RISCV_RVC_BRANCH", "R_RISCV_RVC_JUMP",
                        "R_RISCV_JAL") and sym.startswith(".L"):
                cur.unresolved = True  # a local branch or jump whose target is not shown
            if kind in ("R_RISCV_CALL", "R_RISCV_CALL_PLT"):
                pending_call = sym
            elif kind == "R_RISCV_JAL":
                if sym.startswith("__riscv_save"):
                    cur.millicode.add(sym)
                elif not sym.startswith(".L") and not sym.startswith("__riscv_restore"):
                    cur.calls.add(sym)
            continue
        i = INSN.match(line)
        if not i:
            continue
        op, args = i.group(2), i.group(3)
        here = int(i.group(1), 16)
        ops = [a.strip() for a in args.split("#")[0].split(",")] if args else []
        # Where the function's own branches and jumps land.
        if (op.startswith(("b", "c.b")) or op in ("j", "c.j", "jal", "c.jal")) and "<" in args:
            t = TARGET.search(args)
            if t and (t.group(1) == cur.name or t.group(1).startswith(".L")):
                hx = re.search(r"([0-9a-f]+) <", args)
                if hx:
                    cur.targets.add(int(hx.group(1), 16))
        # Stack-pointer adjustments.
        if op in ("addi", "add", "c.addi", "c.addi16sp") and len(ops) >= 2 and ops[0] == REG_SP:
            src = ops[1] if len(ops) == 3 else REG_SP
            val = ops[-1]
            if src == REG_SP and re.fullmatch(r"-?(0x[0-9a-f]+|[0-9]+)", val):
                v = parse_int(val)
                if v < 0:
                    cur.frame += -v
                cur.events.append((here, "release" if v > 0 else "sp", None))
            elif src == REG_SP and val in consts:
                if consts[val] < 0:
                    cur.frame += -consts[val]
                cur.events.append((here, "release" if consts[val] > 0 else "sp", None))
            elif src == REG_SP:
                cur.problems.append("stack pointer moved by register " + val)
        elif op in ("sub", "c.sub") and ops and ops[0] == REG_SP:
            val = ops[-1]
            if val in consts:
                if consts[val] > 0:
                    cur.frame += consts[val]
            else:
                cur.problems.append("stack pointer moved by register " + val)
            cur.events.append((here, "sp", None))
        elif op in ("mv", "c.mv") and ops and ops[0] == REG_SP:
            # restores from a frame pointer: never deeper than the frame already counted, but
            # not an increment this tool can size
            cur.events.append((here, "sp", None))
        # Constants a large frame is built from.
        if op in ("li", "c.li") and len(ops) == 2:
            try:
                consts[ops[0]] = parse_int(ops[1])
            except ValueError:
                consts.pop(ops[0], None)
        elif op in ("lui", "c.lui") and len(ops) == 2:
            try:
                v = parse_int(ops[1]) << 12
                consts[ops[0]] = v - (1 << 32) if v & (1 << 31) else v
            except ValueError:
                consts.pop(ops[0], None)
        elif op in ("addi",) and len(ops) == 3 and ops[0] == ops[1] and ops[0] in consts:
            try:
                consts[ops[0]] += parse_int(ops[2])
            except ValueError:
                consts.pop(ops[0], None)
        elif ops and ops[0] in consts and op not in ("sw", "sh", "sb", "c.sw", "c.swsp"):
            consts.pop(ops[0], None)
        # Calls.
        if op in ("jal", "c.jal", "j", "c.j"):
            t = TARGET.search(args)
            linked_to = None
            if t and t.group(2) is None:
                linked_to = t.group(1)
            elif t and t.group(1) != cur.name and not t.group(1).startswith(".L"):
                # a jump into the middle of another function: not a call we can follow
                cur.problems.append("jump into " + t.group(1) + t.group(2))
            if linked_to and linked_to.startswith("__riscv_save"):
                cur.millicode.add(linked_to)  # -msave-restore: grows the caller's own frame
            elif linked_to and linked_to.startswith("__riscv_restore"):
                pass  # releases the frame and returns for the caller
            elif linked_to and linked_to != cur.name and not linked_to.startswith(".L"):
                if op in ("j", "c.j") or (ops and ops[0] == "zero"):
                    cur.events.append((here, "tail", linked_to))
                else:
                    cur.calls.add(linked_to)
            elif linked_to == cur.name and op in ("jal", "c.jal") and (not ops or ops[0] != "zero"):
                cur.calls.add(cur.name)  # a call to itself: recursion
        elif op in ("jalr", "c.jalr", "jr", "c.jr"):
            link = op in ("jalr", "c.jalr") and not (ops and ops[0] == "zero")
            if op == "jalr" and len(ops) >= 1 and ops[0] in ("zero",):
                link = False
            if pending_call is not None:
                if pending_call.startswith("__riscv_save"):
                    cur.millicode.add(pending_call)
                elif not pending_call.startswith((".L", "__riscv_restore")):
                    if link:
                        cur.calls.add(pending_call)
                    else:
                        cur.events.append((here, "tail", pending_call))
                pending_call = None
            elif not link and not (ops and ops[0] == "ra"):
                cur.jumps = True
            elif link:
                t = TARGET.search(args.split("#")[1]) if "#" in args else None
                if t and t.group(2) is None and t.group(1) != cur.name:
                    cur.calls.add(t.group(1))
                elif t and t.group(1) == cur.name:
                    # an auipc/jalr pair resolved to this function's own code: a relaxed-away
                    # call whose relocation was shown above (handled), or a real self-call
                    pass
                else:
                    cur.indirect = True
    finish(cur)


def depths(funcs, externs):
    memo, stack = {}, []
    errors = []

    def depth(name):
        if name in memo:
            return memo[name]
        if name in stack:
            errors.append(("recursion through", name))
            return 0, [name]
        f = funcs.get(name)
        if f is None:
            for pat, b in externs:
                if re.fullmatch(pat, name):
                    memo[name] = (b, [name + " (given)"])
                    return memo[name]
            errors.append(("no code and no --extern figure for", name))
            memo[name] = (0, [name + " (unknown)"])
            return memo[name]
        for p in f.problems:
            errors.append((p, f.name))
        stack.append(name)
        best, chain = 0, []
        for c in sorted(f.calls):
            d, ch = depth(c)
            if d > best:
                best, chain = d, ch
        tail, tail_chain = 0, []
        for c in sorted(f.tail_calls):
            d, ch = depth(c)
            if d > tail:
                tail, tail_chain = d, ch
        stack.pop()
        saved = 0
        for m in f.millicode:
            g = funcs.get(m)
            if g is None:
                errors.append(("no code for the register-save routine", m))
            else:
                saved = max(saved, g.frame)
        own = f.frame + saved + best
        # A released tail call's chain starts with this function at no cost of its own.
        if own >= tail:
            memo[name] = (own, [name] + chain)
        else:
            memo[name] = (tail, [name] + tail_chain)
            depth.released.add(name)
        return memo[name]

    depth.released = set()  # functions whose depth is a released tail call's
    return depth, errors


def symbol_word(objdump, path, symbol):
    """The 32-bit little-endian value at `symbol` in a linked ELF."""
    nm = subprocess.run([objdump.replace("objdump", "nm"), path], check=True,
                        capture_output=True, text=True).stdout
    addr = None
    for line in nm.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == symbol:
            addr = int(parts[0], 16)
    if addr is None:
        raise SystemExit("FAIL: symbol %s not in %s" % (symbol, path))
    dump = subprocess.run([objdump, "-s", "--start-address=%#x" % addr,
                           "--stop-address=%#x" % (addr + 4), path],
                          check=True, capture_output=True, text=True).stdout
    for line in dump.splitlines():
        m = re.match(r"^\s*([0-9a-f]+)\s+([0-9a-f]{8})", line)
        if m and int(m.group(1), 16) == addr:
            return int.from_bytes(bytes.fromhex(m.group(2)), "little")
    raise SystemExit("FAIL: cannot read %s in %s" % (symbol, path))


def demangle(names, objdump):
    filt = objdump.replace("objdump", "c++filt")
    try:
        out = subprocess.run([filt], input="\n".join(names), capture_output=True, text=True,
                             check=True).stdout.splitlines()
        return dict(zip(names, out))
    except (OSError, subprocess.CalledProcessError):
        return {n: n for n in names}


def short(name, width=110):
    return name if len(name) <= width else name[:width - 3] + "..."


SELF_TEST_ASM = r"""
    .option nopic
    .text
    .globl root, left, right, leaf, big, table_user, tail_user, target_a, target_b, deep_tail, held_tail
    .globl cold_jump
    .globl dyn, ind, rec, missing_caller, saver, __riscv_save_t, __riscv_restore_t
root:                      # 32 + max(left, right) = 32 + 2080 = 2112
    addi sp, sp, -32
    sw ra, 28(sp)
    call left
    call right
    lw ra, 28(sp)
    addi sp, sp, 32
    ret
left:                      # 16 + leaf = 24
    addi sp, sp, -16
    sw ra, 12(sp)
    call leaf
    lw ra, 12(sp)
    addi sp, sp, 16
    ret
right:                     # max(2032 + 48, leaf): leaf a tail call, the frame released = 2080
    addi sp, sp, -2032
    addi sp, sp, -48
    addi sp, sp, 2032
    addi sp, sp, 48
    tail leaf
deep_tail:                 # max(16 + leaf, big) = 4120: a released tail call deeper than the frame
    addi sp, sp, -16
    sw ra, 12(sp)
    call leaf
    lw ra, 12(sp)
    addi sp, sp, 16
    tail big
held_tail:                 # 32 + leaf = 40: a branch lands between the release and the jump
    addi sp, sp, -32
    beqz a0, 1f
    addi sp, sp, 32
1:  tail leaf
cold_jump:                 # 64 + leaf = 72: no release before the jump
    addi sp, sp, -64
    tail leaf
leaf:                      # 8
    c.addi sp, -8
    c.addi sp, 8
    ret
big:                       # 4096 (built from a constant) + 16 + leaf = 4120
    li t0, 4096
    sub sp, sp, t0
    addi sp, sp, -16
    sw ra, 12(sp)
    call leaf
    lw ra, 12(sp)
    addi sp, sp, 16
    add sp, sp, t0
    ret
table_user:                # 16 + max(target_a, target_b) = 16 + 64 = 80
    addi sp, sp, -16
    sw ra, 12(sp)
    lw a5, 0(a0)
    jalr a5
    lw ra, 12(sp)
    addi sp, sp, 16
    ret
tail_user:                 # 16 + target_a (64), its tail call counted inside the frame = 80
    addi sp, sp, -16
    lw a5, 0(a0)
    addi sp, sp, 16
    jr a5
target_a:
    addi sp, sp, -64
    addi sp, sp, 64
    ret
target_b:
    addi sp, sp, -32
    addi sp, sp, 32
    ret
dyn:                       # refused: moved by a register
    sub sp, sp, a0
    add sp, sp, a0
    ret
ind:                       # refused unless named
    addi sp, sp, -16
    sw ra, 12(sp)
    jalr a0
    lw ra, 12(sp)
    addi sp, sp, 16
    ret
rec:                       # refused: recursion
    addi sp, sp, -16
    sw ra, 12(sp)
    call rec
    lw ra, 12(sp)
    addi sp, sp, 16
    ret
saver:                     # 16 (a save routine's frame) + 8 (its own) + leaf = 32
    jal t0, __riscv_save_t
    addi sp, sp, -8
    call leaf
    addi sp, sp, 8
    tail __riscv_restore_t
__riscv_save_t:
    addi sp, sp, -16
    sw ra, 12(sp)
    jr t0
__riscv_restore_t:
    lw ra, 12(sp)
    addi sp, sp, 16
    ret
missing_caller:            # refused: no code for nowhere
    addi sp, sp, -16
    sw ra, 12(sp)
    call nowhere
    lw ra, 12(sp)
    addi sp, sp, 16
    ret
"""


def self_test(objdump):
    import tempfile
    gcc = objdump.replace("objdump", "gcc")
    ok = True
    with tempfile.TemporaryDirectory() as d:
        src, obj, elf = (os.path.join(d, n) for n in ("t.S", "t.o", "t.elf"))
        with open(src, "w") as f:
            f.write(SELF_TEST_ASM)
        arch = ["-march=rv32imc", "-mabi=ilp32"]
        subprocess.run([gcc] + arch + ["-c", src, "-o", obj], check=True)
        # Linked (nowhere resolved to leaf so that the executable links).
        subprocess.run([gcc] + arch + ["-nostdlib", "-Wl,-e,root", "-Wl,--defsym=nowhere=leaf",
                                       obj, "-o", elf], check=True)
        for form, path in (("relocatable", obj), ("linked", elf)):
            funcs = {}
            read_functions(disassemble(objdump, path), funcs)
            want = {"root": 2112, "left": 24, "right": 2080, "leaf": 8, "big": 4120, "saver": 32,
                    "deep_tail": 4120, "held_tail": 40, "cold_jump": 72}
            depth, errors = depths(funcs, [])
            for name, w in want.items():
                got = depth(name)[0]
                if got != w:
                    print("FAIL: self-test (%s): %s is %d bytes deep, not %d" % (form, name, got, w))
                    ok = False
            if errors:
                print("FAIL: self-test (%s): unexpected refusals %s" % (form, errors))
                ok = False
            # Refusals, one function at a time.
            cases = {"dyn": "stack pointer moved by register",
                     "ind": "an indirect call", "rec": "recursion",
                     "missing_caller": "no code" if form == "relocatable" else None}
            depth, errors = depths(funcs, [])
            if depth("tail_user")[0] != 16:
                print("FAIL: self-test (%s): tail_user %d bytes before --indirect" %
                      (form, depth("tail_user")[0]))
                ok = False
            resolve_indirect(funcs, ["table_user|tail_user=target_"])
            for name, what in cases.items():
                if what is None:
                    continue
                depth, errors = depths(funcs, [])
                depth(name)
                if not any(what in p for p, _ in errors):
                    print("FAIL: self-test (%s): %s not refused (%s)" % (form, name, errors))
                    ok = False
            depth, errors = depths(funcs, [])
            if depth("table_user")[0] != 80 or depth("tail_user")[0] != 80 or errors:
                print("FAIL: self-test (%s): table_user %d, tail_user %d bytes, %s" %
                      (form, depth("table_user")[0], depth("tail_user")[0], errors))
                ok = False
    print("stack need self-test ok" if ok else "FAIL: stack need self-test")
    return 0 if ok else 1


def resolve_indirect(funcs, specs):
    """Gives the indirect calls of the functions matching each SRC the targets matching DST;
    returns an error message or None. Functions left with an unnamed indirect call are marked."""
    for spec in specs:
        src, dst = spec.split("=", 1)
        srx, drx = re.compile(src), re.compile(dst)
        targets = [n for n in funcs if drx.search(n)]
        if not targets:
            return "--indirect %s: no function matches %s" % (spec, dst)
        for f in funcs.values():
            if (f.indirect or f.jumps) and srx.search(f.name):
                f.calls |= set(targets)
                f.indirect = False
    for f in funcs.values():
        if f.indirect and not any(p.startswith("an indirect call") for p in f.problems):
            f.problems.append("an indirect call (jalr through a register); name its targets "
                              "with --indirect")
    return None


def main():
    if "--self-test" in sys.argv:
        objdump = "riscv64-unknown-elf-objdump"
        return self_test(objdump)
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--objdump", default="riscv64-unknown-elf-objdump")
    ap.add_argument("--root", action="append", required=True,
                    help="LABEL=REGEX: functions whose mangled name matches REGEX are roots")
    ap.add_argument("--indirect", action="append", default=[],
                    help="SRC=DST: the indirect calls of functions matching SRC reach every "
                         "function matching DST (regular expressions on mangled names)")
    ap.add_argument("--extern", action="append", default=[],
                    help="REGEX=BYTES: the depth of functions with no code in the files")
    ap.add_argument("--budget", action="append", default=[],
                    help="LABEL=BYTES: the stack the roots of LABEL may use")
    ap.add_argument("--budget-symbol", action="append", default=[],
                    help="LABEL=SYMBOL: the budget is the 32-bit value of SYMBOL (first file)")
    ap.add_argument("--margin", type=int, default=0,
                    help="bytes kept free below the deepest chain (what runs beside it)")
    a = ap.parse_args()

    funcs = {}
    for path in a.files:
        read_functions(disassemble(a.objdump, path), funcs)
    err = resolve_indirect(funcs, a.indirect)
    if err:
        print("FAIL: " + err)
        return 1
    externs = []
    for e in a.extern:
        pat, b = e.rsplit("=", 1)
        externs.append((pat, int(b, 0)))
    depth, errors = depths(funcs, externs)

    budgets = {}
    for b in a.budget:
        label, v = b.split("=", 1)
        budgets[label] = int(v, 0)
    for b in a.budget_symbol:
        label, sym = b.split("=", 1)
        budgets[label] = symbol_word(a.objdump, a.files[0], sym)

    ok = True
    for r in a.root:
        label, pat = r.split("=", 1) if "=" in r else (r, r)
        rx = re.compile(pat)
        roots = sorted(n for n in funcs if rx.search(n))
        if not roots:
            print("FAIL: no function matches root %s (%s)" % (label, pat))
            ok = False
            continue
        best, chain = -1, []
        for n in roots:
            d, ch = depth(n)
            if d > best:
                best, chain = d, ch
        names = demangle(chain, a.objdump)
        print("%s: %d roots, deepest %d bytes" % (label, len(roots), best))
        for n in chain:
            f = funcs.get(n)
            if n in depth.released:
                print("  %5d  [tail call, frame released] %s" % (0, short(names.get(n, n), 80)))
                continue
            frame = f.frame if f else depth(n)[0]
            print("  %5d  %s" % (frame, short(names.get(n, n))))
        if label in budgets:
            need = best + a.margin
            verdict = "fits" if need <= budgets[label] else "FAIL: does not fit"
            print("%s: %d + margin %d = %d of %d bytes: %s" %
                  (label, best, a.margin, need, budgets[label], verdict))
            ok = ok and need <= budgets[label]
    names = demangle(sorted({n for _, n in errors}), a.objdump)
    for p, n in sorted(set(errors)):
        print("FAIL: %s: %s" % (p, short(names.get(n, n), 160)))
    ok = ok and not errors
    print("stack need ok" if ok else "FAIL: stack need")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
