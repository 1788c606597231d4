#!/usr/bin/env python3
"""ccc_exclude leaves the excluded scratch out of the image and refuses
stack memory with a ccc: message.

usage: exclude_test.py PROGRAM CKPT
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

prog, ckpt = sys.argv[1:3]
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


d = tempfile.mkdtemp(prefix="ccc-exclude-")
try:
    env = dict(os.environ, CCC_DIR=d, CCC_INTERVAL="0.05",
               CCC_EXPECT_ACTIVE="1")
    r = subprocess.run([prog, "60"], env=env, capture_output=True, text=True,
                       timeout=300)
    check(r.returncode == 0, "program ran (%s)" % r.stdout.strip())
    check(re.search(r"ccc: ccc_exclude\(0x[0-9a-f]+, 256\): not excluded: "
                    r"only heap memory and global variables", r.stderr)
          is not None, "stack memory refused with a ccc: message")
    images = sorted(glob.glob(os.path.join(d, "*.ccc")))
    check(bool(images), "checkpoints were taken")
    for img in images[:1]:
        out = subprocess.run([ckpt, "info", img], capture_output=True,
                             text=True).stdout
        raw = sum(int(m) for m in re.findall(
            r"^(?:globals|heap|stack)\s+\S+\s+(\d+)", out, re.M))
        # State 1 MiB + live block 4 MiB + allocator and stack: < 6 MiB;
        # without the exclusions it would be 45 MiB.
        check(raw < 6 << 20, "image holds %d bytes of memory (< 6 MiB: "
              "40 MiB of scratch left out, the reused block kept)" % raw)
finally:
    shutil.rmtree(d, ignore_errors=True)
print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
