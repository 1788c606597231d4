#!/usr/bin/env python3
"""Shared descriptors and freopen'd streams across a restart (dups.c).

The first run writes after its checkpoint and is killed; the restarted run
must leave every file as an uninterrupted run would, with the restarted
run's own line instead of the killed one's; a stream over descriptor 1
must be flushed at the restarted run's exit.
"""
import os
import subprocess
import sys
import tempfile

PROG = sys.argv[1]
d = tempfile.mkdtemp(prefix="ccc-dups-")
env = dict(os.environ, CCC_DIR=os.path.join(d, "ckpt"), CCC_VERBOSE="1",
           CCC_INTERVAL="0")
first = subprocess.run([PROG], cwd=d, env=env, capture_output=True, text=True,
                       timeout=60)
second = subprocess.run([PROG], cwd=d, env=env, capture_output=True,
                        text=True, timeout=60)
want = {"a.txt": "a1\n", "b.txt": "b1\nb2 restarted\n",
        "c.txt": "c1\nc2\nc3\nc4\n"}
got = {}
for f in want:
    with open(os.path.join(d, f)) as x:
        got[f] = x.read()
ok = (first.returncode == -9 and second.returncode == 0 and
      "ccc: restarting from" in second.stderr and got == want and
      first.stdout == "out before\nout first run\n" and
      second.stdout == "out restarted\n")
print(f"stdout of the runs: {first.stdout!r}, {second.stdout!r}")
print(f"first run exit {first.returncode}, restart exit {second.returncode}")
print(f"files {got}\nwant  {want}")
if not ok:
    print(f"FAIL; stderr of the restart:\n{second.stderr}\nfiles in {d}")
    sys.exit(1)
subprocess.run(["rm", "-rf", d])
