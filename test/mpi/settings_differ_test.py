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

(Command line: restart_case.py.)
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from restart_case import (Checks, contents, finish, finished,  # noqa: E402
                          killed_after_commit, mpi_env, parse,
                          plain_reference)

a, launch, cmd = parse()
check = Checks()


def rank1_without(var):
    """The program, with var unset on rank 1 (Open MPI's or MPICH's rank
    variable says which rank a process is)."""
    script = ('r=${OMPI_COMM_WORLD_RANK:-$PMI_RANK}; '
              '[ "$r" = 1 ] && unset %s; exec "$@"' % var)
    return ["sh", "-c", script, "sh"] + cmd


work = tempfile.mkdtemp(prefix="ccc-settings-")
ckpt = os.path.join(work, "ckpt")
local = os.path.join(work, "local")
os.makedirs(local)
env = dict(os.environ, CCC_DIR=ckpt, CCC_INTERVAL="0.2", CCC_VERBOSE="1",
           **mpi_env())
ref = plain_reference(a.ref, env, work)
check(ref.returncode == 0 and ref.stdout, "the plain reference runs")


def job(argv, name, extra=None):
    """Runs argv with 2 ranks; (exit status or None if it hangs, Run)."""
    return finished(launch + argv, dict(env, **(extra or {})),
                    os.path.join(work, name), 60)


rc, r = job(rank1_without("CCC_LOCAL_DIR"), "local",
            {"CCC_DIR": os.path.join(work, "ckpt-local"),
             "CCC_LOCAL_DIR": local})
check(rc is not None, "CCC_LOCAL_DIR on rank 0 only: the job ends (no hang)")
check(rc not in (None, 0), "CCC_LOCAL_DIR on rank 0 only: and fails (%s)"
      % rc)
check("ccc: CCC_LOCAL_DIR is not set on rank 1 but set on rank 0"
      in r.stderr(), "CCC_LOCAL_DIR on rank 0 only: ccc: error says so")

check(killed_after_commit(launch + cmd, env, os.path.join(work, "first"),
                          ckpt),
      "the job committed a checkpoint before it ended")
before = contents(ckpt)

rc, r = job(rank1_without("CCC_DIR"), "dir")
check(rc is not None, "CCC_DIR on rank 0 only: the job ends (no hang)")
check(rc not in (None, 0), "CCC_DIR on rank 0 only: and fails (%s)" % rc)
check("ccc: CCC_DIR is not set on rank 1 but set on rank 0" in r.stderr(),
      "CCC_DIR on rank 0 only: ccc: error says so")
check(contents(ckpt) == before, "CCC_DIR on rank 0 only: every checkpoint file "
      "is as it was")

rc, r = job(cmd, "again")
check(rc == 0 and "restarting from" in r.stderr(),
      "CCC_DIR on both: restarts from the checkpoint")
check(r.stdout() == ref.stdout, "CCC_DIR on both: result identical to the "
      "uninterrupted plain run")

finish(check, work, ("local", "dir"))
