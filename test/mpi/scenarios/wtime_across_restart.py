#!/usr/bin/env python3
"""MPI_Wtime goes on across a restart from its value at the checkpoint.

Runs wtime_continues.c's job until its forced checkpoint is committed,
lets it run on for a while (the work a failure loses: at least 2 s, and
twice what the job took to reach its commit, so that it is long on a slow
machine too), SIGKILLs it, and runs the same command again. The restarted
job must report that its clock moved forward, by less than the time the
killed job ran after its checkpoint: the lost work and the downtime do not
count, and the clock never runs backwards (the program checks every
reading against the last).

usage: wtime_across_restart.py -- LAUNCH... PROGRAM
"""
import glob
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "harness"))
from killrestart import empty_dirs, kill_job, private_mpi_env  # noqa: E402

TIMEOUT = 120


def main():
    args = sys.argv[1:]
    if args[:1] == ["--"]:
        args = args[1:]
    mpi_env, mpi_dirs = private_mpi_env()
    with tempfile.TemporaryDirectory(prefix="ccc-wtime-") as d:
        env = dict(os.environ, CCC_DIR=d, **mpi_env)
        out_path = os.path.join(d, "first.out")
        with open(out_path, "w") as out:
            start = time.monotonic()
            p = subprocess.Popen(args, env=env, stdout=out,
                                 stderr=subprocess.STDOUT,
                                 start_new_session=True)
            while not glob.glob(os.path.join(d, "*.commit")):
                if p.poll() is not None or time.monotonic() - start > TIMEOUT:
                    kill_job(p)
                    sys.exit("FAIL: the first run committed no checkpoint\n" +
                             open(out_path).read())
                time.sleep(0.01)
            committed = time.monotonic()
            time.sleep(max(2.0, 2 * (committed - start)))
            kill_job(p)
            lost = time.monotonic() - committed
        empty_dirs(mpi_dirs)
        r = subprocess.run(args, env=env, capture_output=True, text=True,
                           timeout=TIMEOUT)
        m = re.search(r"resumed at step 10: the clock moved (-?[0-9.]+) s",
                      r.stdout)
        if r.returncode != 0 or not m:
            sys.exit(f"FAIL: the restart exited {r.returncode}\n--- stdout\n"
                     f"{r.stdout}\n--- stderr\n{r.stderr[-3000:]}")
        moved = float(m.group(1))
        print(f"the job ran {lost:.3f} s after its checkpoint; across the "
              f"restart the clock moved {moved:.6f} s")
        if not 0 <= moved < lost:
            sys.exit("FAIL: the clock must go on from its value at the "
                     "checkpoint (moved at least 0 s and less than the time "
                     "lost)")


if __name__ == "__main__":
    main()
