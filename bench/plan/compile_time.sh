#!/usr/bin/env bash
# Measures what planning MobileNet-v1 1.0-128 at compile time adds to the compile of one
# translation unit: compiles plan_mobilenet_v1.cpp and baseline_mobilenet_v1.cpp RUNS times each
# and reports the median user time of each, the difference, and the compiler's peak memory
# (/usr/bin/time -v). Usage: compile_time.sh [CXX] [RUNS]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
cxx=${1:-c++}
runs=${2:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flags=(-std=c++20 -O2 -c -I"$root/include" -I"$root/examples")

measure() {  # file -> lines "user_seconds max_rss_kb"
  for _ in $(seq "$runs"); do
    /usr/bin/time -v "$cxx" "${flags[@]}" "$here/$1" -o "$tmp/out.o" 2>"$tmp/time.txt" >/dev/null
    user=$(awk -F': ' '/User time/ {print $2}' "$tmp/time.txt")
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/time.txt")
    echo "$user $rss"
  done | sort -n | awk -v n="$runs" 'NR == int((n + 1) / 2) {print}'
}

read -r plan_user plan_rss < <(measure plan_mobilenet_v1.cpp)
read -r base_user base_rss < <(measure baseline_mobilenet_v1.cpp)
echo "compiler: $("$cxx" --version | head -1)"
echo "planning TU:  user ${plan_user} s, peak memory ${plan_rss} kB (median of $runs)"
echo "baseline TU:  user ${base_user} s, peak memory ${base_rss} kB (median of $runs)"
awk -v a="$plan_user" -v b="$base_user" 'BEGIN {printf "planning MobileNet-v1 1.0-128 adds %.2f s of compile time\n", a - b}'
