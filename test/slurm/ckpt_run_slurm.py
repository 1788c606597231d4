#!/usr/bin/env python3
"""A checkpointed MPI job under a real private Slurm stops on SIGTERM and
finishes after its requeue with the result of an uninterrupted run.

Usage: ckpt_run_slurm.py --ckpt CKPT --mpi NAME=PROG:PLAIN [--mpi ...]
        --args "PROGRAM ARGUMENTS"

Per MPI: the plain program runs once outside Slurm (the reference). Then a
batch job `exec ckpt run --stdout stdout -- LAUNCHER PROG ARGS` is
submitted with --requeue on a cluster whose RequeueExit is 75; after its
first committed checkpoint the batch shell is sent SIGTERM the way
`sbatch --signal=B:TERM@T` sends it before a time limit (`scancel --batch
--signal=TERM`, only the batch shell: `ckpt run`, which passes it to the
ranks). Every rank checkpoints, the job exits with 75, Slurm requeues it,
the second run restarts from the checkpoint and completes. Its standard
output and every rank's log must be byte-identical to the reference's.
Exit status 77 (skip) where Slurm is not installed.
"""
import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "harness"))
import slurm_cluster  # noqa: E402

LAUNCH = {
    "openmpi": "mpirun.openmpi --oversubscribe -np 2",
    "mpich": "mpiexec.mpich -n 2",
}
JOB = """#!/bin/bash
export CCC_INTERVAL=0.25 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "run ${SLURM_RESTART_COUNT:-0}" >> attempts
# exec: the batch shell's SIGTERM must reach ckpt run itself
exec %s run --stdout stdout -- %s %s %s
"""


def fail(msg, detail=""):
    print("FAIL: " + msg)
    if detail:
        print(detail[-5000:])
    sys.exit(1)


def one_mpi(cluster, top, ckpt, mpi, prog, plain, args):
    ref, run = os.path.join(top, mpi, "ref"), os.path.join(top, mpi, "run")
    os.makedirs(ref)
    os.makedirs(run)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    with open(os.path.join(ref, "stdout"), "wb") as out:
        r = subprocess.run(shlex.split(LAUNCH[mpi]) + [plain] +
                           shlex.split(args), cwd=ref, stdout=out,
                           stderr=subprocess.PIPE, env=env, timeout=120)
    if r.returncode != 0:
        fail("%s: the reference run failed" % mpi, r.stderr.decode())
    script = os.path.join(top, mpi, "job.sh")
    with open(script, "w") as f:
        f.write(JOB % (ckpt, LAUNCH[mpi], prog, args))
    jid = cluster.sbatch(script, "--requeue", "--open-mode=append",
                         "--chdir=" + run,
                         "--output=" + os.path.join(top, mpi, "job.out"))
    events = os.path.join(run, "ccc-ckpt", "run", "events")
    deadline = time.monotonic() + 90
    while True:
        try:
            with open(events) as f:
                if any(" commit " in l for l in f):
                    break
        except FileNotFoundError:
            pass
        info = cluster.job_info(jid)
        if time.monotonic() > deadline or (
                info and info["JobState"] in slurm_cluster.DONE_STATES):
            fail("%s: no checkpoint committed in the job" % mpi,
                 open(os.path.join(top, mpi, "job.out")).read())
        time.sleep(0.1)
    cluster.signal(jid, "TERM", batch=True)
    cluster.start_now(jid)
    info = cluster.wait_done(jid, 180)
    out = open(os.path.join(top, mpi, "job.out"), errors="replace").read()
    if info["JobState"] != "COMPLETED" or info["Restarts"] != "1":
        fail("%s: job ended %s after %s restarts, not COMPLETED after 1"
             % (mpi, info["JobState"], info["Restarts"]), out)
    if "checkpointed and stopped" not in out:
        fail("%s: the first run did not checkpoint and stop" % mpi, out)
    with open(events) as f:
        if not any(" restart " in l for l in f):
            fail("%s: the requeued run started afresh" % mpi, out)
    for name in sorted(os.listdir(ref)):
        a, b = os.path.join(ref, name), os.path.join(run, name)
        if not os.path.exists(b) or open(a, "rb").read() != open(b,
                                                                 "rb").read():
            fail("%s: %s differs from the uninterrupted run's" % (mpi, name),
                 out)
    print("%s: stopped on SIGTERM, requeued, finished; output identical"
          % mpi)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--mpi", action="append", default=[])
    ap.add_argument("--args", required=True)
    a = ap.parse_args()
    why = slurm_cluster.missing()
    if why:
        print("SKIP: %s" % why)
        sys.exit(77)
    top = tempfile.mkdtemp(prefix="ckpt_run_slurm_", dir=os.getcwd())
    with slurm_cluster.SlurmCluster(os.path.join(top, "cluster"),
                                    requeue_exit="75") as cluster:
        for spec in a.mpi:
            mpi, progs = spec.split("=", 1)
            prog, plain = progs.split(":", 1)
            one_mpi(cluster, top, a.ckpt, mpi, prog, plain, a.args)
    left = cluster.leftovers()
    if left:
        fail("processes outlived the cluster: %s" % left)
    shutil.rmtree(top)
    print("PASS")


if __name__ == "__main__":
    main()
