#!/usr/bin/env python3
"""The disk an image chain takes is bounded: with CCC_KEEP=K the directory
holds about K + 1 full images per rank (docs/configuration.md), because a
full image is written whenever an increment would not be clearly smaller.

PROGRAM (rewrites_state.c) prints, after each forced checkpoint, the bytes
of its images and the largest one. Checked:
 - whole state rewritten every step (increments as large as full images):
   at every step, images <= (K + 1.25) x the largest, for K = 2 and 3, in a
   run that crashes midway and a restart that finishes it (the policy
   measures the restored chain too), and the result equals an uninterrupted
   run's;
 - 1 % rewritten: increments are still written (the smallest image is
   under a fifth of the largest) and the bound holds.

usage: chain_bound_test.py PROGRAM
"""
import os
import subprocess
import sys
import tempfile

prog = sys.argv[1]
bad = 0


def check(ok, what):
    global bad
    bad += not ok
    print(("ok   " if ok else "FAIL ") + what, flush=True)


def run(d, keep, *args, die_at=None):
    env = dict(os.environ, CCC_DIR=d, CCC_KEEP=str(keep))
    if die_at is not None:
        env["CHAIN_DIE_AT"] = str(die_at)
    r = subprocess.run([prog] + [str(a) for a in args], env=env,
                       capture_output=True, text=True, timeout=300)
    steps = []
    for line in r.stdout.splitlines():
        w = line.split()
        if w[0] == "step":
            steps.append((int(w[1]), int(w[3]), int(w[5]), int(w[7])))
    return r, steps


with tempfile.TemporaryDirectory(prefix="ccc-chain-") as tmp:
    ref, _ = run(os.path.join(tmp, "ref"), 2, 14, 100)
    check(ref.returncode == 0 and "done" in ref.stdout, "uninterrupted run")
    for keep in (2, 3):
        d = os.path.join(tmp, "k%d" % keep)
        first, s1 = run(d, keep, 14, 100, die_at=6)
        check(first.returncode == 9 and len(s1) == 7,
              "keep %d: first run crashed after checkpoint 7" % keep)
        second, s2 = run(d, keep, 14, 100)
        check(second.returncode == 0 and second.stdout.endswith(
            ref.stdout.splitlines()[-1] + "\n") and len(s2) == 8,
              "keep %d: restart finished with the uninterrupted result "
              "(%d steps after the restart)" % (keep, len(s2)))
        worst = max(b / big for _, _, b, big in s1 + s2)
        most = max(n for _, n, _, _ in s1 + s2)
        check(worst <= keep + 1.25,
              "keep %d, whole state rewritten: images <= %.2f x the largest "
              "(at most %d files), bound %.2f" % (keep, worst, most,
                                                   keep + 1.25))
    d = os.path.join(tmp, "small")
    r, s = run(d, 2, 14, 1)
    check(r.returncode == 0 and len(s) == 14, "1 % rewritten: run finished")
    sizes = []
    for f in os.listdir(d):
        if f.endswith(".ccc"):
            sizes.append(os.path.getsize(os.path.join(d, f)))
    worst = max(b / big for _, _, b, big in s)
    check(min(sizes) * 5 < max(sizes),
          "1 %% rewritten: increments written (smallest image %d bytes, "
          "largest %d)" % (min(sizes), max(sizes)))
    check(worst <= 3.25, "1 %% rewritten: images <= %.2f x the largest" % worst)
sys.exit(1 if bad else 0)
