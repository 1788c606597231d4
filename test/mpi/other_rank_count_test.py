#!/usr/bin/env python3
"""Restarting a job with another number of ranks is refused plainly and
loses nothing: a job of 2 ranks is SIGKILLed after a committed checkpoint;
started again with 3 ranks and with 1, it must stop (no hang) with a ccc:
error naming both counts, and leave every file of the checkpoint directory
as it was; started with 2 ranks it must restart from the checkpoint and
print what the uninterrupted plain program prints.

  usage: other_rank_count_test.py --ref "PLAIN COMMAND WITH 2 RANKS"
         --launcher "LAUNCHER WORDS BEFORE THE RANK COUNT" -- PROGRAM ARGS...
"""
import argparse
import glob
import hashlib
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "harness"))
from killrestart import Run, committed, descendants, private_mpi_env  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--ref", required=True)
ap.add_argument("--launcher", required=True)
ap.add_argument("cmd", nargs=argparse.REMAINDER)
a = ap.parse_args()
cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
launcher = shlex.split(a.launcher)
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


work = tempfile.mkdtemp(prefix="ccc-ranks-")
mpi_env, _ = private_mpi_env()
ckpt = os.path.join(work, "ckpt")
env = dict(os.environ, CCC_DIR=ckpt, CCC_INTERVAL="0.2", CCC_VERBOSE="1",
           **mpi_env)
ref = subprocess.run(a.ref, shell=True, capture_output=True, timeout=300,
                     env=dict(env, CCC_RESTART="never", CCC_INTERVAL="0",
                              CCC_DIR=os.path.join(work, "ref")))
check(ref.returncode == 0 and ref.stdout, "the plain reference runs")


def job(np, name):
    """Runs the checkpointed program with np ranks; None if it hangs."""
    r = Run(launcher + [str(np)] + cmd, env, os.path.join(work, name))
    try:
        r.p.wait(timeout=120)
    except subprocess.TimeoutExpired:
        r.kill()
        return None, r
    return r.p.returncode, r


def contents():
    out = {}
    for f in sorted(glob.glob(os.path.join(ckpt, "*"))):
        if not f.endswith(".lock"):
            with open(f, "rb") as fh:
                out[os.path.basename(f)] = hashlib.sha256(fh.read()).hexdigest()
    return out


# A job of 2 ranks, killed once a version is committed.
first = Run(launcher + ["2"] + cmd, env, os.path.join(work, "first"))
deadline = time.monotonic() + 120
while not committed(ckpt) and first.p.poll() is None and \
        time.monotonic() < deadline:
    time.sleep(0.005)
check(bool(committed(ckpt)) and first.p.poll() is None,
      "the 2-rank job committed a checkpoint before it ended")
first.kill()
before = contents()

for np in (3, 1):
    rc, r = job(np, f"np{np}")
    check(rc is not None, f"{np} ranks: the job ends (no hang)")
    check(rc not in (None, 0), f"{np} ranks: and fails (exit {rc})")
    check(f"were written by a job of 2 ranks, this one has {np}: restart it "
          f"with 2 ranks" in r.stderr(), f"{np} ranks: ccc: error names both "
          f"counts")
    check("restarting from" not in r.stderr(), f"{np} ranks: nothing restored")
    check(contents() == before, f"{np} ranks: every checkpoint file is as "
          f"it was")

rc, r = job(2, "np2")
check(rc == 0 and "restarting from" in r.stderr(),
      "2 ranks: restarts from the checkpoint")
check(r.stdout() == ref.stdout, "2 ranks: result identical to the "
      "uninterrupted plain run")

if failures:
    print(f"{len(failures)} failed; files in {work}")
    sys.exit(1)
shutil.rmtree(work, ignore_errors=True)
