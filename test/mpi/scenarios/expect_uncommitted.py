#!/usr/bin/env python3
"""Runs a job whose checkpoint must not be committed: exit 0, MESSAGE on
stderr, images written (none with --no-images) but no commit record in its
checkpoint directory.

usage: expect_uncommitted.py [--no-images] MESSAGE COMMAND...
"""
import glob
import os
import subprocess
import sys
import tempfile

args = sys.argv[1:]
no_images = args[:1] == ["--no-images"]
if no_images:
    args = args[1:]
message, cmd = args[0], args[1:]
with tempfile.TemporaryDirectory(prefix="ccc-uncommitted-") as d:
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, CCC_DIR=d))
    images = glob.glob(os.path.join(d, "*.ccc"))
    commits = glob.glob(os.path.join(d, "*.commit"))
ok = (r.returncode == 0 and message in r.stderr and
      bool(images) != no_images and not commits)
if not ok:
    print(f"FAIL: exit {r.returncode}, {len(images)} images, commits "
          f"{commits}; want {message!r} on stderr\n"
          f"--- stdout\n{r.stdout}\n--- stderr\n{r.stderr}")
sys.exit(0 if ok else 1)
