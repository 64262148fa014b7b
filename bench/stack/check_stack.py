#!/usr/bin/env python3
"""Checks a stack probe (bench/stack/stack_probe.cpp) two independent ways.

    check_stack.py [--objdump PROG] [--margin BYTES] [--qemu QEMU] PROBE.elf

1. From the machine code (stack_need.py): the deepest chain of frames below core 0's root
   (master_entry) and below the other cores' roots (worker_entry, any_kernel), plus --margin
   (256 B: what the runtime adds below a fork body, an interrupt's context), must fit the
   platform's stacks the probe holds (ctile_stack_budget_master / _worker).
2. Run under QEMU (--qemu): the probe paints the stack, runs five networks and reports the
   deepest use on core 0 and in the fork bodies. Each must be at most the bound of 1 (a bound
   below what the code really used would mean the analysis misses frames or calls), and the
   runs must have succeeded.
Prints `stack check ok` when both hold.
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("elf")
    ap.add_argument("--objdump", default="riscv64-unknown-elf-objdump")
    ap.add_argument("--margin", type=int, default=256)
    ap.add_argument("--qemu", default=None)
    a = ap.parse_args()

    cmd = [sys.executable, os.path.join(HERE, "stack_need.py"), "--objdump", a.objdump,
           "--root", "master=master_entry", "--root", "worker=worker_entry|any_kernel",
           # the executor reaches each layer's loop nest through a table of its entries; the
           # 3x3 depthwise kernel its variant through a table of its instantiations
           "--indirect", "master_entry|run_network|run_step|run_layer|run_static=run_tiles_static",
           "--indirect", "depthwise_chw=dw3_tile",
           # a loop nest run across L3 weight stripes enters each through the executor's feed
           "--indirect", "conv_loop|linear_loop|run_tiles|channel_blocks=stripe_feed",
           "--budget-symbol", "master=ctile_stack_budget_master",
           "--budget-symbol", "worker=ctile_stack_budget_worker",
           "--margin", str(a.margin), a.elf]
    r = subprocess.run(cmd, capture_output=True, text=True)
    print(r.stdout, end="")
    ok = r.returncode == 0 and "stack need ok" in r.stdout
    bound = {m.group(1): int(m.group(2))
             for m in re.finditer(r"^(\w+): \d+ roots, deepest (\d+) bytes", r.stdout, re.M)}
    if set(bound) != {"master", "worker"}:
        print("FAIL: the analysis gave no bound for master and worker")
        ok = False

    if a.qemu:
        q = subprocess.run([a.qemu, "-M", "virt", "-nographic", "-bios", "none", "-kernel", a.elf,
                            "-semihosting-config", "enable=on,target=native"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=600)
        m = re.search(r"stack used: master (\d+) worker (\d+) \((\d+) network runs failed\)",
                      q.stdout)
        if not m:
            print("FAIL: the probe printed no stack use (exit %d)\n%s" % (q.returncode, q.stdout))
            ok = False
        else:
            used = {"master": int(m.group(1)), "worker": int(m.group(2))}
            if int(m.group(3)) != 0 or q.returncode != 0:
                print("FAIL: %s network runs failed (exit %d)" % (m.group(3), q.returncode))
                ok = False
            if used["worker"] == 0 or used["master"] <= used["worker"]:
                print("FAIL: implausible stack use: master %d, worker %d" %
                      (used["master"], used["worker"]))
                ok = False
            for k in ("master", "worker"):
                if k in bound:
                    verdict = "within" if used[k] <= bound[k] else "FAIL: above"
                    print("%s: %d bytes used in the runs, %s the bound of %d" %
                          (k, used[k], verdict, bound[k]))
                    ok = ok and used[k] <= bound[k]
    print("stack check ok" if ok else "FAIL: stack check")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
