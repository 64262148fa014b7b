#!/usr/bin/python3
"""Runs ctile-import on a model it must refuse: checks a non-zero exit status (not a crash),
an error message matching the fixture's expect.txt, and that no output file was written.

Usage: check_error.py CTILE_IMPORT FIXTURE_DIR OUTDIR
"""
import os
import re
import subprocess
import sys

exe, fixture, outdir = sys.argv[1:4]
os.makedirs(outdir, exist_ok=True)
out = os.path.join(outdir, os.path.basename(fixture.rstrip("/")) + ".hpp")
for f in (out, out + ".tmp"):
    if os.path.exists(f):
        os.remove(f)
expect = open(os.path.join(fixture, "expect.txt")).read().strip()
p = subprocess.run([exe, os.path.join(fixture, "model_int.onnx"), "-o", out],
                   capture_output=True, text=True, timeout=60)
print(p.stderr.strip())
ok = True
if p.returncode <= 0 or p.returncode >= 128:
    print("FAIL: exit status %d (expected a clean failure, 1)" % p.returncode)
    ok = False
if not re.search(expect, p.stderr):
    print("FAIL: the error does not match /%s/" % expect)
    ok = False
if os.path.exists(out) or os.path.exists(out + ".tmp"):
    print("FAIL: a (partial) output file was written")
    ok = False
sys.exit(0 if ok else 1)
