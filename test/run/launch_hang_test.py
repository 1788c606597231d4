#!/usr/bin/env python3
"""A launch that hangs before any process of the job starts is a hang too.

  launch_hang_test.py CKPT PROGRAM PLAIN STEPS PARTICLES

A launcher can wait for ever for a host that died after the supervisor's
probe of it answered (MPICH's mpiexec does when its proxy cannot be
started there): no process of the job ever reaches the runtime, so no
heartbeat goes stale. The launcher here is a shell that, the first time,
sleeps for 300 s without starting the program (built with ccc) and, the
second time, runs it. With --hang-timeout T, `ckpt run` must end the first
attempt after about T s ("no process of the job started in T s: the launch
hangs"), launch again and finish with the plain build's output, byte for
byte, and with no process of the job left. Without the check `ckpt run`
waits for the shell (300 s). T is at least 3 s and twice what the plain
build's whole run took here, so that the second attempt, which reaches its
sites far more often than that, is never taken for a hang on a busy
machine.
"""
import math
import os
import shutil
import subprocess
import sys
import time

import shell_launcher


def main():
    ckpt, prog, plain, steps, particles = sys.argv[1:6]
    start = time.monotonic()
    ref = subprocess.run([plain, steps, particles], capture_output=True,
                         timeout=120, check=True).stdout
    hang = max(3, math.ceil(2 * (time.monotonic() - start)))
    launcher = ('if [ ! -e launched ]; then : > launched; echo $$ > '
                'shell.pid; exec sleep 300; fi; exec "$0" "$@"')
    top, err, rc = shell_launcher.run(
        ckpt, "ckpt_run_launch_hang_", ["--hang-timeout", str(hang),
                                        "--backoff", "0.1"], launcher,
        [prog, steps, particles])
    out = os.path.join(top, "out")
    failures = []

    def check(ok, what):
        if not ok:
            failures.append(what)
            print("FAIL: " + what)

    check(rc == 0, "ckpt run exits 0 (got %s)" % rc)
    check(err.count("no process of the job started in %d s: the launch "
                    "hangs; killing it" % hang) == 1, "the hung launch is "
          "reported once")
    check("attempt 1 failed (hang;" in err, "attempt 1 counts as a hang")
    check("finished after 2 attempts" in err, "the second attempt finishes")
    with open(out, "rb") as f:
        check(f.read() == ref, "output identical to the plain build's")
    with open(os.path.join(top, "shell.pid")) as f:
        shell = int(f.read())
    check(not os.path.exists("/proc/%d" % shell) or
          open("/proc/%d/stat" % shell).read().split(") ")[1][0] == "Z",
          "the hung launcher is gone")
    if failures:
        sys.exit("%d failed (files in %s)" % (len(failures), top))
    shutil.rmtree(top)
    print("PASS")


if __name__ == "__main__":
    main()
