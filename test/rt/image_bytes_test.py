#!/usr/bin/env python3
"""An image holds no more memory than it should: runs PROGRAM ARGS... with
timer checkpoints and checks the first image's globals + heap + stack raw
bytes (`ckpt info`) against MAX_BYTES.

usage: image_bytes_test.py CKPT MAX_BYTES PROGRAM [ARGS...]
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

ckpt, limit, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
d = tempfile.mkdtemp(prefix="ccc-bytes-")
try:
    r = subprocess.run(cmd, env=dict(os.environ, CCC_DIR=d,
                                     CCC_INTERVAL="0.05"),
                       capture_output=True, text=True, timeout=300)
    images = sorted(glob.glob(os.path.join(d, "*.ccc")))
    if r.returncode != 0 or not images:
        sys.exit("FAIL: the program failed or took no checkpoint:\n" + r.stderr)
    out = subprocess.run([ckpt, "info", images[0]], capture_output=True,
                         text=True).stdout
    raw = sum(int(m) for m in re.findall(
        r"^(?:globals|heap|stack)\s+\S+\s+(\d+)", out, re.M))
    print(out)
    ok = raw <= limit
    print("%s image holds %d bytes of memory (at most %d)" %
          ("ok  " if ok else "FAIL", raw, limit))
    sys.exit(0 if ok else 1)
finally:
    shutil.rmtree(d, ignore_errors=True)
