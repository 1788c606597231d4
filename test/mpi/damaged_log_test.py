#!/usr/bin/env python3
"""A damaged message log costs one version, never the restart: a job under
the non-blocking protocol is SIGKILLed once two versions are committed; the
header of the newest version's log of rank 1 is made to claim an absurd size
(what a bad block or a torn write could leave); started again, the job must
say the log is damaged, restart from the version before and print what the
uninterrupted plain program prints. (The reader used to allocate the size
the header claimed, and a failed allocation ended the restart.)

(Command line: restart_case.py.)
"""
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "harness"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from killrestart import Run, committed, run_to_end  # noqa: E402
from restart_case import Checks, mpi_env, parse  # noqa: E402

a, launch, cmd = parse()
check = Checks()
failures = check.failures

work = tempfile.mkdtemp(prefix="ccc-damaged-log-")
ckpt = os.path.join(work, "ckpt")
env = dict(os.environ, CCC_INTERVAL="0.1", CCC_VERBOSE="1",
           CCC_PROTOCOL="nonblocking", CCC_DIR=ckpt, **mpi_env())
ref = run_to_end(a.ref, 300, shell=True, env=dict(env, CCC_DISABLE="1"))
check(ref.returncode == 0 and ref.stdout, "the plain reference runs")

first = Run(launch + cmd, env, os.path.join(work, "first"))
deadline = time.monotonic() + 120
while len(committed(ckpt)) < 2 and first.p.poll() is None and \
        time.monotonic() < deadline:
    time.sleep(0.005)
check(len(committed(ckpt)) >= 2 and first.p.poll() is None,
      "two checkpoints committed before the job ended")
first.kill()
versions = sorted(int(re.search(r"\.v(\d+)\.commit$", c).group(1))
                  for c in glob.glob(ckpt + "/*.commit"))
newest = versions[-1] if versions else 0
logs = glob.glob(ckpt + "/*.v%06d.r1.log" % newest)
check(len(logs) == 1, "the newest version has rank 1's message log")
if logs:
    with open(logs[0], "r+b") as f:
        # LogHeader: magic, version (u64), rank, ranks (u32), bytes, sum.
        f.seek(24)
        f.write(struct.pack("<Q", 0x3030303030303030))
r = Run(launch + cmd, dict(env, CCC_INTERVAL="0"), os.path.join(work, "restart"))
try:
    r.p.wait(timeout=120)
except subprocess.TimeoutExpired:
    r.kill()
err = r.stderr()
check(r.p.returncode == 0, "the restarted job finishes (exit %s)" %
      r.p.returncode)
check("r1.log is damaged: truncated or extended" in err,
      "it says the log is damaged and how")
m = re.search(r"restarting from .* \(checkpoint (\d+)\)", err)
check(m is not None and int(m.group(1)) < newest,
      "it restarts from an older version than %d (%s)" %
      (newest, m.group(1) if m else "none"))
check(r.stdout() == ref.stdout, "result identical to the uninterrupted plain run")

if failures:
    print("--- restart stderr\n" + err)
    print(f"{len(failures)} failed; files in {work}")
    sys.exit(1)
shutil.rmtree(work, ignore_errors=True)
