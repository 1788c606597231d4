#!/usr/bin/env python3
"""Runs the plain build, then the ccc build twice: with no checkpoint (no
CCC_INTERVAL, no CCC_SIGNAL) and with CCC_DISABLE=1; passes if every run
exits 0 and both ccc runs print the plain build's stdout byte for byte.

usage: same_as_plain.py --ref "PLAIN COMMAND" -- CCC COMMAND...
"""
import argparse
import difflib
import os
import shlex
import subprocess
import sys
import tempfile


def run(cmd, env, what):
    r = subprocess.run(cmd, capture_output=True, timeout=120, env=env)
    if r.returncode != 0:
        sys.exit("FAIL: %s exited with %d\n%s" %
                 (what, r.returncode, r.stderr.decode(errors="replace")[-3000:]))
    return r.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ref", required=True)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    base = {k: v for k, v in os.environ.items()
            if k not in ("CCC_INTERVAL", "CCC_SIGNAL", "CCC_DISABLE")}
    failed = False
    with tempfile.TemporaryDirectory(prefix="ccc-same-as-plain-") as d:
        # A store of its own per run: no run may restart from another's.
        want = run(shlex.split(a.ref), dict(base, CCC_DIR=d + "/ref"), "plain")
        if not want.strip():
            sys.exit("FAIL: the plain build printed nothing")
        for what, extra in (("no checkpoint", {}),
                            ("CCC_DISABLE=1", {"CCC_DISABLE": "1"})):
            env = dict(base, CCC_DIR=d + "/" + what.replace(" ", "_"),
                       **extra)
            got = run(cmd, env, what)
            if got != want:
                failed = True
                sys.stdout.writelines(difflib.unified_diff(
                    want.decode(errors="replace").splitlines(True),
                    got.decode(errors="replace").splitlines(True), "plain",
                    "ccc, " + what, n=0))
                print("FAIL: ccc, %s, differs from the plain build" % what)
            else:
                print("ccc, %s: same output (%d lines)" %
                      (what, len(want.splitlines())))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
