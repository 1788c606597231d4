#!/usr/bin/env python3
"""A process of the job that outlives its launcher is killed by `ckpt run`.

  stragglers_test.py CKPT

Open MPI puts each rank in a process group of its own, so a rank the
launcher leaves behind is not reached through the launcher's group. The
command here is such a launcher: it starts a process in a new session and
fails. `ckpt run` must kill that process before it launches again (it would
hold the checkpoint directory's locks and the cores), say so, and leave no
process of the job behind when it gives up.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time


def alive(pid):
    """Running, not a zombie."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        return False


def main():
    ckpt = sys.argv[1]
    top = tempfile.mkdtemp(prefix="ckpt_run_stragglers_", dir=os.getcwd())
    launcher = ("setsid sleep 120 & echo $! >> pids; sleep 0.3; exit 3")
    r = subprocess.run([ckpt, "run", "--retries", "1", "--backoff", "0.1",
                        "--", "sh", "-c", launcher], cwd=top,
                       stderr=subprocess.PIPE, universal_newlines=True,
                       timeout=60)
    with open(os.path.join(top, "pids")) as f:
        pids = [int(x) for x in f.read().split()]
    print(r.stderr)
    if r.returncode != 3:
        sys.exit("FAIL: ckpt run exited with %d, not the job's 3"
                 % r.returncode)
    if len(pids) != 2:
        sys.exit("FAIL: %d attempts, not 2" % len(pids))
    said = r.stderr.count("1 process of the job outlived the launcher: "
                          "killed")
    if said != 2:
        sys.exit("FAIL: the left-behind process was reported %d times, not "
                 "once per attempt" % said)
    time.sleep(0.2)
    left = [p for p in pids if alive(p)]
    for p in left:
        os.kill(p, 9)
    if left:
        sys.exit("FAIL: processes of the job still run after ckpt run "
                 "ended: %s" % left)
    print("PASS: the process each attempt left behind was killed")
    shutil.rmtree(top)


if __name__ == "__main__":
    main()
