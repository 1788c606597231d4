#!/usr/bin/env python3
"""What a checkpoint with Fortran units open takes, and what it refuses.

PROGRAM (fortran_unit.f90) forces four checkpoints: with unit 10 open
between records (taken, CCC_TAKEN = 1), with a STATUS='SCRATCH' unit open
(refused, CCC_NONE = 0: its file is deleted, a restart could not reopen
it), with unit 10 inside a record a non-advancing WRITE left open
(refused: flang's FLUSH there would corrupt the record, and a restart
could not rebuild it), and after the record is complete (taken). Each
refusal is one ccc: line naming the unit's file and why; versions 1 and 4
are committed (the refused ones used 2 and 3); the file is whole.

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
    check(r.returncode == 0 and
          r.stdout.strip() == "unit: 1 scratch: 0 record: 0 after: 1",
          "taken with a unit open, refused with a scratch unit and inside "
          "a record", "rc %d stdout %r stderr %r" %
          (r.returncode, r.stdout, r.stderr))
    lines = [l for l in r.stderr.splitlines() if l.startswith("ccc:")]
    check(len(lines) == 2, "two ccc: lines", r.stderr)
    check(any("not taken" in l and "SCRATCH" in l and "Fortran unit" in l
              and "descriptor" in l for l in lines),
          "the scratch unit's refusal names its descriptor and why",
          r.stderr)
    check(any("not taken" in l and "Fortran unit 10 " in l and
              "results.txt" in l and "ADVANCE='NO'" in l for l in lines),
          "the refusal inside a record names unit 10 and its file", r.stderr)
    commits = sorted(os.path.basename(p) for p in glob.glob(d + "/*.commit"))
    check(len(commits) == 2 and ".v000001." in commits[0] and
          ".v000004." in commits[1],
          "the checkpoints with the unit between records are committed",
          str(commits))
    with open(os.path.join(work, "results.txt")) as f:
        check(f.read() == "line 1\nline 2\nline 3\nline 4\n",
              "the unit's file is whole")
sys.exit(1 if bad else 0)
