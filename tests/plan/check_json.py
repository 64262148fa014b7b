"""Checks ctile-plan --json output (read from stdin): valid JSON, every layer after the input
carries the documented fields with consistent values, and the network fits."""
import json
import sys

d = json.load(sys.stdin)
need = ["name", "kind", "in", "out", "kernel", "stride", "pad", "tile_out", "tile_in", "tiles",
        "l1_bytes", "l1_budget", "l3", "split", "cycles", "macs"]
assert d["fits"], d["problem"]
for layer in d["layers"][1:]:
    for k in need:
        assert k in layer, (layer.get("name"), k)
    for k in ["x", "y", "w", "im2col", "kappa_lambda", "total"]:
        assert k in layer["l1_bytes"], k
    for k in ["x", "w", "y"]:
        assert isinstance(layer["l3"][k], bool), k
    assert len(layer["in"]) == 3 and len(layer["out"]) == 3 and len(layer["pad"]) == 4
    assert layer["l1_bytes"]["total"] <= layer["l1_budget"], layer["name"]
    tiles = layer["tiles"]
    tile = layer["tile_out"]
    out = layer["out"]
    for a in range(3):
        assert (out[a] + tile[a] - 1) // tile[a] == tiles[a], (layer["name"], a)
    assert layer["cycles"] > 0, layer["name"]
    # Where the weights live agrees with the L3 decision, and a reason's numbers with the budget.
    w = layer["weights"]
    if w["bytes"] == 0:
        assert w["where"] == "none" and w["why"] == "none", layer["name"]
    else:
        assert w["where"] == ("l3" if layer["l3"]["w"] else "l2"), layer["name"]
        assert (layer["l2"]["l3_w"] >= 0) == (w["where"] == "l3"), layer["name"]
        if d["stream_weights"]:
            assert w["why"] == "forced", layer["name"]
        elif w["where"] == "l2":
            assert w["why"] in ("fits", "no_l3"), layer["name"]
        else:
            assert w["why"] == "l2_full" and w["needs"] > d["platform"]["l2_budget"], layer["name"]
            resident = sum(l["weights"]["bytes"] for l in d["layers"] if l["weights"]["where"] == "l2")
            assert resident <= d["weights_resident"], layer["name"]
assert d["l3_bytes_per_frame"] == sum(l["l3"]["l3_bytes"] for l in d["layers"])
print("ok", len(d["layers"]), "layers")
