#!/usr/bin/env python3
"""CCC_DISABLE=1 runs an MPI program without ccc at all: the program built
with ccc prints, bit for bit, what the plain build prints, and writes no
file to CCC_DIR. With ccc enabled (no checkpoint) it prints the same bits
too: every collective is MPI's own call. The sums are built so that the
order of combining shows in their bits (the layer's former rank-order
combining failed this check).

usage: disabled_test.py --ref "PLAIN COMMAND" -- COMMAND...
"""
import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "harness"))
from killrestart import private_mpi_env  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--ref", required=True)
ap.add_argument("cmd", nargs=argparse.REMAINDER)
a = ap.parse_args()
cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def lines(out):
    return sorted(l for l in out.splitlines() if l.startswith("rank "))


mpi_env, _ = private_mpi_env()
with tempfile.TemporaryDirectory(prefix="ccc-disabled-") as work:
    ckpt = os.path.join(work, "ckpt")
    env = dict(os.environ, CCC_DIR=ckpt, **mpi_env)
    ref = subprocess.run(a.ref, shell=True, capture_output=True, text=True,
                         timeout=120, env=dict(env, CCC_DISABLE="1"))
    check(ref.returncode == 0 and lines(ref.stdout),
          "the plain build runs (exit %d)" % ref.returncode)
    off = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                         env=dict(env, CCC_DISABLE="1"))
    check(off.returncode == 0, "CCC_DISABLE=1: the ccc build runs (exit %d)"
          % off.returncode)
    check(lines(off.stdout) == lines(ref.stdout),
          "CCC_DISABLE=1: its output is the plain build's, bit for bit")
    check(not os.path.exists(ckpt) or not os.listdir(ckpt),
          "CCC_DISABLE=1: nothing written to CCC_DIR (%s)" %
          (os.listdir(ckpt) if os.path.exists(ckpt) else "absent"))
    check(not any(l.startswith("ccc:") for l in off.stderr.splitlines()),
          "CCC_DISABLE=1: ccc says nothing")
    on = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                        env=dict(env, CCC_DISABLE="0",
                                 CCC_DIR=os.path.join(work, "on")))
    check(on.returncode == 0 and lines(on.stdout) == lines(ref.stdout),
          "with ccc enabled: its output is the plain build's, bit for bit "
          "(collectives are MPI's own)")
    if failures:
        for name, r in (("ref", ref), ("disabled", off), ("enabled", on)):
            print("--- %s stdout\n%s--- %s stderr\n%s" % (name, r.stdout,
                                                          name, r.stderr))
print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
