#!/usr/bin/env python3
"""One run per CCC_DIR, program and rank: a run whose lock is held by a live
process stops at once with a ccc: error naming that process; one whose lock
is still held by an exiting process (a killed run whose last thread is still
unmapping its memory) waits for it and runs.

With --mpi LAUNCHER...: the same refusal on one rank of an MPI job must end
the whole job (under MPICH the other ranks otherwise wait in MPI_Init for
ever).

  usage: run_lock_test.py --holder HOLDER [--mpi "LAUNCHER WORDS"]
                          -- PROGRAM ARGS...
         (with --mpi the job is LAUNCHER WORDS 2 PROGRAM ARGS...)
"""
import argparse
import glob
import os
import signal
import shutil
import subprocess
import sys
import tempfile
import time

ap = argparse.ArgumentParser()
ap.add_argument("--holder", required=True, help="lock_holder's path")
ap.add_argument("--mpi", help="launcher words, before the rank count")
ap.add_argument("--large", help="a ccc program of a few hundred MiB: "
                "SIGKILLed and at once started again, it must restart")
ap.add_argument("cmd", nargs=argparse.REMAINDER)
a = ap.parse_args()
HOLDER = a.holder
MPI = a.mpi.split() if a.mpi else None
CMD = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "harness"))
from killrestart import descendants  # noqa: E402

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def run(d, timeout=120):
    env = dict(os.environ, CCC_DIR=d, CCC_VERBOSE="1", CCC_RESTART="never")
    cmd = MPI + ["2"] + CMD if MPI else CMD
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        # A hung job: end all of it (MPI ranks live under the launcher).
        for pid in [p.pid] + descendants(p.pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        p.communicate()
        return None
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)


def hold(path, mode, ms):
    h = subprocess.Popen([HOLDER, path, mode, str(ms)], stdout=subprocess.PIPE,
                         text=True)
    if h.stdout.readline().strip() != "held":
        raise SystemExit(f"lock_holder could not take {path}")
    return h


def state(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


work = tempfile.mkdtemp(prefix="ccc-lock-")
d = os.path.join(work, "ckpt")
first = run(d)
check(first is not None and first.returncode == 0 and first.stdout,
      "a run with the directory to itself succeeds")
if failures:
    sys.exit(first.stderr[-3000:] if first else "timed out")
rank = "r1" if MPI else "r0"
locks = glob.glob(os.path.join(d, f"*.{rank}.lock"))
check(len(locks) == 1, f"it left its {rank} lock file ({locks})")
lock = locks[0]

# A live holder: refused at once, the holder named, not waited for.
h = hold(lock, "live", 100000)
r = run(d, timeout=90)
check(r is not None, "a run whose lock a live process holds ends (no hang)")
if r is not None:
    check(r.returncode != 0, f"... and fails (exit {r.returncode})")
    check(f"is locked by process {h.pid}: another run of" in r.stderr,
          "... with a ccc: error naming the holder")
    check(h.poll() is None, "... without waiting for the holder to end")
    if MPI:
        check(r.returncode != 0 and "restarting" not in r.stderr,
              "... and the whole job ends with it")
h.kill()
h.wait()

if not MPI:
    # An exiting holder: waited for, then the run goes on.
    h = hold(lock, "exiting", 1500)
    for _ in range(100):  # its leader exits right after saying "held"
        if state(h.pid) == "Z":
            break
        time.sleep(0.005)
    check(state(h.pid) == "Z", "the exiting holder's leader is a zombie "
          "holding the lock (the case this stands for)")
    r = run(d)
    check(r is not None and r.returncode == 0 and r.stdout == first.stdout,
          "a run whose lock an exiting process holds waits and succeeds")
    if r is not None:
        check(f"waiting for process {h.pid}, which is exiting" in r.stderr
              and "released after" in r.stderr,
              "... and says what it waited for")
    h.wait()

if a.large:
    # What a job script does after a failure: kill -9, then start again at
    # once. The killed process's memory takes a moment to go, and its lock
    # with it (here nearly every time): the new run must wait, not refuse.
    waited = 0
    for i in range(5):
        d = os.path.join(work, f"large{i}")
        env = dict(os.environ, CCC_DIR=d, CCC_VERBOSE="1", CCC_INTERVAL="0.2")
        p = subprocess.Popen([a.large], env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        while not glob.glob(os.path.join(d, "*.commit")) and p.poll() is None:
            time.sleep(0.005)
        p.kill()  # not waited for: the next run starts while it exits
        r = subprocess.run([a.large, "1"], env=env, capture_output=True,
                           text=True, timeout=300)
        p.wait()
        ok = r.returncode == 0 and "restarting from" in r.stderr
        check(ok, f"killed and started again at once ({i + 1}/5): restarts"
              + ("" if ok else f"\n{r.stderr[-1500:]}"))
        waited += "which is exiting" in r.stderr
    print(f"     ({waited} of 5 restarts waited for the killed process)")

if failures:
    print(f"{len(failures)} failed; files in {work}")
    sys.exit(1)
shutil.rmtree(work, ignore_errors=True)
