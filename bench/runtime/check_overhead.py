#!/usr/bin/env python3
"""Runs the tile-overhead bench and checks its output (format and consistency, no timings).

Usage: check_overhead.py [--model] [--qemu QEMU] [--kernels] -- COMMAND...

COMMAND runs one tile_overhead_<network>.elf (under QEMU, or under the simulator's cluster
timing model with --model). Checked: the exit status; the placement line; the network's line
and as many layer lines as it announces, each with positive instructions, cycles >= instructions
(and with --model code bytes touched >= instruction bytes executed, both positive, and the
functions run at least as large as the bytes executed in them); each share equal to its
counts over the modeled compute; the totals equal to the sums of the layers; with --model the
code line (the bytes touched over the network at least the largest layer's and at most the
layers' sum, which it states) and cycles above instructions over the network; the executor's
table (its totals the layers' sums) and its run without a hook (the same forks and compute,
fewer instructions than with the hook, no fewer than the nests'). With --qemu,
the ELF (COMMAND's last argument) also runs under `QEMU -icount shift=0`, and every layer's
tiles, commands and instructions must be the same in both runs: two independent RV32IMC
implementations count the same program. With --kernels (a _kernels.elf, which runs the
kernels and takes their time off), the kernels line too: positive counts, cycles at least the
instructions. Prints the output, then "overhead output ok" or what failed.
"""
import re
import subprocess
import sys

LAYER = re.compile(r"^(\d+)\s+(\w+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+|-)\s+(\d+|-)\s+"
                   r"(\d+|-)\s+(\d+)\s+(\d+\.\d\d)%\s+(\d+\.\d\d)%$")
TOTAL = re.compile(r"^total (\w+): (\d+) instructions, (\d+) cycles, (\d+) modeled compute "
                   r"cycles: (\d+\.\d\d)% instructions, (\d+\.\d\d)% cycles$")
KERNELS = re.compile(r"^kernels (\w+): (\d+) instructions, (\d+) cycles on the forks' slowest "
                     r"cores \(not in the figures above\)$")
EXEC_LAYER = re.compile(r"^(\d+)\s+(\w+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+"
                        r"(\d+\.\d\d)%$")
EXEC_TOTAL = re.compile(r"^executor (\w+): (\d+) instructions, (\d+) cycles, (\d+) modeled "
                        r"compute cycles: (\d+\.\d\d)% instructions, (\d+\.\d\d)% cycles "
                        r"\(without the fork stand-in, (\d+) forks: (-?\d+\.\d\d)%\)$")
EXEC_WHOLE = re.compile(r"^executor (\w+) without a hook: (\d+) instructions, (\d+) cycles, "
                        r"(\d+) modeled compute cycles: (\d+\.\d\d)% instructions, "
                        r"(\d+\.\d\d)% cycles \(without the fork stand-in, (\d+) forks: "
                        r"(-?\d+\.\d\d)%\)$")
CODE = re.compile(r"^code (\w+): (\d+) bytes touched \((\d+) lines of 16 B; (\d+) over the "
                  r"layers\), (\d+) instruction bytes executed, (\d+) bytes of the functions "
                  r"run$")


def main():
    args = sys.argv[1:]
    opts = args[:args.index("--")]
    model = "--model" in opts
    with_kernels = "--kernels" in opts
    qemu = opts[opts.index("--qemu") + 1] if "--qemu" in opts else None
    cmd = args[args.index("--") + 1:]
    # QEMU's semihosting writes the program's output to stderr.
    run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         timeout=600)
    out = run.stdout
    sys.stdout.write(out)
    errors = []

    def need(cond, what):
        if not cond:
            errors.append(what)

    def share_ok(part, whole, printed):
        return abs(100.0 * part / whole - float(printed)) <= 0.006 if whole else printed == "0.00"

    need(run.returncode == 0, f"exit status {run.returncode}")
    lines = out.splitlines()
    need(any(ln.startswith("placement for the cluster timing model: code, ") for ln in lines),
         "no placement line")
    nets = [i for i, ln in enumerate(lines) if re.match(r"^network \w+: \d+ layers$", ln)]
    need(len(nets) == 1, f"{len(nets)} network lines, want 1")
    if errors:
        return report(errors)
    i = nets[0]
    name, n = re.match(r"^network (\w+): (\d+) layers$", lines[i]).groups()
    n = int(n)
    need(lines[i + 1].split()[:6] == ["#", "kind", "tiles", "commands", "instr", "cycles"],
         "no column header")
    layers = []
    for k, ln in enumerate(lines[i + 2:i + 2 + n]):
        m = LAYER.match(ln)
        need(m is not None, f"layer line {k + 1} malformed: {ln!r}")
        if m is None:
            continue
        layers.append(m.groups())
        idx, kind, tiles, cmds, instr, cyc, lb, eb, fb, comp, ip, cp = m.groups()
        instr, cyc, comp = int(instr), int(cyc), int(comp)
        need(int(idx) == k + 1, f"layer {idx} out of order")
        need(int(tiles) > 0 and int(cmds) > 0, f"layer {idx}: no tiles or no commands")
        need(instr > 0 and cyc >= instr, f"layer {idx}: {cyc} cycles < {instr} instructions")
        need(share_ok(instr, comp, ip), f"layer {idx}: instruction share {ip}% wrong")
        need(share_ok(cyc, comp, cp), f"layer {idx}: cycle share {cp}% wrong")
        if model:
            need("-" not in (lb, eb, fb), f"layer {idx}: no code bytes under the model")
            if "-" not in (lb, eb, fb):
                need(int(lb) % 16 == 0 and int(lb) >= int(eb) > 0,
                     f"layer {idx}: {lb} bytes touched vs {eb} executed")
                need(int(fb) >= int(eb), f"layer {idx}: functions {fb} B < executed {eb} B")
    need(len(layers) == n, f"{len(layers)} layer lines, want {n}")
    tot = [TOTAL.match(ln) for ln in lines if ln.startswith("total ")]
    need(len(tot) == 1 and tot[0] is not None, "no total line")
    if tot and tot[0] is not None and layers:
        tname, ti, tc, tcomp, tip, tcp = tot[0].groups()
        need(tname == name, f"total of {tname}, network {name}")
        si = sum(int(g[4]) for g in layers)
        sc = sum(int(g[5]) for g in layers)
        scomp = sum(int(g[9]) for g in layers)
        need(int(ti) == si, f"total instructions {ti} != layers' sum {si}")
        need(int(tc) == sc, f"total cycles {tc} != layers' sum {sc}")
        need(int(tcomp) == scomp, f"total compute {tcomp} != layers' sum {scomp}")
        need(share_ok(si, scomp, tip) and share_ok(sc, scomp, tcp), "total shares wrong")
        if model:
            need(sc > si, f"{sc} cycles, not above {si} instructions under the model")
    # The same network through schedule::run_network: its layers' lines and total, which
    # holds everything the loop nests' total holds and the per-layer path besides.
    heads = [k for k, ln in enumerate(lines)
             if ln == f"executor {name}: each layer through schedule::run_network"]
    need(len(heads) == 1, f"{len(heads)} executor tables, want 1")
    if len(heads) == 1:
        k0 = heads[0]
        need(lines[k0 + 1].split()[:7] == ["#", "kind", "tiles", "commands", "l3", "instr",
                                           "cycles"], "no executor column header")
        rows = [EXEC_LAYER.match(ln) for ln in lines[k0 + 2:k0 + 2 + n]]
        need(all(rows) and len(rows) == n, "executor layer lines malformed")
        etot = [EXEC_TOTAL.match(ln) for ln in lines if ln.startswith(f"executor {name}: ") and
                "instructions" in ln]
        need(len(etot) == 1 and etot[0] is not None, "no executor total line")
        if all(rows) and len(rows) == n and etot and etot[0] is not None and layers:
            g = [r.groups() for r in rows]
            for a, b in zip(g, layers):
                need(a[0] == b[0] and a[1] == b[1] and a[2] == b[2],
                     f"executor layer {a[0]}: {a[1]} {a[2]} tiles, nest table {b[1]} {b[2]}")
                need(share_ok(int(a[6]), int(a[7]), a[8]), f"executor layer {a[0]}: share wrong")
            _, ei, ec, ecomp, eip, ecp, _, _ = etot[0].groups()
            need(int(ei) == sum(int(a[5]) for a in g), "executor instructions != layers' sum")
            need(int(ec) == sum(int(a[6]) for a in g), "executor cycles != layers' sum")
            need(share_ok(int(ei), int(ecomp), eip) and share_ok(int(ec), int(ecomp), ecp),
                 "executor shares wrong")
            si = sum(int(b[4]) for b in layers)
            need(int(ei) >= si, f"executor {ei} instructions, below the nests' {si}")
            # The inference again without the hook: the same forks, the same compute, fewer
            # instructions (no hook's call between the layers), still all the nests'.
            whole = [EXEC_WHOLE.match(ln) for ln in lines
                     if ln.startswith(f"executor {name} without a hook")]
            need(len(whole) == 1 and whole[0] is not None, "no executor line without a hook")
            if whole and whole[0] is not None:
                _, wi, wc, wcomp, wip, wcp, wf, _ = whole[0].groups()
                _, _, _, _, _, _, ef, _ = etot[0].groups()
                need(wcomp == ecomp and wf == ef,
                     f"without a hook: {wcomp} compute, {wf} forks; with: {ecomp}, {ef}")
                need(si <= int(wi) < int(ei),
                     f"without a hook: {wi} instructions, not in [{si}, {ei})")
                need(int(wc) >= int(wi), f"without a hook: {wc} cycles below {wi} instructions")
                need(share_ok(int(wi), int(wcomp), wip) and share_ok(int(wc), int(wcomp), wcp),
                     "shares without a hook wrong")
    kern = [KERNELS.match(ln) for ln in lines if ln.startswith("kernels ")]
    if with_kernels:
        need(len(kern) == 1 and kern[0] is not None, "no kernels line")
        if kern and kern[0] is not None:
            kname, ki, kc = kern[0].groups()
            need(kname == name, f"kernels line of {kname}, network {name}")
            need(0 < int(ki) <= int(kc), f"kernels: {ki} instructions, {kc} cycles")
    else:
        need(not kern, "a kernels line in a build that runs none")
    code = [CODE.match(ln) for ln in lines if ln.startswith("code ")]
    if model:
        need(len(code) == 1 and code[0] is not None, "no code line under the model")
        if code and code[0] is not None and layers and all(g[6] != "-" for g in layers):
            cname, touched, nlines, over, executed, funcs = code[0].groups()
            per = [int(g[6]) for g in layers]
            need(cname == name, f"code line of {cname}, network {name}")
            need(int(touched) == 16 * int(nlines), "bytes touched != 16 x lines")
            need(int(over) == sum(per), f"'over the layers' {over} != layers' sum {sum(per)}")
            need(max(per) <= int(touched) <= sum(per),
                 f"bytes touched {touched} outside [{max(per)}, {sum(per)}]")
            need(int(executed) <= int(touched) and int(executed) <= int(funcs),
                 f"executed {executed} B above touched {touched} or functions {funcs}")
    else:
        need(not code, "a code line without the model")
    if qemu is not None and layers:
        q = subprocess.run([qemu, "-M", "virt", "-nographic", "-bios", "none", "-icount",
                            "shift=0", "-kernel", cmd[-1], "-semihosting-config",
                            "enable=on,target=native"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=600)
        theirs = [m.groups()[:5] for m in map(LAYER.match, q.stdout.splitlines()) if m]
        ours = [g[:5] for g in layers]
        need(theirs == ours, "layers' tiles, commands or instructions differ under QEMU: " +
             "; ".join(f"{a} vs {b}" for a, b in zip(ours, theirs) if a != b)[:400] +
             f" ({len(ours)} vs {len(theirs)} layers)")
    return report(errors)


def report(errors):
    for e in errors:
        print(f"overhead output FAIL: {e}")
    if not errors:
        print("overhead output ok")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
