#!/bin/sh
# Allocator throughput: ccc's region allocator (ckpt-cc build) vs glibc
# malloc (plain clang-19 build) on the same operation sequence, with 1, 2
# and 4 threads allocating at once (each its own sequence and slots, as
# OpenMP workers in a region); 5 runs each, interleaved; prints min/median
# ops/s of all threads and the median ratio ccc/glibc per thread count.
# Usage: bench/alloc/run.sh [operations] [PREFIX]
#   operations  per run and thread (default 20000000)
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
clang-19 -O2 -pthread -o "$out/glibc" "$src"
"$prefix/bin/ckpt-cc" -O2 -o "$out/ccc" "$src"
export CCC_DIR="$out/ckpt" CCC_RESTART=never
# A failing run is reported with its messages (kept quiet otherwise).
run() {
  if ! "$out/$1" "$n" "$2" >>"$out/$1.$2.txt" 2>"$out/$1.err"; then
    echo "$0: the $1 build failed with $n operations, $2 threads:" >&2
    cat "$out/$1.err" >&2
    exit 1
  fi
}
stats() { sort -n "$1" | awk '{a[NR]=$1} END {printf "%.0f %.0f", a[1], a[int((NR+1)/2)]}'; }
echo "threads  ops/s: ccc min   median   glibc min   median   ratio ccc/glibc (median)"
for t in 1 2 4; do
  for i in 1 2 3 4 5; do
    run glibc "$t"
    run ccc "$t"
  done
  set -- $(stats "$out/ccc.$t.txt") $(stats "$out/glibc.$t.txt")
  awk -v t="$t" -v a="$1" -v b="$2" -v c="$3" -v d="$4" \
    'BEGIN {printf "%-8s %12s %12s %12s %12s   %.2f\n", t, a, b, c, d, b/d}'
done
