#!/bin/sh
# Change detection for incremental checkpoints: content hashing (XXH3-64 of
# every 64 KiB chunk, what ccc does) against dirty-page tracking (soft-dirty,
# asynchronous uffd-wp, mprotect) on the same memory and the same writes.
# Builds dirty.c with clang-19 into a temporary directory and runs it.
# Usage: bench/incremental/run.sh [full|smoke]
#   full   256 MiB, 9 intervals per case (20 s on a quiet 2-core VM, a minute
#          under load)
#   smoke  4 MiB, 1 interval per case (a second): checks that every working
#          tracker reports every changed chunk; its times mean nothing
# Exit status 1 when a method misses a changed chunk.
set -eu
here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
case ${1:-full} in
  full) args="256 9" ;;
  smoke) args="4 1" ;;
  *) echo "usage: $0 [full|smoke]" >&2; exit 2 ;;
esac
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
clang-19 -O2 -Wall -Wextra -o "$out/dirty" "$here/dirty.c" -lxxhash
# Whether this kernel was built with soft-dirty tracking, when it says.
if [ -r /proc/config.gz ]; then
  echo "kernel config: $(zcat /proc/config.gz | grep -E '^(# )?CONFIG_MEM_SOFT_DIRTY[= ]' || echo 'CONFIG_MEM_SOFT_DIRTY absent')"
fi
"$out/dirty" $args
