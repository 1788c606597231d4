#!/usr/bin/env python3
"""A job killed after a committed checkpoint and restarted must give the
plain build's output, and its restarted ranks must free every MPI object
the layer made again: MPICH's datatype library (yaksa) reports objects
still allocated at MPI_Finalize ("yaksa: N leaked handle pool objects"),
which must not appear. The restart's CCC_VERBOSE=2 line says how many of
the table's objects were made again; it is printed for the log.

usage: restart_frees_objects.py --ref "PLAIN COMMAND" -- COMMAND...
"""
import argparse
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "harness"))
from killrestart import alive, committed, descendants  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--ref", required=True)
ap.add_argument("cmd", nargs=argparse.REMAINDER)
a = ap.parse_args()
cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
problems = []
with tempfile.TemporaryDirectory(prefix="ccc-restart-frees-") as d:
    env = dict(os.environ, CCC_DIR=os.path.join(d, "ckpt"),
               CCC_INTERVAL="0.05", CCC_VERBOSE="2")
    ref = subprocess.run(shlex.split(a.ref), capture_output=True, text=True,
                         timeout=120, env=dict(env, CCC_DIR=d + "/ref"))
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, env=env,
                         start_new_session=True)
    # The second commit: the first may come at the first site, before any
    # object was made.
    deadline = time.time() + 60
    while len(committed(env["CCC_DIR"])) < 2 and p.poll() is None and \
            time.time() < deadline:
        time.sleep(0.02)
    if p.poll() is not None:
        sys.exit("FAIL: the first run ended before a checkpoint was "
                 "committed: give it more steps")
    victims = [p.pid] + descendants(p.pid)
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    while any(alive(v) for v in victims):
        time.sleep(0.02)
    # No more checkpoints: what is tested is the restart, and the table
    # every step grows makes each one slower.
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                       env=dict(env, CCC_INTERVAL="3600"))
    tables = [int(m.group(1)) for m in
              re.finditer(r"re-created \d+ of (\d+) MPI objects", r.stderr)]
    print("restarted ranks' tables: %s objects" % tables)
    if not tables or min(tables) == 0:
        problems.append("the restart had no objects to make again")
    if r.returncode != 0:
        problems.append(f"the restarted run exited {r.returncode}")
    if "ccc: restarting from" not in r.stderr:
        problems.append("the second run did not restart")
    if "leaked" in r.stderr:
        problems.append("MPI reports leaked objects")
    if r.stdout != ref.stdout or not ref.stdout.strip():
        problems.append(f"output {r.stdout!r}, plain build {ref.stdout!r}")
if problems:
    print("FAIL: " + "; ".join(problems) + "\n--- stderr\n" + r.stderr[-4000:])
sys.exit(1 if problems else 0)
