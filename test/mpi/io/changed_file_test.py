#!/usr/bin/env python3
"""An MPI file open at the checkpoint is deleted, or cut short, before the
restart: the restarted job must stop with a clear ccc: message naming the
file (never recreate it empty and go on writing into it), delete no
checkpoint, and restart normally once the file is back.

usage: changed_file_test.py LAUNCH... PROGRAM ARGS...
The program writes field.dat (test/mpi/io/heat_io.c).
"""
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "harness"))
from killrestart import empty_dirs, private_mpi_env  # noqa: E402


def run(cmd, env, cwd, timeout=120):
    p = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=timeout)
    return p.returncode, p.stdout.decode(errors="replace"), \
        p.stderr.decode(errors="replace")


def exe_of(pid):
    try:
        return os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return None


def committed(ckpt):
    """Names and contents of the files up to the newest committed version.
    A version the kill cut short (no commit record, *.tmp files) is the
    restart's to clean up; everything committed must stay as it was."""
    def version(name):
        m = re.search(r"\.v(\d+)\.", name)
        return int(m.group(1)) if m else None
    names = os.listdir(ckpt)
    newest = max((version(n) for n in names if n.endswith(".commit")),
                  default=0)
    kept = {}
    for n in sorted(names):
        v = version(n)
        if v is not None and v <= newest and not n.endswith(".tmp"):
            with open(os.path.join(ckpt, n), "rb") as f:
                kept[n] = hash(f.read())
    return kept


def main():
    cmd = sys.argv[1:]
    work = tempfile.mkdtemp(prefix="ccc-changed-file-")
    mpi_env, mpi_dirs = private_mpi_env()
    ckpt = os.path.join(work, "ckpt")
    env = dict(os.environ, CCC_DIR=ckpt, CCC_INTERVAL="0.1", **mpi_env)
    ok = False
    try:
        # Run until a checkpoint is committed after field.dat got data
        # (the restart must find it there), then SIGKILL the whole job.
        p = subprocess.Popen(cmd, env=env, cwd=work, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL,
                             start_new_session=True)
        field = os.path.join(work, "field.dat")
        deadline = time.time() + 60
        first = None
        while True:
            versions = [int(re.search(r"\.v(\d+)\.commit$", c).group(1))
                        for c in glob.glob(os.path.join(ckpt, "*.commit"))]
            newest = max(versions, default=0)
            if first is None and os.path.exists(field) \
                    and os.path.getsize(field) > 0:
                first = newest
            if first is not None and newest > first:
                break
            if p.poll() is not None or time.time() > deadline:
                print("FAIL: no checkpoint committed after field.dat was "
                      "written before the job ended")
                return 1
            time.sleep(0.01)
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        # The ranks may outlive the launcher by a moment: their checkpoint
        # locks would refuse the restart.
        prog = next(c for c in cmd if os.path.isabs(c) and os.access(c, os.X_OK))
        while any(exe_of(pid) == prog for pid in os.listdir("/proc")
                  if pid.isdigit()):
            time.sleep(0.05)
        empty_dirs(mpi_dirs)
        shutil.copy(field, field + ".kept")
        before = committed(ckpt)
        env = dict(env, CCC_INTERVAL="0")
        for change, what in (("delete", "cannot reopen the MPI file "),
                             ("truncate", "has 0 bytes, fewer than")):
            if change == "delete":
                os.unlink(field)
            else:
                open(field, "w").close()
            code, _, err = run(cmd, env, work)
            empty_dirs(mpi_dirs)
            if code == 0 or f"ccc: " not in err or what not in err \
                    or "field.dat" not in err:
                print(f"FAIL: restart with field.dat {change}d: exit {code}, "
                      f"expected a ccc: message with {what!r}\n{err[-3000:]}")
                return 1
            if committed(ckpt) != before:
                print(f"FAIL: checkpoints changed after the refused restart: "
                      f"{before} -> {committed(ckpt)}")
                return 1
            print(f"{change}: refused as expected")
        shutil.copy(field + ".kept", field)
        code, out, err = run(cmd, env, work)
        if code != 0 or "ccc: restarting from" not in err:
            print(f"FAIL: restart with the file back: exit {code}\n"
                  f"{err[-3000:]}")
            return 1
        print("file restored: restarted and finished")
        ok = True
        return 0
    finally:
        empty_dirs(mpi_dirs)
        if ok:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print("(files in", work + ")")


if __name__ == "__main__":
    sys.exit(main())
