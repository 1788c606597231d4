#!/usr/bin/env python3
"""Self-test of test/harness/slurm_cluster.py on a real private Slurm.

Usage: cluster_selftest.py [--mpi openmpi=PROBE] [--mpi mpich=PROBE]
(PROBE: test/slurm/mpi_probe.c built for that MPI.)

Starts a cluster and checks, with real jobs:
 1. per MPI, a 2-rank job under sbatch (mpirun.openmpi --oversubscribe /
    mpiexec.mpich) completes and writes the right result; Open MPI launches
    no job step, MPICH's hydra one (through srun);
 2. scontrol requeue of a running job: its batch shell's TERM trap runs,
    the shell's child and the MPI ranks (Open MPI, when given) get SIGTERM
    too, and the job runs a second time with SLURM_RESTART_COUNT=1 and
    completes;
 3. a job exiting 75 under RequeueExit=75 runs again and completes;
 4. scancel --batch --signal=TERM reaches the batch shell, not its child;
    that child outlives the job;
then stops the cluster and requires that no process of it is left (the
orphan included).
Exit status 0 when all hold, 77 (skip) when Slurm is not installed here.
"""
import argparse
import os
import re
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
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1",
           "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}

# Traps TERM (logging it), loops on its first run and ends at once on a later
# one; with a probe, runs it under mpirun in the background. Foreground
# sleeps: a backgrounded one killed by slurmd's TERM before the shell gets
# its own would end the shell's wait. The trap lingers 1 s: slurmd signals
# one process after the other, and a child whose shell is gone is no longer
# found (proctrack/linuxproc).
REQUEUE_JOB = """#!/bin/bash
LOG=$1
echo "start restart=${SLURM_RESTART_COUNT:--}" >> $LOG
trap 'echo "trap TERM restart=${SLURM_RESTART_COUNT:--}" >> $LOG
      sleep 1; exit 1' TERM
[ -n "$SLURM_RESTART_COUNT" ] && { echo "done" >> $LOG; exit 0; }
[ -n "$2" ] && { %s $2 $LOG.mpi 30 & }
(trap 'echo "child TERM" >> $LOG.child; exit 1' TERM
 echo ready >> $LOG.child; while :; do sleep 0.1; done) &
echo running >> $LOG
while :; do sleep 0.1; done
"""

EXIT75_JOB = """#!/bin/bash
echo "run restart=${SLURM_RESTART_COUNT:--}" >> $1
[ -z "$SLURM_RESTART_COUNT" ] && exit 75
exit 0
"""

BATCH_SIGNAL_JOB = """#!/bin/bash
LOG=$1
(trap 'echo "child TERM" >> $LOG' TERM; while :; do sleep 0.1; done) &
echo $! > $LOG.child
trap 'echo "shell TERM" >> $LOG' TERM
echo running >> $LOG
sleep 20 & wait $!
echo "shell woke" >> $LOG
sleep 1  # the child's trap would fire within this second
"""


WORK = None  # kept when a check fails, for its logs


def fail(msg):
    print("ccc: slurm selftest: FAIL: %s (files in %s)" % (msg, WORK),
          file=sys.stderr)
    sys.exit(1)


def expect(what, got, want):
    if got != want:
        fail("%s: got %r, want %r" % (what, got, want))
    print("ok: %s: %r" % (what, got))


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def wait_line(path, line, timeout):
    deadline = time.monotonic() + timeout
    while line not in read(path).splitlines():
        if time.monotonic() > deadline:
            fail("%s has no line %r after %.0f s; it has %r"
                 % (path, line, timeout, read(path)))
        time.sleep(0.1)


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def script(d, name, text):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o755)
    return path


def steps_launched(c, jobid):
    """Job steps slurmd launched for jobid (srun inside the job)."""
    log = read(os.path.join(c.workdir, "log", "slurmd.log"))
    return sorted(set(re.findall(r"launch task StepId=%d\.(\d+)" % jobid,
                                 log)))


def mpi_jobs(c, d, probes):
    for mpi, probe in probes.items():
        out = os.path.join(d, "result." + mpi)
        job = script(d, "mpi_%s.sh" % mpi,
                     "#!/bin/sh\n%s %s %s 0\n" % (LAUNCH[mpi], probe, out))
        jid = c.sbatch(job, env=MPI_ENV)
        info = c.wait_done(jid, 60)
        expect("%s job state" % mpi, (info["JobState"], info["ExitCode"]),
               ("COMPLETED", "0:0"))
        expect("%s result" % mpi, read(out), "size 2 sum 1 restart -\n")
        # Open MPI starts local ranks itself; hydra starts its proxy by srun.
        expect("%s job steps" % mpi, steps_launched(c, jid),
               [] if mpi == "openmpi" else ["0"])


def requeue_job(c, d, probe):
    log = os.path.join(d, "requeue.log")
    job = script(d, "requeue.sh", REQUEUE_JOB % LAUNCH["openmpi"])
    jid = c.sbatch(job, "--requeue", script_args=[log] + ([probe] if probe
                                                           else []),
                   env=MPI_ENV)
    wait_line(log, "running", 30)
    wait_line(log + ".child", "ready", 30)  # its trap is set
    if probe:
        for r in (0, 1):  # handlers installed
            wait_line(log + ".mpi.up", "rank %d up" % r, 30)
    t = time.monotonic()
    c.requeue(jid, start_now=True)
    info = c.wait_done(jid, 60)
    print("requeue to completion: %.1f s" % (time.monotonic() - t))
    expect("requeued job", (info["JobState"], info["Restarts"],
                            info["ExitCode"]), ("COMPLETED", "1", "0:0"))
    expect("requeued job's log", read(log).splitlines(),
           ["start restart=-", "running", "trap TERM restart=-",
            "start restart=1", "done"])
    # bash does not pass signals on: slurmd signals every process of the job.
    expect("batch shell's child on requeue", read(log + ".child"),
           "ready\nchild TERM\n")
    if probe:
        for r in (0, 1):
            expect("rank %d on requeue" % r, read("%s.mpi.rank%d" % (log, r)),
                   "rank %d TERM restart -\n" % r)


def exit75_job(c, d):
    log = os.path.join(d, "exit75.log")
    jid = c.sbatch(script(d, "exit75.sh", EXIT75_JOB), script_args=[log])
    wait_line(log, "run restart=-", 30)
    c.start_now(jid)
    info = c.wait_done(jid, 60)
    expect("job exiting 75", (info["JobState"], info["Restarts"],
                              info["ExitCode"]), ("COMPLETED", "1", "0:0"))
    expect("job exiting 75, runs", read(log).splitlines(),
           ["run restart=-", "run restart=1"])


def batch_signal_job(c, d):
    log = os.path.join(d, "batchsig.log")
    jid = c.sbatch(script(d, "batchsig.sh", BATCH_SIGNAL_JOB),
                   script_args=[log])
    wait_line(log, "running", 30)
    time.sleep(0.5)  # the child has set its trap
    c.signal(jid, "TERM")  # scancel --batch
    info = c.wait_done(jid, 30)
    expect("scancel --batch job", info["JobState"], "COMPLETED")
    expect("scancel --batch --signal=TERM", read(log).splitlines(),
           ["running", "shell TERM", "shell woke"])
    # The child, orphaned when the batch shell ended, escapes slurmd
    # (proctrack/linuxproc follows parents): only stop() can end it.
    child = int(read(log + ".child"))
    expect("orphan of the job alive after the job", alive(child), True)
    return child


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpi", action="append", default=[],
                    help="MPI=PROBE: run the MPI checks with that probe")
    a = ap.parse_args()
    why = slurm_cluster.missing()
    if why:
        print("ccc: slurm selftest skipped: " + why)
        return 77
    probes = dict(m.split("=", 1) for m in a.mpi)
    t0 = time.monotonic()
    # A short path: socket paths are limited to 107 bytes.
    global WORK
    d = WORK = tempfile.mkdtemp(prefix="ccc-slurm-")
    c = slurm_cluster.SlurmCluster(os.path.join(d, "cluster"),
                                   requeue_exit="75")
    with c:
        print("cluster up: %.1f s" % (time.monotonic() - t0))
        mpi_jobs(c, d, probes)
        requeue_job(c, d, probes.get("openmpi"))
        exit75_job(c, d)
        orphan = batch_signal_job(c, d)
    expect("orphan of the job alive after stop", alive(orphan), False)
    left = c.leftovers()
    expect("processes left by the cluster", left, [])
    r = subprocess.run(["pgrep", "-a", "-f", c.workdir], capture_output=True,
                       text=True)
    expect("pgrep -f " + c.workdir, r.stdout, "")
    shutil.rmtree(d)
    print("ok: %.1f s in all" % (time.monotonic() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
