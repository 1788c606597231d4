#!/usr/bin/env python3
"""Checkpoint triggers and configuration errors, as documented.

No trigger -> no image; SIGUSR1 -> a checkpoint at the next site;
CCC_SIGNAL=USR2 moves it; CCC_INTERVAL (fractions) -> periodic checkpoints,
CCC_KEEP of them kept; a bad value of a variable stops the program with a
`ccc:` message naming it, before the program runs.
"""
import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

PROG, ARGS = sys.argv[1], sys.argv[2:]
failures = []
work = tempfile.mkdtemp(prefix="ccc-triggers-")


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def commits(d):
    return glob.glob(os.path.join(d, "*.commit"))


def env(d, **kw):
    e = dict(os.environ, CCC_DIR=d, CCC_VERBOSE="1")
    e.pop("CCC_INTERVAL", None)
    e.update(kw)
    return e


d = os.path.join(work, "none")
r = subprocess.run([PROG] + ARGS, env=env(d), capture_output=True, timeout=120)
check(r.returncode == 0 and not commits(d), "no trigger: no checkpoint")

for sig, extra in ((signal.SIGUSR1, {}), (signal.SIGUSR2, {"CCC_SIGNAL": "USR2"})):
    d = os.path.join(work, sig.name)
    p = subprocess.Popen([PROG] + ARGS, env=env(d, **extra),
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(0.3)  # past the re-exec and into the program
    p.send_signal(sig)
    _, err = p.communicate(timeout=120)
    check(p.returncode == 0 and len(commits(d)) == 1,
          f"{sig.name}: exactly one checkpoint at the next site ({len(commits(d))})")

d = os.path.join(work, "interval")
r = subprocess.run([PROG] + ARGS, env=env(d, CCC_INTERVAL="0.1", CCC_KEEP="3",
                                      CCC_FULL_EVERY="1"),
                   capture_output=True, text=True, timeout=120)
n = r.stderr.count("committed")
check(r.returncode == 0 and n >= 3, f"CCC_INTERVAL=0.1: periodic checkpoints ({n})")
check(len(commits(d)) == 3 and len(glob.glob(os.path.join(d, "*.ccc"))) == 3,
      "CCC_KEEP=3: three committed versions kept")

for var, val in (("CCC_INTERVAL", "soon"), ("CCC_KEEP", "0"),
                 ("CCC_RESTART", "maybe"), ("CCC_COMPRESS", "99"),
                 ("CCC_SIGNAL", "HUP")):
    r = subprocess.run([PROG] + ARGS, env=env(os.path.join(work, "bad"), **{var: val}),
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 3 and r.stderr.startswith(f"ccc: {var}={val}:") and
          r.stdout == "", f"{var}={val}: refused with a message naming it")

r = subprocess.run([PROG] + ARGS, env=env(os.path.join(work, "req"), CCC_RESTART="require"),
                   capture_output=True, text=True, timeout=60)
check(r.returncode == 3 and "CCC_RESTART=require" in r.stderr,
      "CCC_RESTART=require without an image: refused")

if failures:
    print(f"{len(failures)} failure(s); files in {work}")
    sys.exit(1)
shutil.rmtree(work, ignore_errors=True)
