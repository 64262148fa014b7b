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
print("ok", len(d["layers"]), "layers")
