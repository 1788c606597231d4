#!/bin/sh
# Checks the protocol's model with spin: generates the verifier (pan),
# compiles it, runs an exhaustive search of the state space and fails unless
# it ends with "errors: 0" and the search was complete.
#   run_spin.sh [--small] MODEL WORKDIR [-DMACRO ...]
# With --expect-violation PATTERN first, the opposite: passes only if spin
# reports a violated assertion whose text matches PATTERN (a grep -E
# pattern), which proves that an injected bug (-DBUG_...) is caught.
# How much pan is optimized follows the search's size: gcc -O2 takes about
# 25 s on pan.c and pays off only on the full model (10M states: 41 s of
# search against 64 s at -O1); --small (about 1M states) takes -O1 (8 s),
# and a search for an injected bug, which stops at the first violation
# (tens to thousands of states), -O0 (2 s).
set -eu
expect=""
opt=-O2
if [ "${1:-}" = "--expect-violation" ]; then
  expect=$2
  opt=-O0
  shift 2
elif [ "${1:-}" = "--small" ]; then
  opt=-O1
  shift
fi
[ $# -ge 2 ] || { echo "ccc: usage: run_spin.sh [--expect-violation RE | --small] MODEL WORKDIR [-DMACRO ...]" >&2; exit 2; }
model=$1
work=$2
shift 2
command -v spin >/dev/null 2>&1 || { echo "ccc: spin not found (apt-get install spin)" >&2; exit 1; }
CC=${CC:-cc}
mkdir -p "$work"
cd "$work"
rm -f pan pan.* *.trail
# The model may include files beside it (#include "restart.pml").
cp "$(dirname "$model")"/*.pml .
cp "$model" model.pml
spin -a "$@" model.pml >spin.out 2>&1 || { cat spin.out; echo "ccc: spin -a failed" >&2; exit 1; }
# SAFETY: assertions and invalid end states (deadlocks). HC4: hash
# compaction stores 4 words per state instead of the ~1 KB state vector (the
# chance that two states collide is printed as "hash factor"). The state
# vector holds every rank's layer state; VECTORSZ must exceed it.
$CC $opt -w -DSAFETY -DHC4 -DVECTORSZ=4096 -DMEMLIM=2048 -o pan pan.c ||
  { echo "ccc: compiling pan failed" >&2; exit 1; }
start=$(date +%s)
status=0
./pan -m200000 -w26 >pan.out 2>&1 || status=$?
end=$(date +%s)
grep -E "errors:|states, stored|transitions|hash factor|assertion violated|invalid end state|out of memory|Search not completed|max search depth" pan.out || true
echo "pan exit status $status, $((end - start)) s"
if [ -n "$expect" ]; then
  if grep -q "assertion violated" pan.out && grep -E "assertion violated.*($expect)" pan.out >/dev/null; then
    # Replay the counterexample for the log; its last lines say where.
    spin -t "$@" model.pml 2>&1 | grep -E "assertion violated|spin: trail ends" | head -3 || true
    echo "spin found the injected bug"
    exit 0
  fi
  echo "ccc: spin did not report a violated assertion matching '$expect'" >&2
  exit 1
fi
grep -q "errors: 0$" pan.out || { echo "ccc: spin found an error in the model (see $work/pan.out; spin -t -p model.pml replays it)" >&2; exit 1; }
if grep -q "out of memory" pan.out || grep -q "Search not completed" pan.out ||
   grep -q "max search depth too small" pan.out; then
  echo "ccc: the search was not complete" >&2
  exit 1
fi
echo "spin: no errors"
