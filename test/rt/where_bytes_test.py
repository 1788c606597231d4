#!/usr/bin/env python3
"""`ckpt info` says where an image's bytes go: runs PROGRAM ARGS... with
timer checkpoints, reads the first image's breakdown (`ckpt info --json`,
"where") and checks each expectation KIND|NAME|FIELD|VALUE: some piece of
that kind whose name starts with NAME has FIELD (here, older, left_out,
here+older) equal to VALUE.

usage: where_bytes_test.py CKPT EXPECTATION... -- PROGRAM [ARGS...]
"""
import json
import subprocess
import sys

from first_image import first_image

args = sys.argv[1:]
ckpt, sep = args[0], args.index("--")
expects, cmd = args[1:sep], args[sep + 1:]
with first_image(cmd) as image:
    subprocess.run([ckpt, "info", image], check=True)
    info = json.loads(subprocess.run([ckpt, "info", "--json", image],
                                     capture_output=True, text=True,
                                     check=True).stdout)
bad = 0
for e in expects:
    kind, name, field, value = e.split("|")
    got = [p["here"] + p["older"] if field == "here+older" else p[field]
           for p in info["where"]
           if p["kind"] == kind and p["name"].startswith(name)]
    ok = int(value) in got
    bad += not ok
    print("%s %s %r %s == %s (pieces found: %s)" %
          ("ok  " if ok else "FAIL", kind, name, field, value, got))
sys.exit(1 if bad else 0)
