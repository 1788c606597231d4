#!/usr/bin/env python3
"""A Fortran unit open at a checkpoint is refused, not silently lost.

flang's unit table is not in any image, so after a restart a WRITE to a
unit opened before the checkpoint would go to a new file fort.N. PROGRAM
(fortran_unit.f90) forces a checkpoint with unit 10 open, then one after
CLOSE: the first must return CCC_NONE (0) with one ccc: line naming
results.txt and its descriptor and keep nothing, the second CCC_TAKEN (1)
and commit version 2 (the refused one used version 1's number).

usage: fortran_unit_test.py PROGRAM
"""
import glob
import os
import subprocess
import sys
import tempfile

prog = sys.argv[1]
bad = 0


def check(ok, what, detail=""):
    global bad
    bad += not ok
    print(("ok   " if ok else "FAIL ") + what + ("" if ok else ": " + detail),
          flush=True)


with tempfile.TemporaryDirectory(prefix="ccc-funit-") as work:
    d = os.path.join(work, "ckpt")
    r = subprocess.run([prog], cwd=work, capture_output=True, text=True,
                       timeout=120, env=dict(os.environ, CCC_DIR=d))
    check(r.returncode == 0 and r.stdout.strip() == "open: 0 closed: 1",
          "checkpoint refused with the unit open, taken after CLOSE",
          "rc %d stdout %r stderr %r" % (r.returncode, r.stdout, r.stderr))
    lines = [l for l in r.stderr.splitlines() if l.startswith("ccc:")]
    check(len(lines) == 1 and "results.txt" in lines[0] and
          "Fortran unit" in lines[0] and "descriptor" in lines[0] and
          "not taken" in lines[0],
          "one ccc: line names the unit's file and descriptor", r.stderr)
    commits = sorted(os.path.basename(p) for p in glob.glob(d + "/*.commit"))
    check(len(commits) == 1 and ".v000002." in commits[0],
          "only the checkpoint after CLOSE is committed", str(commits))
    with open(os.path.join(work, "results.txt")) as f:
        check(f.read() == "line 1\nline 2\nline 3\n",
              "the unit's file is whole")
sys.exit(1 if bad else 0)
