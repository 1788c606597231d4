#!/usr/bin/env python3
"""A job that finished is not resumed when run again, and a restart says so
in one line.

PROGRAM (rewrites_state.c: STEPS PERCENT, a forced checkpoint per step,
"step N" printed after each) is run:
 1. to the end: exit 0, nothing on stderr, NAME.completed written, and
    `ckpt ls` shows it as "done";
 2. again: starts afresh (its first step is 0), one ccc: line saying the
    job finished and that it starts afresh, same result;
 3. dying after checkpoint 3 (_exit), then again: resumes at step 3 with
    exactly one ccc: line on stderr, "restarting from ... (checkpoint N),
    written S s ago (DATE UTC)", same result;
 4. exiting with status 2 after checkpoint 2 (the program's own failure):
    the next run resumes (a failed run is not a completed one);
 5. after a completed run, CCC_RESTART=require resumes from the last
    checkpoint (the images were kept).

usage: completion_test.py PROGRAM CKPT
"""
import os
import re
import subprocess
import sys
import tempfile

prog, ckpt = sys.argv[1], sys.argv[2]
name = os.path.basename(prog)
bad = 0


def check(ok, what, detail=""):
    global bad
    bad += not ok
    print(("ok   " if ok else "FAIL ") + what + ("" if ok else ": " + detail),
          flush=True)


def run(d, **extra):
    env = dict(os.environ, CCC_DIR=d, **extra)
    env.pop("CCC_VERBOSE", None)
    return subprocess.run([prog, "8", "1"], env=env, capture_output=True,
                          text=True, timeout=120)


def first_step(r):
    steps = [l for l in r.stdout.splitlines() if l.startswith("step ")]
    return int(steps[0].split()[1]) if steps else None


def ccc_lines(r):
    return [l for l in r.stderr.splitlines() if l.startswith("ccc:")]


with tempfile.TemporaryDirectory(prefix="ccc-completion-") as tmp:
    d = os.path.join(tmp, "ckpt")
    ref = run(os.path.join(tmp, "ref"))
    result = ref.stdout.splitlines()[-1]
    check(ref.returncode == 0 and result.startswith("done") and
          ref.stderr == "", "a run to the end: exit 0, stderr empty",
          ref.stderr)
    check(os.path.exists(os.path.join(tmp, "ref", name + ".completed")),
          "a run to the end is recorded as completed")
    ls = subprocess.run([ckpt, "ls", os.path.join(tmp, "ref")],
                        capture_output=True, text=True).stdout
    check(re.search(r"^%s\.completed\s+done\s+8\s" % re.escape(name), ls,
                    re.M) is not None, "ckpt ls shows it done at version 8",
          ls)

    again = run(os.path.join(tmp, "ref"))
    lines = ccc_lines(again)
    check(again.returncode == 0 and first_step(again) == 0 and
          again.stdout.splitlines()[-1] == result,
          "run again: starts afresh with the same result",
          "first step %s" % first_step(again))
    check(len(lines) == 1 and "finished normally" in lines[0] and
          "starting afresh" in lines[0],
          "run again: one ccc: line says so", again.stderr)

    crash = run(d, CHAIN_DIE_AT="3")
    check(crash.returncode == 9, "a run dies after checkpoint 4 (step 3)")
    check(not os.path.exists(os.path.join(d, name + ".completed")),
          "a run that died is not recorded as completed")
    resumed = run(d)
    lines = ccc_lines(resumed)
    check(resumed.returncode == 0 and first_step(resumed) == 3 and
          resumed.stdout.splitlines()[-1] == result,
          "the next run resumes at step 3 with the same result",
          "first step %s, rc %d" % (first_step(resumed), resumed.returncode))
    check(len(lines) == 1 and re.match(
        r"ccc: restarting from \S+\.v000004\.r0\.ccc \(checkpoint 4\), "
        r"written \d+ s ago \(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\)$",
        lines[0]) is not None,
          "the restart says it in one ccc: line (version, age)",
          resumed.stderr)

    d2 = os.path.join(tmp, "failed")
    failed = run(d2, CHAIN_EXIT_AT="2")
    check(failed.returncode == 2 and
          not os.path.exists(os.path.join(d2, name + ".completed")),
          "exit status 2: not recorded as completed")
    after = run(d2)
    check(after.returncode == 0 and first_step(after) == 2,
          "the run after a failed one resumes",
          "first step %s" % first_step(after))

    req = run(os.path.join(tmp, "ref"), CCC_RESTART="require")
    check(req.returncode == 0 and first_step(req) == 7 and
          "restarting from" in req.stderr,
          "CCC_RESTART=require resumes a completed job's last checkpoint",
          "first step %s: %s" % (first_step(req), req.stderr))
sys.exit(1 if bad else 0)
