#!/usr/bin/env python3
"""A checkpoint still open when the ranks reach MPI_Finalize (rank 0 forced
it after every rank's last site) is abandoned cleanly: the job exits 0, the
earlier version stays committed, no image or log of the abandoned version
is left, and the job log says nothing at the default verbosity (nothing was
lost) and one accurate line at CCC_VERBOSE=1, never that a rank could not
write.

usage: expect_abandoned.py COMMAND...
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "harness"))
from killrestart import private_mpi_env  # noqa: E402

cmd = sys.argv[1:]
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


mpi_env, _ = private_mpi_env()
for verbose in ("0", "1"):
    with tempfile.TemporaryDirectory(prefix="ccc-abandoned-") as d:
        env = dict(os.environ, CCC_DIR=d, CCC_VERBOSE=verbose, **mpi_env)
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                           env=env)
        files = sorted(os.path.basename(f) for f in glob.glob(d + "/*")
                       if not f.endswith(".lock"))
    tag = "CCC_VERBOSE=%s: " % verbose
    check(r.returncode == 0 and r.stdout.startswith("sum "),
          tag + "the job finished (exit %d)" % r.returncode)
    commits = [f for f in files if f.endswith(".commit")]
    check(commits == [f for f in commits if ".v000001." in f] and commits,
          tag + "version 1 committed, no other (%s)" % commits)
    check(not [f for f in files if ".v000002." in f],
          tag + "no file of the abandoned version 2 left (%s)" % files)
    check("could not write" not in r.stderr and
          "not committed" not in r.stderr,
          tag + "no rank is said to have failed")
    if verbose == "0":
        check(not re.search(r"^ccc: ", r.stderr, re.M),
              tag + "nothing printed by ccc")
    else:
        check(re.search(r"ccc: checkpoint 2 abandoned: rank [1-9][0-9]* "
                        r"reached MPI_Finalize before taking it", r.stderr)
              is not None, tag + "says the checkpoint was abandoned")
    if failures:
        print("--- stderr\n" + r.stderr)
        break
print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
