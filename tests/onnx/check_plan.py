#!/usr/bin/python3
"""ctile-plan on networks given at run time.

  check_plan.py imported CTILE_PLAN CTILE_VERIFY DIR [options...]
      ctile-plan DIR/model_int.onnx --json must fit, carry every layer of the import, split each
      layer's cycles into compute + DMA stall + overhead + L3 stall exactly, and give each layer
      the modeled cycles that ctile-verify reports for it (both plan the imported layers; the
      tiled runtime that verifies bit-exact runs that plan).
  check_plan.py failure CTILE_PLAN NETWORK [options...]
      a plan that does not fit: the table's failing row gives the least L1 the layer needs, the
      same number and layer as the DOES NOT FIT line, and no totals of a plan are printed.
"""
import json
import re
import subprocess
import sys


def run(args):
    p = subprocess.run(args, capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def imported(plan, verify, d, opts):
    rc, out, err = run([plan, d + "/model_int.onnx", "--json"] + opts)
    assert rc == 0, "ctile-plan failed (%d): %s %s" % (rc, out[-500:], err)
    pj = json.loads(out)
    assert pj["fits"], pj["problem"]
    rc, out, err = run([verify, d, "--json"] + opts)
    assert rc == 0, "ctile-verify failed (%d): %s" % (rc, err)
    vj = json.loads(out)
    by_layer = {r["layer"]: r["cycles"] for r in vj["rows"] if r["layer"] >= 1 and r["kind"] != "output"}
    assert by_layer, "no layers verified"
    for l in pj["layers"][1:]:
        t = l["time"]
        assert t["compute"] + t["dma_stall"] + t["overhead"] + t["l3_stall"] == l["cycles"], l["name"]
        assert min(t.values()) >= 0, (l["name"], t)
        if l["index"] in by_layer:
            assert by_layer[l["index"]] == l["cycles"], (l["name"], by_layer[l["index"]], l["cycles"])
    assert vj["cycles"] == pj["cycles"], (vj["cycles"], pj["cycles"])
    print("ok %d layers, %d cycles, %d layers compared" % (len(pj["layers"]) - 1, pj["cycles"],
                                                         len(by_layer)))


def failure(plan, net, opts):
    rc, out, err = run([plan, net] + opts)
    assert rc == 1, "expected exit status 1, got %d: %s" % (rc, err)
    last = re.search(r"DOES NOT FIT: .*\(layer (\d+) (\S*)\): needs (\d+) B, budget (\d+) B", out)
    assert last, out
    layer, name, needs, budget = int(last.group(1)), last.group(2), int(last.group(3)), int(last.group(4))
    rows = [l for l in out.splitlines() if "DOES NOT FIT: needs" in l]
    assert rows, "no failing row"
    row = [r for r in rows if r.split()[0] == str(layer)]
    assert row, "the failing layer %d has no failing row: %s" % (layer, rows)
    cols = row[0].split()
    assert cols[1] == name, (cols[1], name)
    m = re.search(r"DOES NOT FIT: needs (\d+) B of L1", row[0])
    assert int(m.group(1)) == needs, (row[0], needs)
    # The row's total and budget columns are the need and the budget.
    assert str(needs) in cols and str(budget) in cols, row[0]
    total = [l for l in out.splitlines() if l.startswith("total:")]
    assert total and "cycles" not in total[0].split(";")[0] and " 0 MACs" not in total[0], total
    print("ok layer %d %s needs %d B, budget %d B" % (layer, name, needs, budget))


mode = sys.argv[1]
if mode == "imported":
    imported(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
elif mode == "failure":
    failure(sys.argv[2], sys.argv[3], sys.argv[4:])
else:
    sys.exit("unknown mode " + mode)
