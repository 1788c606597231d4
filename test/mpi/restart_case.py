"""What the single-restart MPI tests share (protocol_switch_test.py,
damaged_log_test.py, other_rank_count_test.py, settings_differ_test.py):
their command line, a list of checks, the environment of a private MPI
run, a job killed once it committed, a job waited for with a timeout, and
the contents of a checkpoint directory, and the end of a test.

  usage: TEST.py --ref "PLAIN COMMAND"
         --launcher "LAUNCHER WORDS BEFORE THE RANK COUNT" --np N
         -- PROGRAM ARGS...
"""
import argparse
import glob
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "harness"))
from killrestart import Run, committed, private_mpi_env  # noqa: E402
from killrestart import run_to_end  # noqa: E402


def parse():
    """(args, launch words with the rank count, program command)"""
    ap = argparse.ArgumentParser()
    ap.add_argument("--ref", required=True)
    ap.add_argument("--launcher", required=True)
    ap.add_argument("--np", default="2")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    return a, shlex.split(a.launcher) + [a.np], cmd


class Checks:
    """Prints ok/FAIL per check and keeps the failures."""

    def __init__(self):
        self.failures = []

    def __call__(self, cond, what):
        print(("ok   " if cond else "FAIL ") + what, flush=True)
        if not cond:
            self.failures.append(what)


def mpi_env():
    return private_mpi_env()[0]


def killed_after_commit(argv, env, log, ckpt, timeout=120):
    """Runs argv until a version is committed in ckpt, then SIGKILLs it;
    whether it committed before it ended."""
    r = Run(argv, env, log)
    deadline = time.monotonic() + timeout
    while not committed(ckpt) and r.p.poll() is None and \
            time.monotonic() < deadline:
        time.sleep(0.005)
    ok = bool(committed(ckpt)) and r.p.poll() is None
    r.kill()
    return ok


def finished(argv, env, log, timeout):
    """Runs argv to its end: (exit status, or None if it hung and was
    killed after timeout s; the Run)."""
    r = Run(argv, env, log)
    try:
        r.p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        r.kill()
        return None, r
    return r.p.returncode, r


def contents(ckpt):
    """Name -> sha256 of every file of a checkpoint directory but locks."""
    out = {}
    for f in sorted(glob.glob(os.path.join(ckpt, "*"))):
        if not f.endswith(".lock"):
            with open(f, "rb") as fh:
                out[os.path.basename(f)] = hashlib.sha256(fh.read()).hexdigest()
    return out


def plain_reference(ref, env, work):
    """The uninterrupted plain command ref (a shell string): its
    CompletedProcess, with no restart and no timer."""
    return run_to_end(ref, 300, shell=True,
                      env=dict(env, CCC_RESTART="never", CCC_INTERVAL="0",
                               CCC_DIR=os.path.join(work, "ref")))


def finish(check, work, logs):
    """The end of a test: with failures, says where its files are, prints
    the end of each log named in logs (WORK/NAME.err) and exits 1; else
    removes work."""
    if check.failures:
        print("%d failed; files in %s" % (len(check.failures), work))
        for name in logs:
            p = os.path.join(work, name + ".err")
            if os.path.exists(p):
                with open(p, errors="replace") as f:
                    print("---- %s.err ----\n%s" % (name, f.read()[-3000:]))
        sys.exit(1)
    shutil.rmtree(work, ignore_errors=True)
