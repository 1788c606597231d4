"""What the single-restart MPI tests share (protocol_switch_test.py,
damaged_log_test.py): their command line, a list of checks, and the
environment of a private MPI run.

  usage: TEST.py --ref "PLAIN COMMAND"
         --launcher "LAUNCHER WORDS BEFORE THE RANK COUNT" --np N
         -- PROGRAM ARGS...
"""
import argparse
import os
import shlex
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "harness"))
from killrestart import private_mpi_env  # noqa: E402


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
