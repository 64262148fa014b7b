#!/usr/bin/env bash
# Runs bench_network and draws its charts with gnuplot: SVG always, PNG too when gnuplot has
# the pngcairo terminal. Usage: plot.sh BENCH_NETWORK OUTPUT_DIR
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bench=${1:?usage: plot.sh BENCH_NETWORK OUTPUT_DIR}
out=${2:?usage: plot.sh BENCH_NETWORK OUTPUT_DIR}
command -v gnuplot >/dev/null || { echo "plot.sh: gnuplot not found (Debian: gnuplot-nox)" >&2; exit 1; }
mkdir -p "$out"
"$bench" "$out" >"$out/bench_network.txt"
exts=(svg)
if gnuplot -e 'set terminal' 2>&1 | grep -q pngcairo; then exts+=(png); fi
nets=(cifar10_cnn:"CIFAR-10 CNN" residual:"small ResNet" mobilenet_v1_100_128:"MobileNet-v1 1.0-128"
  mobilenet_v1_050_192:"MobileNet-v1 0.5-192" mobilenet_v1_025_128:"MobileNet-v1 0.25-128"
  mobilenet_v2_035_128:"MobileNet-v2 0.35-128" mobilenet_v2_100_128:"MobileNet-v2 1.0-128")
for ext in "${exts[@]}"; do
  for entry in "${nets[@]}" sweep:sweep; do
    net=${entry%%:*}
    title=${entry#*:}
    [ "$net" = sweep ] || [ -f "$out/${net}_layers.dat" ] || continue
    gnuplot -e "dir='$out'; net='$net'; title='$title'; ext='$ext'" "$here/plots.gp"
  done
done
echo "tables: $out/bench_network.txt"
ls "$out"/*.svg "$out"/*.png 2>/dev/null
