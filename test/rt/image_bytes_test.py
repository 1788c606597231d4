#!/usr/bin/env python3
"""An image holds no more memory than it should: runs PROGRAM ARGS... with
timer checkpoints and checks the first image's globals + heap + stack raw
bytes (`ckpt info`) against MAX_BYTES.

usage: image_bytes_test.py CKPT MAX_BYTES PROGRAM [ARGS...]
"""
import re
import subprocess
import sys

from first_image import first_image

ckpt, limit, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
with first_image(cmd) as image:
    out = subprocess.run([ckpt, "info", image], capture_output=True,
                         text=True).stdout
raw = sum(int(m) for m in re.findall(
    r"^(?:globals|heap|stack)\s+\S+\s+(\d+)", out, re.M))
print(out)
ok = raw <= limit
print("%s image holds %d bytes of memory (at most %d)" %
      ("ok  " if ok else "FAIL", raw, limit))
sys.exit(0 if ok else 1)
