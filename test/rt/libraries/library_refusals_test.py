#!/usr/bin/env python3
"""A library's thread or socket makes a checkpoint fail, with its reason.

PROGRAM (library_refusals.c) forces four checkpoints: while the pool of
two threads libtest_worker.so started when it was loaded waits, while a
thread that library started runs, while it holds a socket, and after all
are gone. The first three must return CCC_NONE (0) with a ccc: line each
(the first two naming the library), the fourth CCC_TAKEN (1); only the
fourth version is committed.

usage: library_refusals_test.py PROGRAM
"""
import glob
import os
import subprocess
import sys
import tempfile

PROG = sys.argv[1]
d = tempfile.mkdtemp(prefix="ccc-library-refusals-")
env = dict(os.environ, CCC_DIR=os.path.join(d, "ckpt"), CCC_INTERVAL="0",
           CCC_RESTART="never")
r = subprocess.run([PROG], cwd=d, env=env, capture_output=True, text=True,
                   timeout=120)
commits = sorted(os.path.basename(c)
                 for c in glob.glob(os.path.join(d, "ckpt", "*.commit")))
lines = [l for l in r.stderr.splitlines() if l.startswith("ccc:")]
pool = [l for l in lines if "2 threads started by" in l and
        "libtest_worker.so" in l and "not taken" in l]
thread = [l for l in lines if "1 thread started by" in l and
          "libtest_worker.so" in l and "not taken" in l]
socket = [l for l in lines if "socket" in l and "not taken" in l]
ok = (r.returncode == 0 and
      r.stdout == "pool 0 thread 0 socket 0 after 1\n" and len(pool) == 1 and
      len(thread) == 1 and len(socket) == 1 and len(commits) == 1)
print(f"exit {r.returncode}, stdout {r.stdout!r}, commits {commits}")
print("\n".join(lines))
if not ok:
    print(f"FAIL; stderr:\n{r.stderr}\nfiles in {d}")
    sys.exit(1)
subprocess.run(["rm", "-rf", d])
