#!/usr/bin/env python3
"""Runs a job whose checkpoint must be committed: exit 0 and a commit record
in its checkpoint directory.

usage: expect_committed.py COMMAND...
"""
import glob
import os
import subprocess
import sys
import tempfile

cmd = sys.argv[1:]
with tempfile.TemporaryDirectory(prefix="ccc-committed-") as d:
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, CCC_DIR=d))
    commits = glob.glob(os.path.join(d, "*.commit"))
ok = r.returncode == 0 and commits
if not ok:
    print(f"FAIL: exit {r.returncode}, no commit record\n"
          f"--- stdout\n{r.stdout}\n--- stderr\n{r.stderr}")
sys.exit(0 if ok else 1)
