#!/bin/bash
# The ccc demo: builds ccc and demo/heat.c (with ckpt-cc), runs the program
# uninterrupted, then runs it with checkpoints, SIGKILLs it after a committed
# checkpoint, restarts it, runs it again under `ckpt run` with injected
# failures, and compares the results bit for bit.
set -euo pipefail
top=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
"$top/scripts/build.sh"
prefix=$top/build/install
# Not build/demo: that is CMake's directory for demo/ (removing it broke
# `cmake --install build` until the next configure).
work=$top/build/demo-run
rm -rf "$work"
mkdir -p "$work"
cd "$work"

echo "== build: ckpt-cc -O2 -o heat demo/heat.c"
"$prefix/bin/ckpt-cc" -O2 -o heat "$top/demo/heat.c" -lm

echo "== 1. uninterrupted run (reference)"
start=$(date +%s.%N)
CCC_RESTART=never CCC_DIR="$work/ref-ckpt" ./heat >reference.out 2>reference.err
end=$(date +%s.%N)
echo "   $(cat reference.out)   ($(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.1f", b - a}') s)"

echo "== 2. run with a checkpoint every second; SIGKILL after a committed one"
export CCC_DIR="$work/ckpt" CCC_INTERVAL=1 CCC_VERBOSE=1
./heat >killed.out 2>killed.err &
pid=$!
until ls "$CCC_DIR"/*.commit >/dev/null 2>&1; do
  kill -0 $pid 2>/dev/null || { echo "demo: program ended before a checkpoint"; cat killed.err; exit 1; }
  sleep 0.05
done
sleep 1.3
rss_kb=$(awk '/^VmRSS/ {print $2}' /proc/$pid/status)
kill -KILL $pid
wait $pid 2>/dev/null || true
echo "   killed pid $pid with SIGKILL after: $(grep -c 'committed' killed.err) committed checkpoint(s)"

echo "== 3. restart (same command)"
./heat >restarted.out 2>restarted.err
grep 'ccc: restarting' restarted.err | sed 's/^/   /'
echo "   $(cat restarted.out)"

echo "== 4. ckpt run: the same job, relaunched by ckpt run after 3 injected failures"
echo "   (a kill at a random moment, a kill while an image is written, one before a commit)"
supervised_ok=no
if "$prefix/bin/ckpt" run --inject random:mtbf=1.5,count=3,seed=7 --backoff 0.2 \
    --stdout supervised.out -- ./heat 2>supervised.err; then
  supervised_ok=yes
fi
grep -E '^ckpt run: (injected|attempt|finished|failed)|CCC_INJECT' supervised.err | sed 's/^/   /'
echo "   $(cat supervised.out)"

echo "== 5. compare"
image=$(ls -t "$CCC_DIR"/*.ccc | head -n 1)
"$prefix/bin/ckpt" info "$image" | sed 's/^/   /'
img_bytes=$(stat -c %s "$image")
if cmp -s reference.out restarted.out && [ $supervised_ok = yes ] &&
  cmp -s reference.out supervised.out; then
  verdict="IDENTICAL to the uninterrupted run"
else
  verdict="DIFFERENT from the uninterrupted run"
fi
echo
echo "result:          $(cat restarted.out)"
echo "under ckpt run:  $(cat supervised.out)"
echo "verdict:         $verdict"
echo "image size:      $img_bytes bytes ($(( img_bytes / 1024 )) KiB)"
echo "resident memory: $(( rss_kb * 1024 )) bytes ($rss_kb KiB) of the killed process"
[ "$verdict" = "IDENTICAL to the uninterrupted run" ]
