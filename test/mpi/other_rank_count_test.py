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
import os
import shlex
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from restart_case import (Checks, contents, finished,  # noqa: E402
                          killed_after_commit, mpi_env, parse,
                          plain_reference)

a, _, cmd = parse()
launcher = shlex.split(a.launcher)
check = Checks()
failures = check.failures

work = tempfile.mkdtemp(prefix="ccc-ranks-")
ckpt = os.path.join(work, "ckpt")
env = dict(os.environ, CCC_DIR=ckpt, CCC_INTERVAL="0.2", CCC_VERBOSE="1",
           **mpi_env())
ref = plain_reference(a.ref, env, work)
check(ref.returncode == 0 and ref.stdout, "the plain reference runs")


def job(np, name):
    """Runs the checkpointed program with np ranks; None if it hangs."""
    return finished(launcher + [str(np)] + cmd, env,
                    os.path.join(work, name), 120)


# A job of 2 ranks, killed once a version is committed.
check(killed_after_commit(launcher + ["2"] + cmd, env,
                          os.path.join(work, "first"), ckpt),
      "the 2-rank job committed a checkpoint before it ended")
before = contents(ckpt)

for np in (3, 1):
    rc, r = job(np, f"np{np}")
    check(rc is not None, f"{np} ranks: the job ends (no hang)")
    check(rc not in (None, 0), f"{np} ranks: and fails (exit {rc})")
    check(f"were written by a job of 2 ranks, this one has {np}: restart it "
          f"with 2 ranks" in r.stderr(), f"{np} ranks: ccc: error names both "
          f"counts")
    check("restarting from" not in r.stderr(), f"{np} ranks: nothing restored")
    check(contents(ckpt) == before, f"{np} ranks: every checkpoint file is as "
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
