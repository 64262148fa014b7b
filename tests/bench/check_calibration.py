#!/usr/bin/env python3
"""Compares the cost model's kernel cycles with the cycle programs' simulated cycles.

Usage: check_calibration.py MODEL_PROGRAM ISS_SCRIPT ELF...

Runs MODEL_PROGRAM (prints `kernel=<name> macs=<n> model=<cycles>` per tile), runs each ELF on
the instruction-set simulator ISS_SCRIPT (prints `kernel=<name> macs=<n> cycles=<n> ... ok=1`),
prints one table row per kernel and fails when a program does not check out, is missing from
the model, or differs from the model by more than 10%.
"""
import re
import subprocess
import sys

TOLERANCE = 0.10


def fields(line):
    return dict(re.findall(r"(\w+)=(\S+)", line))


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    model_prog, iss, elfs = sys.argv[1], sys.argv[2], sys.argv[3:]
    model = {}
    for line in subprocess.run([model_prog], check=True, capture_output=True,
                               text=True).stdout.splitlines():
        f = fields(line)
        if "kernel" in f:
            model[f["kernel"]] = int(f["model"])
    bad = 0
    print(f"{'kernel':<14} {'simulated':>10} {'model':>10} {'error':>8}")
    for elf in elfs:
        out = subprocess.run([sys.executable, iss, elf], capture_output=True, text=True).stdout
        line = next((l for l in out.splitlines() if l.startswith("kernel=")), None)
        if line is None:
            print(f"{elf}: no result line")
            bad += 1
            continue
        f = fields(line)
        name, cycles = f["kernel"], int(f["cycles"])
        if f.get("ok") != "1":
            print(f"{name}: the program's own check failed")
            bad += 1
            continue
        if name not in model:
            print(f"{name}: no model figure")
            bad += 1
            continue
        err = (model[name] - cycles) / cycles
        flag = "" if abs(err) <= TOLERANCE else "  OUT OF TOLERANCE"
        bad += flag != ""
        print(f"{name:<14} {cycles:>10} {model[name]:>10} {100 * err:>7.1f}%{flag}")
    print("calibration ok" if bad == 0 else f"{bad} kernel(s) off")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
