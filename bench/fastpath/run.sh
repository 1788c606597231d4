#!/bin/sh
# Fast-path cost of ccc_checkpoint(): ns per loop iteration with a site
# (built with ckpt-cc) vs without (-DNO_SITE, same flags), 5 runs each,
# interleaved; prints min and median of each and the cost per site.
# Usage: bench/fastpath/run.sh [iterations] [PREFIX]
#   iterations  per run (default 200000000)
#   PREFIX      the ccc install tree (default: build/install, from
#               scripts/build.sh)
set -eu
top=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
n=${1:-200000000}
cc=${2:-$top/build/install}/bin/ckpt-cc
case $n in
  '' | *[!0-9]* | 0) echo "$0: iterations must be a positive integer, not '$n'" >&2; exit 2 ;;
esac
if [ ! -x "$cc" ]; then
  echo "$0: $cc not found (run scripts/build.sh, or name the install prefix)" >&2
  exit 2
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$cc" -O2 -o "$out/site" "$top/bench/fastpath/fastpath.c"
"$cc" -O2 -DNO_SITE -o "$out/nosite" "$top/bench/fastpath/fastpath.c"
export CCC_DIR="$out/ckpt" CCC_RESTART=never
for i in 1 2 3 4 5; do
  "$out/site" "$n" >>"$out/site.txt"
  "$out/nosite" "$n" >>"$out/nosite.txt"
done
stats() { sort -n "$1" | awk '{a[NR]=$1} END {printf "%.4f %.4f", a[1], a[int((NR+1)/2)]}'; }
set -- $(stats "$out/site.txt") $(stats "$out/nosite.txt")
echo "ns/iteration   min      median"
echo "with site      $1   $2"
echo "without site   $3   $4"
awk -v a="$2" -v b="$4" 'BEGIN {printf "site cost: %.3f ns (median difference), ratio %.3f\n", a-b, a/b}'
