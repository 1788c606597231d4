#!/usr/bin/env python3
"""A site where no image could be right (see refused_site.c) is refused:
one `ccc:` line saying why, no image written, the committed checkpoint
before it kept, and a forced request served at the next legal site.

  refused_site_test.py EXE MODE REGEX

1. A run to the end: the three sites return taken, none, taken; stderr is
   exactly one line matching REGEX; two versions are committed.
2. A run killed right after the refused site: one version committed (the
   refused site wrote none); the next run restarts from it (the global
   written after it is back to its value there) and ends like run 1.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile


def run(exe, args, d):
    env = dict(os.environ, CCC_DIR=d, OMP_NUM_THREADS="2")
    env.pop("CCC_INTERVAL", None)
    return subprocess.run([exe] + args, env=env, capture_output=True,
                          text=True, timeout=20)


def commits(d):
    return sorted(glob.glob(os.path.join(d, "*.commit")))


def main():
    exe, mode, regex = sys.argv[1:4]
    fails = []

    def check(cond, what, p=None):
        if not cond:
            fails.append(what + (f"\n  stdout: {p.stdout!r}\n  stderr: "
                                 f"{p.stderr!r}" if p else ""))

    whole = ("first site: taken acc 1\nrefused site: none acc 2\n"
             "next site: taken acc 3\n")
    with tempfile.TemporaryDirectory() as d:
        p = run(exe, [mode], d)
        check(p.returncode == 0, f"run 1 exit status {p.returncode}", p)
        check(p.stdout == whole, "run 1 output", p)
        lines = p.stderr.splitlines()
        check(len(lines) == 1 and re.match(regex, lines[0]),
              f"run 1 stderr: one line matching {regex!r}", p)
        check(len(commits(d)) == 2, f"run 1 commits {commits(d)}")
    with tempfile.TemporaryDirectory() as d:
        p = run(exe, [mode, "kill"], d)
        check(p.returncode == -9, f"killed run exit status {p.returncode}", p)
        check(p.stdout == whole.rsplit("next", 1)[0], "killed run output", p)
        check(len(commits(d)) == 1, f"killed run commits {commits(d)}")
        p = run(exe, [mode, "kill"], d)
        check(p.returncode == 0, f"restarted run exit status {p.returncode}",
              p)
        check(p.stdout == whole.replace("first site: taken",
                                        "first site: restarted"),
              "restarted run output", p)
        check(len(commits(d)) == 2, f"restarted run commits {commits(d)}")
    for f in fails:
        print(f"refused_site {mode}: FAIL {f}")
    if not fails:
        print(f"refused_site {mode}: ok")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
