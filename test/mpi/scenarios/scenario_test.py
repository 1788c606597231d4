#!/usr/bin/env python3
"""Runs a scenario program that SIGKILLs one of its ranks after a committed
checkpoint, restarts it, and checks: the restart printed what an
uninterrupted reference run printed, and the protocol trace
(CCC_VERBOSE=protocol) of the first run and of the restart show every case
the scenario forces. In between, a copy of the checkpoints with a damaged
message log (every version's) must be refused with a ccc: message,
deleting nothing.

usage: scenario_test.py --ref "LAUNCH PLAIN" --first REGEX... --restart REGEX...
                        -- LAUNCH PROGRAM
"""
import argparse
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "harness"))
from killrestart import empty_dirs, private_mpi_env  # noqa: E402


def run(cmd, env, timeout, shell=False):
    """subprocess.run that, on timeout, kills the launcher's whole process
    group: killing mpirun alone leaves its ranks spinning."""
    p = subprocess.Popen(cmd, shell=shell, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        err += f"\n(timed out after {timeout} s)\n".encode()
        return subprocess.CompletedProcess(cmd, -9, out, err)
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ref", required=True)
    ap.add_argument("--first", action="append", default=[],
                    help="regex the first (killed) run's stderr must match")
    ap.add_argument("--restart", action="append", default=[],
                    help="regex the restarted run's stderr must match")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    work = tempfile.mkdtemp(prefix="ccc-scenario-")
    # The killed run leaves Open MPI's session directory and shared-memory
    # segments behind: in directories of this test's own, emptied after it.
    mpi_env, mpi_dirs = private_mpi_env()
    ok = False
    try:
        # The reference takes no checkpoint even at forced sites.
        env = dict(os.environ, CCC_DIR=os.path.join(work, "ref"),
                   CCC_RESTART="never", CCC_DISABLE="1", **mpi_env)
        ref = run(a.ref, env, a.timeout, shell=True)
        if ref.returncode != 0 or not ref.stdout.strip():
            print("FAIL: reference run:", ref.stderr.decode(errors="replace"))
            return 1
        ckpt = os.path.join(work, "ckpt")
        env = dict(os.environ, CCC_DIR=ckpt, CCC_VERBOSE="protocol",
                   CROSSING_LINE_KILL="1", **mpi_env)
        first = run(cmd, env, a.timeout)
        empty_dirs(mpi_dirs)
        err1 = first.stderr.decode(errors="replace")
        if first.returncode == 0:
            print("FAIL: the first run was not killed\n" + err1[-3000:])
            return 1
        if not glob.glob(os.path.join(ckpt, "*.commit")):
            print("FAIL: no checkpoint committed before the kill\n" + err1[-3000:])
            return 1
        # A damaged message log: the job must refuse it with a ccc: message
        # and delete nothing (a copy of the store, so the real restart below
        # still has the intact one).
        bad = os.path.join(work, "bad")
        shutil.copytree(ckpt, bad)
        logs = sorted(glob.glob(os.path.join(bad, "*.r0.log")))
        if not logs:
            print("FAIL: no message log of rank 0 was written")
            return 1
        # Every version's (an older intact one would rightly be used).
        for log in logs:
            with open(log, "r+b") as f:
                f.seek(os.path.getsize(log) - 1)
                last = f.read(1)
                f.seek(-1, os.SEEK_CUR)
                f.write(bytes([last[0] ^ 0xFF]))
        before = sorted(os.listdir(bad))
        bad_run = run(cmd, dict(env, CCC_DIR=bad), a.timeout)
        empty_dirs(mpi_dirs)
        bad_err = bad_run.stderr.decode(errors="replace")
        if (bad_run.returncode == 0
                or not re.search(r"ccc: .*message log .* damaged", bad_err)
                or sorted(os.listdir(bad)) != before):
            print(f"FAIL: damaged log: exit {bad_run.returncode}, files "
                  f"{before} -> {sorted(os.listdir(bad))}\n" + bad_err[-3000:])
            return 1
        second = run(cmd, env, a.timeout)
        err2 = second.stderr.decode(errors="replace")
        if second.returncode != 0 or "ccc: restarting from" not in err2:
            print(f"FAIL: restart exited {second.returncode}\n" + err2[-3000:])
            return 1
        if second.stdout != ref.stdout:
            print("FAIL: restarted output differs\n--- reference\n"
                  + ref.stdout.decode(errors="replace")
                  + "--- restarted\n" + second.stdout.decode(errors="replace"))
            return 1
        missing = [("first run", e) for e in a.first if not re.search(e, err1)]
        missing += [("restart", e) for e in a.restart if not re.search(e, err2)]
        for where, e in missing:
            print(f"FAIL: the {where}'s trace never matched {e!r}")
        if missing:
            print("--- first run\n" + err1[-4000:] + "\n--- restart\n" + err2[-4000:])
            return 1
        print("scenario: ok,", len(a.first) + len(a.restart), "cases seen")
        ok = True
        return 0
    finally:
        if ok:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print("(files in", work + ")")


if __name__ == "__main__":
    sys.exit(main())
