#!/usr/bin/env python3
"""Runs a reference command and a command under test; passes if both exit 0
and print the same standard output, else shows the difference.

usage: same_output.py --ref "REFERENCE COMMAND" -- COMMAND...
"""
import argparse
import difflib
import os
import shlex
import subprocess
import sys
import tempfile


def run(cmd, ckpt_dir):
    # A store of its own: tests of the same program run side by side under
    # ctest -j2, and none may restart from another's images.
    env = dict(os.environ, CCC_DIR=ckpt_dir)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                       env=env)
    if r.returncode != 0:
        sys.exit("FAIL: %s exited with %d\n%s" %
                 (" ".join(cmd), r.returncode, r.stderr[-3000:]))
    return r.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ref", required=True)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    with tempfile.TemporaryDirectory(prefix="ccc-same-output-") as d:
        want = run(shlex.split(a.ref), os.path.join(d, "ref"))
        got = run(cmd, os.path.join(d, "ccc"))
    if not want.strip():
        sys.exit("FAIL: the reference printed nothing")
    if got != want:
        sys.stdout.writelines(difflib.unified_diff(
            want.splitlines(True), got.splitlines(True), "without ccc",
            "with ccc"))
        sys.exit("FAIL: the output differs")
    print("same output (%d lines)" % len(want.splitlines()))


if __name__ == "__main__":
    main()
