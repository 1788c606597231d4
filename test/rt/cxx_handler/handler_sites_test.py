#!/usr/bin/env python3
"""Sites inside C++ exception handling are refused, not silently broken.

usage: handler_sites_test.py PROGRAM

PROGRAM (handler_sites.cpp built with the pass) forces a checkpoint inside a
catch handler and inside a destructor run by unwinding: both must return
CCC_NONE with one `ccc:` message and write no image; the forced checkpoint
after them must be taken (CCC_TAKEN), and running again with
CCC_RESTART=require (the first run finished) must resume there
(CCC_RESTARTED) from checkpoint version 1.
"""
import glob
import os
import subprocess
import sys
import tempfile

prog = sys.argv[1]
failures = []
with tempfile.TemporaryDirectory(prefix="ccc-handler-") as d:
    env = dict(os.environ, CCC_DIR=d, CCC_VERBOSE="1")
    first = subprocess.run([prog], env=env, capture_output=True, text=True,
                           timeout=60)
    want = "in handler: 0\nin unwinding: 0\nafter: 1\n"
    if first.returncode != 0 or first.stdout != want:
        failures.append(f"first run: exit {first.returncode}, stdout "
                        f"{first.stdout!r}, want {want!r}\n{first.stderr}")
    if first.stderr.count("inside a C++ catch handler") != 1:
        failures.append(f"want the refusal reported once:\n{first.stderr}")
    commits = sorted(os.path.basename(p) for p in glob.glob(d + "/*.commit"))
    if len(commits) != 1 or ".v000001." not in commits[0]:
        failures.append(f"want exactly checkpoint version 1, got {commits}")
    again = subprocess.run([prog], env=dict(env, CCC_RESTART="require"),
                           capture_output=True, text=True, timeout=60)
    if again.returncode != 0 or again.stdout != "after: 2\n" or \
            "restarting from" not in again.stderr:
        failures.append(f"restart: exit {again.returncode}, stdout "
                        f"{again.stdout!r}\n{again.stderr}")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
