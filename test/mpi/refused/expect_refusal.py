#!/usr/bin/env python3
"""Runs a job that must be stopped by ccc: nonzero exit, MESSAGE on stderr,
"not reached" never printed (the programs print it after the site, or the
call, that must stop them). With --keeps-commit, a checkpoint committed
before the refusal must still be there: its commit record and every
rank's image of that version.

usage: expect_refusal.py [--keeps-commit] MESSAGE COMMAND...
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

args = sys.argv[1:]
keeps = args[:1] == ["--keeps-commit"]
if keeps:
    args = args[1:]
message, cmd = args[0], args[1:]
problems = []
with tempfile.TemporaryDirectory(prefix="ccc-refusal-") as d:
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, CCC_DIR=d))
    if r.returncode == 0:
        problems.append("the job exited 0")
    if message not in r.stderr:
        problems.append(f"no {message!r} on stderr")
    if "not reached" in r.stdout:
        problems.append("it ran past the refusal")
    if keeps:
        commits = sorted(glob.glob(os.path.join(d, "*.commit")))
        if not commits:
            problems.append("no committed checkpoint left")
        for c in commits:
            m = re.match(r"(.*)\.v(\d+)\.commit$", c)
            images = glob.glob(f"{m.group(1)}.v{m.group(2)}.r*.ccc")
            if not images:
                problems.append(f"{os.path.basename(c)} has no images")
            else:
                print(f"kept {os.path.basename(c)} and {len(images)} "
                      "image(s)")
if problems:
    print(f"FAIL: {'; '.join(problems)} (exit {r.returncode})\n"
          f"--- stdout\n{r.stdout}\n--- stderr\n{r.stderr}")
sys.exit(1 if problems else 0)
