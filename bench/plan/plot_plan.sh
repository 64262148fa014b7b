#!/usr/bin/env bash
# Charts of one network's plan from ctile-plan, built-in or imported (MODEL.onnx): the same
# per-layer charts bench_network draws for the example networks (bench/network/plots.gp):
# <name>_time.svg (MAC/cycle per layer, and the modeled cycles split compute / DMA stall /
# per-tile overhead / L3 stall) and <name>_memory.svg (L1 tile buffers and live L2 per layer).
# Usage: plot_plan.sh CTILE_PLAN NETWORK|MODEL.onnx OUTPUT_DIR [ctile-plan options...]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
plan=${1:?usage: plot_plan.sh CTILE_PLAN NETWORK|MODEL.onnx OUTPUT_DIR [options]}
net=${2:?usage: plot_plan.sh CTILE_PLAN NETWORK|MODEL.onnx OUTPUT_DIR [options]}
out=${3:?usage: plot_plan.sh CTILE_PLAN NETWORK|MODEL.onnx OUTPUT_DIR [options]}
shift 3
command -v gnuplot >/dev/null || { echo "plot_plan.sh: gnuplot not found (Debian: gnuplot-nox)" >&2; exit 1; }
mkdir -p "$out"
# A file name from the network: the model's folder for DORY's model_int.onnx, else its stem.
case "$net" in
  *.onnx) stem=$(basename "$net" .onnx); [ "$stem" = model_int ] && stem=$(basename "$(dirname "$net")") ;;
  *) stem=$net ;;
esac
"$plan" "$net" --json "$@" >"$out/$stem.json"
/usr/bin/python3 - "$out/$stem.json" "$out/${stem}_layers.dat" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
if not d["fits"]:
    sys.exit("plot_plan.sh: the network does not fit: %s (layer %d needs %d B, budget %d B)"
             % (d["problem"], d["problem_layer"], d["needs"], d["budget"]))
with open(sys.argv[2], "w") as f:
    f.write("# index name kind macs cycles mac_per_cycle compute dma_stall overhead l3_stall "
            "l1_bytes l2_live_bytes\n")
    for l in d["layers"][1:]:
        t = l["time"]
        mpc = l["macs"] / l["cycles"] if l["cycles"] > 0 else 0.0
        f.write('%d "%s" %s %d %d %.4f %d %d %d %d %d %d\n' % (
            l["index"], l["name"], l["kind"], l["macs"], l["cycles"], mpc, t["compute"],
            t["dma_stall"], t["overhead"], t["l3_stall"], l["l1_bytes"]["total"], l["l2_live"]))
PY
exts=(svg)
if gnuplot -e 'set terminal' 2>&1 | grep -q pngcairo; then exts+=(png); fi
for ext in "${exts[@]}"; do
  gnuplot -e "dir='$out'; net='$stem'; title='${stem//_/ }'; ext='$ext'" "$here/../network/plots.gp"
done
ls "$out/${stem}"_*.svg "$out/${stem}"_*.png 2>/dev/null
