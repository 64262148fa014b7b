#!/bin/sh
# Builds the fuzz target (clang-19, libFuzzer, ASan+UBSan), or runs it for a fixed number of
# inputs from a fixed seed over a corpus of valid models.
# Usage: smoke.sh build SRC BUILD | smoke.sh run SRC BUILD CORPUS RUNS
set -eu
mode=$1 src=$2 build=$3
if ! command -v clang++-19 >/dev/null; then
  echo "clang++-19 not found: fuzz smoke skipped"
  exit 77
fi
if [ "$mode" = build ]; then
  cmake -S "$src" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++-19 -DCMAKE_BUILD_TYPE=Debug >/dev/null
  exec cmake --build "$build" -j2
fi
corpus=$4 runs=$5
# A fresh corpus every time: the same seed over the same inputs gives the same run.
rm -rf "$build/corpus" "$build/work"
mkdir -p "$build/corpus" "$build/work"
n=0
for f in "$corpus"/*/model_int.onnx; do
  n=$((n + 1))
  cp "$f" "$build/corpus/seed$n.onnx"
done
ASAN_OPTIONS=detect_leaks=1 "$build/fuzz_import" -seed=1 -runs="$runs" -max_len=65536 \
  -dict="$src/onnx.dict" \
  -max_total_time=25 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  "$build/work" "$build/corpus"
