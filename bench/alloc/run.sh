#!/bin/sh
# Allocator throughput: ccc's region allocator (ckpt-cc build) vs glibc
# malloc (plain clang-19 build) on the same operation sequence; 5 runs each,
# interleaved; prints min/median ops/s and the median ratio ccc/glibc.
# Usage: bench/alloc/run.sh [operations] [PREFIX]
#   operations  per run (default 20000000)
#   PREFIX      the ccc install tree (default: build/install, from
#               scripts/build.sh)
set -eu
top=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
n=${1:-20000000}
prefix=${2:-$top/build/install}
case $n in
  '' | *[!0-9]* | 0) echo "$0: operations must be a positive integer, not '$n'" >&2; exit 2 ;;
esac
if [ ! -x "$prefix/bin/ckpt-cc" ]; then
  echo "$0: $prefix/bin/ckpt-cc not found (run scripts/build.sh, or name the install prefix)" >&2
  exit 2
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
src=$top/bench/alloc/alloc_bench.c
clang-19 -O2 -o "$out/glibc" "$src"
"$prefix/bin/ckpt-cc" -O2 -o "$out/ccc" "$src"
export CCC_DIR="$out/ckpt" CCC_RESTART=never
# A failing run is reported with its messages (kept quiet otherwise).
run() {
  if ! "$out/$1" "$n" >>"$out/$1.txt" 2>"$out/$1.err"; then
    echo "$0: the $1 build failed with $n operations:" >&2
    cat "$out/$1.err" >&2
    exit 1
  fi
}
for i in 1 2 3 4 5; do
  run glibc
  run ccc
done
stats() { sort -n "$1" | awk '{a[NR]=$1} END {printf "%.0f %.0f", a[1], a[int((NR+1)/2)]}'; }
set -- $(stats "$out/ccc.txt") $(stats "$out/glibc.txt")
echo "ops/s          min         median"
echo "ccc        $1   $2"
echo "glibc      $3   $4"
awk -v a="$2" -v b="$4" 'BEGIN {printf "ratio ccc/glibc (median): %.2f\n", a/b}'
