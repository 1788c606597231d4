#!/usr/bin/env python3
"""Ranks that do not share ccc's settings are told so; the job does not hang.

With Open MPI, remote ranks see only the variables named with -x: a job
started with CCC_LOCAL_DIR (or CCC_DIR) set where mpirun runs has them on
that host's ranks only. Ranks with different settings took different paths
through their first collectives and waited for one another for ever. Here
rank 1 loses one variable through a shell wrapper, as a remote rank would:

 1. CCC_LOCAL_DIR set on rank 0 only: the job must end (not hang) with
    `ccc: CCC_LOCAL_DIR is not set on rank 1 but set on rank 0`;
 2. a job with CCC_DIR on both ranks commits a checkpoint and is killed;
    then CCC_DIR is missing on rank 1: rank 0 would restart, rank 1 start
    afresh; the job must end with `ccc: CCC_DIR is not set on rank 1 but
    set on rank 0`, and every file of the checkpoint directory be kept;
 3. the same command with CCC_DIR on both ranks restarts and prints what
    the uninterrupted plain program prints.

  usage: settings_differ_test.py --ref "PLAIN COMMAND WITH 2 RANKS"
         --launcher "LAUNCHER WORDS BEFORE THE RANK COUNT" -- PROGRAM ARGS...
"""
import argparse
import glob
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "harness"))
from killrestart import Run, committed, private_mpi_env  # noqa: E402

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


def rank1_without(var):
    """The program, with var unset on rank 1 (Open MPI's or MPICH's rank
    variable says which rank a process is)."""
    script = ('r=${OMPI_COMM_WORLD_RANK:-$PMI_RANK}; '
              '[ "$r" = 1 ] && unset %s; exec "$@"' % var)
    return ["sh", "-c", script, "sh"] + cmd


work = tempfile.mkdtemp(prefix="ccc-settings-")
mpi_env, _ = private_mpi_env()
ckpt = os.path.join(work, "ckpt")
local = os.path.join(work, "local")
os.makedirs(local)
env = dict(os.environ, CCC_DIR=ckpt, CCC_INTERVAL="0.2", CCC_VERBOSE="1",
           **mpi_env)
ref = subprocess.run(a.ref, shell=True, capture_output=True, timeout=300,
                     env=dict(env, CCC_RESTART="never", CCC_INTERVAL="0",
                              CCC_DIR=os.path.join(work, "ref")))
check(ref.returncode == 0 and ref.stdout, "the plain reference runs")


def job(argv, name, extra=None):
    """Runs argv with 2 ranks; (exit status or None if it hangs, Run)."""
    r = Run(launcher + ["2"] + argv, dict(env, **(extra or {})),
            os.path.join(work, name))
    try:
        r.p.wait(timeout=60)
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


rc, r = job(rank1_without("CCC_LOCAL_DIR"), "local",
            {"CCC_DIR": os.path.join(work, "ckpt-local"),
             "CCC_LOCAL_DIR": local})
check(rc is not None, "CCC_LOCAL_DIR on rank 0 only: the job ends (no hang)")
check(rc not in (None, 0), "CCC_LOCAL_DIR on rank 0 only: and fails (%s)"
      % rc)
check("ccc: CCC_LOCAL_DIR is not set on rank 1 but set on rank 0"
      in r.stderr(), "CCC_LOCAL_DIR on rank 0 only: ccc: error says so")

first = Run(launcher + ["2"] + cmd, env, os.path.join(work, "first"))
deadline = time.monotonic() + 120
while not committed(ckpt) and first.p.poll() is None and \
        time.monotonic() < deadline:
    time.sleep(0.005)
check(bool(committed(ckpt)) and first.p.poll() is None,
      "the job committed a checkpoint before it ended")
first.kill()
before = contents()

rc, r = job(rank1_without("CCC_DIR"), "dir")
check(rc is not None, "CCC_DIR on rank 0 only: the job ends (no hang)")
check(rc not in (None, 0), "CCC_DIR on rank 0 only: and fails (%s)" % rc)
check("ccc: CCC_DIR is not set on rank 1 but set on rank 0" in r.stderr(),
      "CCC_DIR on rank 0 only: ccc: error says so")
check(contents() == before, "CCC_DIR on rank 0 only: every checkpoint file "
      "is as it was")

rc, r = job(cmd, "again")
check(rc == 0 and "restarting from" in r.stderr(),
      "CCC_DIR on both: restarts from the checkpoint")
check(r.stdout() == ref.stdout, "CCC_DIR on both: result identical to the "
      "uninterrupted plain run")

if failures:
    print("%d failed; files in %s" % (len(failures), work))
    for name in ("local", "dir"):
        p = os.path.join(work, name + ".err")
        if os.path.exists(p):
            print("---- %s.err ----\n%s" % (name, open(p).read()[-2000:]))
    sys.exit(1)
shutil.rmtree(work, ignore_errors=True)
