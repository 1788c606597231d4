#!/usr/bin/env python3
"""A checkpoint is restarted under the protocol that wrote it, whatever
CCC_PROTOCOL says at the restart: a job under protocol A is SIGKILLed once
a version is committed (whose commit record names A); started again under
protocol B it must say in one ccc: line that it continues under A, restart
from the checkpoint and print what the uninterrupted plain program prints.
Both directions (blocking -> nonblocking, nonblocking -> blocking).

(Command line: restart_case.py.)
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "harness"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from killrestart import Run, run_to_end  # noqa: E402
from restart_case import (Checks, killed_after_commit,  # noqa: E402
                          mpi_env, parse)

a, launch, cmd = parse()
check = Checks()
failures = check.failures

work = tempfile.mkdtemp(prefix="ccc-protocol-")
base = dict(os.environ, CCC_INTERVAL="0.2", CCC_VERBOSE="1", **mpi_env())
ref = run_to_end(a.ref, 300, shell=True, env=dict(base, CCC_DISABLE="1"))
check(ref.returncode == 0 and ref.stdout, "the plain reference runs")

for wrote, then in (("blocking", "nonblocking"),
                    ("nonblocking", "blocking")):
    tag = "%s -> %s: " % (wrote, then)
    ckpt = os.path.join(work, wrote)
    env = dict(base, CCC_DIR=ckpt, CCC_PROTOCOL=wrote)
    check(killed_after_commit(launch + cmd, env,
                              os.path.join(work, wrote + ".first"), ckpt),
          tag + "a checkpoint was committed before the job ended")
    records = [open(c).read() for c in sorted(glob.glob(ckpt + "/*.commit"))]
    check(records and all("\nprotocol %s\n" % wrote in r for r in records),
          tag + "the commit records name the protocol")
    # No timer in the restart: one restart is what is tested, and writing
    # more checkpoints would only slow the test down.
    r = Run(launch + cmd, dict(env, CCC_PROTOCOL=then, CCC_INTERVAL="0"),
            os.path.join(work, wrote + ".restart"))
    try:
        r.p.wait(timeout=120)
    except subprocess.TimeoutExpired:
        r.kill()
    err = r.stderr()
    check(r.p.returncode == 0 and "restarting from" in err,
          tag + "restarts from the checkpoint (exit %s)" % r.p.returncode)
    line = ("ccc: restarting under CCC_PROTOCOL=%s, the protocol that wrote "
            "this checkpoint" % wrote)
    check(err.count(line) == 1, tag + "says so once: " + line)
    check(r.stdout() == ref.stdout,
          tag + "result identical to the uninterrupted plain run")
    if failures:
        print("--- restart stderr\n" + err)
        break

if failures:
    print(f"{len(failures)} failed; files in {work}")
    sys.exit(1)
shutil.rmtree(work, ignore_errors=True)
