#!/usr/bin/env python3
"""An image holds no more memory than it should: runs PROGRAM ARGS... with
timer checkpoints and checks the first image's globals + heap + stack raw
bytes (`ckpt info`) against MAX_BYTES. The runtime's own tables (its open
files and Fortran units, globals named "ccc ...", the same fixed size in
every program) are not the program's state and are not counted.

usage: image_bytes_test.py CKPT MAX_BYTES PROGRAM [ARGS...]
"""
import json
import re
import subprocess
import sys

from first_image import first_image

ckpt, limit, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
with first_image(cmd) as image:
    out = subprocess.run([ckpt, "info", image], capture_output=True,
                         text=True).stdout
    where = json.loads(subprocess.run([ckpt, "info", "--json", image],
                                      capture_output=True,
                                      text=True).stdout)["where"]
raw = sum(int(m) for m in re.findall(
    r"^(?:globals|heap|stack)\s+\S+\s+(\d+)", out, re.M))
runtime = sum(w["here"] for w in where
              if w["kind"] == "global" and w["name"].startswith("ccc "))
print(out)
ok = raw - runtime <= limit
print("%s image holds %d bytes of memory, %d of them the runtime's tables "
      "(at most %d besides those)" %
      ("ok  " if ok else "FAIL", raw, runtime, limit))
sys.exit(0 if ok else 1)
