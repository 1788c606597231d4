#!/usr/bin/env python3
"""A launcher that goes on after every process of its job has ended is
ended by `ckpt run`, which then tells a finished job from a failed one by
the exit statuses the processes wrote.

  launcher_outlives_test.py CKPT PROGRAM PLAIN STEPS PARTICLES

Open MPI 4.1's mpirun was seen to deadlock in its own finalization after
its ranks had ended. The launcher here is a shell that runs the program
(built with ccc) and then sleeps for 300 s. Two runs with
--launcher-grace 2:
  - the program finishes: `ckpt run` ends the shell and exits 0 at once;
  - the program is killed by an injected SIGKILL in the first attempt: that
    attempt counts as failed (no exit status was written), the next one
    restarts from the checkpoint, and the job is finished.
The output must be the plain build's, byte for byte, and no process of the
job may be left. Without the check `ckpt run` waits for the shell (300 s).
"""
import os
import shutil
import subprocess
import sys
import time

import shell_launcher


def main():
    ckpt, prog, plain, steps, particles = sys.argv[1:6]
    ref = subprocess.run([plain, steps, particles], capture_output=True,
                         timeout=120, check=True).stdout
    failures = []
    for name, extra in (("finished", []),
                        ("killed", ["--inject", "kill:rank=0,after=0.8"])):
        launcher = '"$0" "$@"; echo $$ > shell.pid; exec sleep 300'
        top, err, rc = shell_launcher.run(
            ckpt, "ckpt_run_launcher_", ["--launcher-grace", "2",
                                         "--backoff", "0.1", *extra],
            launcher, [prog, steps, particles])
        out = os.path.join(top, "out")

        def check(ok, what):
            if not ok:
                failures.append("%s: %s" % (name, what))
                print("FAIL %s: %s" % (name, what))

        check(rc == 0, "ckpt run exits 0 (got %s)" % rc)
        ended = err.count("every process of the job has ended, the launcher")
        check(ended == (1 if name == "finished" else 2),
              "the launcher was ended once per attempt (%d)" % ended)
        check("all 1 process exited with status 0: the job is finished"
              in err, "the job counts as finished")
        if name == "killed":
            check("attempt 1 failed (the launcher outlived its processes;"
                  in err, "the killed attempt counts as failed")
        with open(out, "rb") as f:
            check(f.read() == ref, "output identical to the plain build's")
        time.sleep(0.2)
        left = subprocess.run(["pgrep", "-f", "sleep 300"],
                              capture_output=True, text=True).stdout.split()
        with open(os.path.join(top, "shell.pid")) as f:
            shell = f.read().strip()
        check(shell not in left, "the launcher is gone")
        if not failures:
            shutil.rmtree(top)
    if failures:
        sys.exit("%d failed" % len(failures))
    print("PASS")


if __name__ == "__main__":
    main()
