#!/bin/sh
# A randomized kill/restart campaign for the non-blocking protocol: every
# killrestart.mpi.<mpi>.nonblocking.* test of ctest, with enough trials per
# test that each MPI gets at least MIN trials (random checkpoint intervals,
# SIGKILL of a random rank at a random time, restart, output compared with
# the plain build's). Configures its own build tree (the CI's keeps its few
# trials), prints each test's harness summary and the totals per MPI, and
# exits non-zero on any mismatch or failure.
#
# usage: test/mpi/campaign.sh [MIN]     (default 200; about 6 s per trial)
# environment: CAMPAIGN_MPIS (default: "openmpi mpich"), CAMPAIGN_BUILD
#   (default: build-campaign)
set -eu
top=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
min=${1:-200}
build=${CAMPAIGN_BUILD:-$top/build-campaign}
status=0
for mpi in ${CAMPAIGN_MPIS:-openmpi mpich}; do
  cmake -S "$top" -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang-19 \
    -DCMAKE_CXX_COMPILER=clang++-19 -DCMAKE_BUILD_TYPE=Release \
    -DCCC_MPI_NB_TRIALS=1 >/dev/null
  pattern="^killrestart\\.mpi\\.$mpi\\.nonblocking\\."
  tests=$(cd "$build" && ctest -N -R "$pattern" | grep -c "Test *#" || true)
  if [ "$tests" -eq 0 ]; then
    echo "campaign: no non-blocking tests for $mpi (is its layer built?)" >&2
    status=1
    continue
  fi
  per=$(( (min + tests - 1) / tests ))
  cmake -B "$build" -DCCC_MPI_NB_TRIALS=$per >/dev/null
  cmake --build "$build" >/dev/null
  echo "== $mpi: $tests tests x $per trials"
  log=$build/campaign-$mpi.log
  if ! (cd "$build" && ctest -R "$pattern" -V --timeout 7200) >"$log" 2>&1; then
    status=1
  fi
  grep -E "trials identical|FAIL" "$log" | sed 's/^[0-9]*: //' || true
  awk -v mpi="$mpi" '
    /trials identical/ {
      for (i = 1; i < NF; ++i) {
        if ($(i + 1) == "trials") { split($i, t, "/"); ok += t[1]; all += t[2] }
        if ($(i + 1) ~ /^mismatches/) bad += $i
      }
    }
    END { printf "== %s: %d/%d trials identical, %d mismatches\n", mpi, ok, all, bad }
  ' "$log"
done
exit $status
