#!/usr/bin/env bash
# The tiler's cost per example network: what planning it at compile time (plan_of on GAP-8)
# adds to one translation unit's compile (user time, against a TU that only declares the
# network) and the compiler's peak memory, plus the Z3 step (bench_solve) when its binary is
# given. Usage: tiler_table.sh [CXX] [BENCH_SOLVE]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
cxx=${1:-c++}
solve=${2:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flags=(-std=c++20 -O2 -c -I"$root/include" -I"$root/kernels" -I"$root/examples")

networks=(
  "networks/cifar10_cnn.hpp cifar10_cnn"
  "networks/residual.hpp resnet_small"
  "networks/mobilenet_v1.hpp mobilenet_v1_100_128"
  "networks/mobilenet_v1.hpp mobilenet_v1_050_192"
  "networks/mobilenet_v1.hpp mobilenet_v1_025_128"
  "networks/mobilenet_v2.hpp mobilenet_v2_035_128"
  "networks/mobilenet_v2.hpp mobilenet_v2_100_128"
)

measure() {  # file -> "user_seconds max_rss_kb"
  /usr/bin/time -v "$cxx" "${flags[@]}" "$1" -o "$tmp/out.o" 2>"$tmp/time.txt" >/dev/null
  echo "$(awk -F': ' '/User time/ {print $2}' "$tmp/time.txt") $(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/time.txt")"
}

echo "compiler: $("$cxx" --version | head -1)"
printf "%-22s %12s %12s\n" network "plan s" "peak MB"
for entry in "${networks[@]}"; do
  read -r header net <<<"$entry"
  cat >"$tmp/base.cpp" <<SRC
#include <ctile/plan/plan.hpp>
#include <ctile/platform/gap8.hpp>
#include "$header"
int layers() { return static_cast<int>(ctile::examples::$net::size); }
SRC
  cat >"$tmp/plan.cpp" <<SRC
#include <ctile/plan/plan.hpp>
#include <ctile/platform/gap8.hpp>
#include "$header"
long long cycles() { return ctile::plan_of<ctile::examples::$net, ctile::gap8>.summary.cycles; }
int layers() { return static_cast<int>(ctile::examples::$net::size); }
SRC
  read -r pu pr < <(measure "$tmp/plan.cpp")
  read -r bu _ < <(measure "$tmp/base.cpp")
  printf "%-22s %12.2f %12.0f\n" "$net" "$(awk -v a="$pu" -v b="$bu" 'BEGIN {print a - b}')" \
    "$(awk -v r="$pr" 'BEGIN {print r / 1024}')"
done
if [ -n "$solve" ] && [ -x "$solve" ]; then
  echo
  echo "Z3 step (bench_solve):"
  "$solve" --repeat 1
fi
