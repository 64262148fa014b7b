#!/usr/bin/python3
"""ctile-verify --dump: the dumped files must be in DORY's format, HWC, numbered as the golden
files are. Dumps a network, then verifies the dump itself as a golden folder: every layer must
match, and in HWC order.

Usage: check_dump.py CTILE_VERIFY NETWORK_DIR OUTDIR
"""
import json
import os
import shutil
import subprocess
import sys

exe, net, outdir = sys.argv[1:4]
shutil.rmtree(outdir, ignore_errors=True)
p = subprocess.run([exe, net, "--dump", outdir], capture_output=True, text=True, timeout=300)
print(p.stdout)
if p.returncode != 0:
    print("FAIL: ctile-verify --dump failed: " + p.stderr)
    sys.exit(1)
golden = sorted(f for f in os.listdir(net) if f.startswith("out_layer"))
dumped = sorted(f for f in os.listdir(outdir) if f.startswith("out_layer"))
if golden != dumped:
    print("FAIL: dumped %s, golden files are %s" % (dumped, golden))
    sys.exit(1)
for f in ("model_int.onnx", "input.txt"):
    shutil.copy(os.path.join(net, f), os.path.join(outdir, f))
p = subprocess.run([exe, outdir, "--json"], capture_output=True, text=True, timeout=300)
print(p.stdout)
rows = [r for r in json.loads(p.stdout)["rows"] if r["counted"]] if p.returncode == 0 else []
if p.returncode != 0 or not rows or any(r["layout"] != "HWC" or not r["exact"] for r in rows):
    print("FAIL: the dump does not verify as HWC golden files")
    sys.exit(1)
