#!/usr/bin/env python3
"""Runs a job that must be stopped by ccc: nonzero exit, MESSAGE on stderr,
nothing printed after the refused call.

usage: expect_refusal.py MESSAGE COMMAND...
"""
import os
import subprocess
import sys
import tempfile

message, cmd = sys.argv[1], sys.argv[2:]
with tempfile.TemporaryDirectory(prefix="ccc-refusal-") as d:
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, CCC_DIR=d))
ok = r.returncode != 0 and message in r.stderr and "not reached" not in r.stdout
if not ok:
    print(f"FAIL: exit {r.returncode}; want {message!r} on stderr\n"
          f"--- stdout\n{r.stdout}\n--- stderr\n{r.stderr}")
sys.exit(0 if ok else 1)
