#!/usr/bin/env bash
# What compiling each example costs: user CPU seconds and the compiler's peak memory
# (/usr/bin/time -v) of one example's translation unit, at each optimisation level given, and
# with REPORT=1 where GCC spends it on the keyword-spotting network (-ftime-report's top
# phases). User time, not wall time: the machine may be shared.
# Usage: compile_cost.sh [CXX] [OPT...]     (default: c++ -O2; e.g. compile_cost.sh g++ -O1 -O3)
# EXAMPLES="kws cifar10_cnn" limits the examples measured.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
cxx=${1:-c++}
shift || true
opts=("$@")
[ ${#opts[@]} -gt 0 ] || opts=(-O2)
examples=(${EXAMPLES:-kws cifar10_cnn residual mobilenet_v1 mobilenet_v2})
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flags=(-std=c++20 -DNDEBUG -c -I"$root/include" -I"$root/kernels" -I"$root/examples")

echo "compiler: $("$cxx" --version | head -1)"
printf "%-14s %-4s %10s %10s\n" example opt "user s" "peak MB"
for ex in "${examples[@]}"; do
  for o in "${opts[@]}"; do
    /usr/bin/time -v "$cxx" "${flags[@]}" "$o" "$root/examples/$ex/main.cpp" -o "$tmp/out.o" \
      2>"$tmp/time.txt" >/dev/null
    user=$(awk -F': ' '/User time/ {print $2}' "$tmp/time.txt")
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/time.txt")
    printf "%-14s %-4s %10.2f %10.0f\n" "$ex" "$o" "$user" "$((rss / 1024))"
  done
done

if [ "${REPORT:-0}" = 1 ]; then
  echo
  echo "kws ${opts[0]}: GCC's phases over 2% (-ftime-report)"
  "$cxx" "${flags[@]}" "${opts[0]}" -ftime-report "$root/examples/kws/main.cpp" -o "$tmp/out.o" \
    2>"$tmp/report.txt" >/dev/null
  awk '/^ [a-zA-Z]/ && /%\)/ { line = $0; sub(/:.*/, "", line); split($0, f, "(");
         usr = f[1]; sub(/.*: */, "", usr); pct = f[2]; sub(/%.*/, "", pct);
         if (pct + 0 >= 2) printf "  %-40s %8s s %5s%%\n", line, usr + 0, pct }' \
    "$tmp/report.txt"
fi
