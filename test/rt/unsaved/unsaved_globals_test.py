#!/usr/bin/env python3
"""An object compiled without the ccc pass is named, not silently lost.

usage: unsaved_globals_test.py MIXED ALL_INSTRUMENTED CKPT

MIXED links plain_object.c compiled without the pass. By default it must stop
at start with a `ccc:` error naming both unsaved globals, before writing any
image; CCC_UNSAVED=warn must report them and run; a bad CCC_UNSAVED value is
refused. ALL_INSTRUMENTED (the same sources, all with the pass) must run with
no message and restart correctly from its last checkpoint.
"""
import os
import subprocess
import sys
import tempfile

mixed, full, ckpt = sys.argv[1:4]
failures = []


def run(cmd, d, **env):
    e = dict(os.environ, CCC_DIR=d, **env)
    return subprocess.run([cmd], env=e, capture_output=True, text=True,
                          timeout=60)


def check(ok, what):
    if not ok:
        failures.append(what)


with tempfile.TemporaryDirectory() as d:
    r = run(mixed, d)
    check(r.returncode != 0, "mixed build ran despite unsaved globals")
    check(r.stderr.startswith("ccc: ") and "Count (plain_object.c)" in r.stderr
          and "Hist" in r.stderr and "CCC_UNSAVED=warn" in r.stderr,
          "error does not name the unsaved globals: " + r.stderr)
    check("total" not in r.stdout, "program ran before the error")
    check(not any(f.endswith(".ccc") for f in os.listdir(d)),
          "images were written before the error")

    r = run(mixed, d, CCC_UNSAVED="warn")
    check(r.returncode == 0 and r.stdout == "total 100007\n",
          "CCC_UNSAVED=warn did not run the program: %r %r" %
          (r.stdout, r.stderr))
    check("ccc: warning:" in r.stderr and "Count (plain_object.c)" in r.stderr,
          "CCC_UNSAVED=warn gave no warning: " + r.stderr)

    r = run(mixed, d, CCC_UNSAVED="maybe", CCC_RESTART="never")
    check(r.returncode != 0 and "CCC_UNSAVED=maybe" in r.stderr,
          "bad CCC_UNSAVED accepted: " + r.stderr)

with tempfile.TemporaryDirectory() as d:
    r = run(full, d)
    check(r.returncode == 0 and r.stderr == "" and
          r.stdout == "total 100007\n",
          "all-instrumented build: %r %r" % (r.stdout, r.stderr))
    # Restarting from the last checkpoint (before the last bump) gives the
    # same total only if Count and Hist were saved.
    r = run(full, d)
    check(r.returncode == 0 and r.stdout == "total 100007\n",
          "all-instrumented restart: %r %r" % (r.stdout, r.stderr))
    check(subprocess.run([ckpt, "ls", d], capture_output=True).returncode == 0,
          "ckpt ls")

for f in failures:
    print("FAIL:", f)
print("unsaved globals: %s" % ("ok" if not failures else "FAILED"))
sys.exit(1 if failures else 0)
