#!/usr/bin/env python3
"""A flush to CCC_DIR that fails (CCC_LOCAL_DIR, CCC_FLUSH_EVERY=2) fails
that checkpoint and loses nothing.

The job keeps its images on node-local storage (CCC_LOCAL_DIR, here a
directory of this host) and flushes every second version to CCC_DIR, a
tmpfs of the test's own that plays a shared file system (root only:
skipped, exit 77, without root or when the mount fails). Once a version is
committed, the tmpfs is filled up. Then:

 1. the job must say `ccc: checkpoint N not taken: flush of ... to
    CCC_DIR=... failed: No space left on device` for a flushed version N
    and `checkpoint N not committed`, leave N without a commit record, and
    go on; once the space is freed, a version after N is committed, and
    the job is SIGKILLed;
 2. the restart goes on from a version after N and prints, byte for byte,
    what the plain build prints uninterrupted, without bringing back from
    CCC_DIR a file of version N (none of its versions needs one).

(Command line: restart_case.py.)
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from full_disk_test import fill  # noqa: E402
from restart_case import Checks, Run, finish, finished, mpi_env  # noqa: E402
from restart_case import parse  # noqa: E402
from restart_case import plain_reference  # noqa: E402

SKIP = 77
a, launch, cmd = parse()
check = Checks()
NAME = "flushjob"


def commits(ckpt):
    """The versions with a commit record in ckpt."""
    out = set()
    for f in glob.glob(os.path.join(ckpt, NAME + ".v*.commit")):
        out.add(int(re.search(r"\.v(\d+)\.commit$", f).group(1)))
    return out


def wait_for(what, timeout=60):
    """Polls what() until it is true or the job ended; its last value."""
    deadline = time.monotonic() + timeout
    while True:
        got = what()
        if got or r.p.poll() is not None or time.monotonic() > deadline:
            return got
        time.sleep(0.005)


if os.geteuid() != 0:
    print("skipped: mounting a tmpfs needs root")
    sys.exit(SKIP)
work = tempfile.mkdtemp(prefix="ccc-flush-failure-")
ckpt = os.path.join(work, "ckpt")
os.makedirs(ckpt)
m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", ckpt],
                   capture_output=True, text=True)
if m.returncode != 0:
    print("skipped: cannot mount a tmpfs: " + m.stderr.strip())
    shutil.rmtree(work, ignore_errors=True)
    sys.exit(SKIP)
try:
    env = dict(os.environ, CCC_DIR=ckpt,
               CCC_LOCAL_DIR=os.path.join(work, "local"),
               CCC_FLUSH_EVERY="2", CCC_INTERVAL="0.1", CCC_NAME=NAME,
               **mpi_env())
    ref = plain_reference(a.ref, env, work)
    check(ref.returncode == 0 and ref.stdout, "the plain reference runs")

    # 1. Full once a version is committed; freed once a flush has failed;
    # SIGKILL once a later version is committed.
    r = Run(launch + cmd, env, os.path.join(work, "first"))
    first = wait_for(lambda: commits(ckpt))
    filler = os.path.join(ckpt, "filler")
    if first:
        fill(filler)
    failed = wait_for(lambda: re.findall(
        r"ccc: checkpoint (\d+) not taken: flush of \S+ to CCC_DIR=\S+ "
        r"failed: No space left on device", r.stderr()))
    seen_full = commits(ckpt)
    if os.path.exists(filler):
        os.unlink(filler)
    n = int(failed[0]) if failed else 0
    later = wait_for(lambda: any(v > n for v in commits(ckpt)))
    ended = r.p.poll()
    r.kill()
    err = r.stderr()
    check(bool(first), "a version was committed before the disk filled")
    check(ended is None, "the job was still running at the kill (%s)" % ended)
    check(bool(failed), "a failed flush is reported (versions %s)" %
          sorted(set(failed), key=int))
    check(failed and n % 2 == 0, "the version that failed is a flushed "
          "one (%s)" % n)
    check(re.search(r"ccc: checkpoint %d not committed" % n, err) is not None,
          "checkpoint %d is reported not committed" % n)
    check(n not in seen_full and n not in commits(ckpt),
          "version %d has no commit record" % n)
    check(later, "a version after %d is committed once the space is free (%s)"
          % (n, sorted(commits(ckpt))))

    # 2. The restart. A file the failed flush may leave in CCC_DIR (rank
    # 1's message log of version n, never committed, here made sure of) is
    # of no use to it and must not be brought back to the node-local
    # directory. (An image of version n could be: a later version's
    # incremental chain may refer to it.)
    stray = os.path.join(ckpt, "%s.v%06d.r1.log" % (NAME, n))
    if not os.path.exists(stray):
        with open(stray, "wb") as f:
            f.write(b"a flushed log of a version never committed")
    local_stray = os.path.join(work, "local", os.path.basename(stray))
    if os.path.exists(local_stray):
        os.unlink(local_stray)
    rc, r2 = finished(launch + cmd, dict(env, CCC_VERBOSE="1"),
                      os.path.join(work, "restart"), 120)
    got = re.search(r"restarting from \S+ \(checkpoint (\d+)\)", r2.stderr())
    check(rc == 0, "the restart finishes (%s)" % rc)
    check(got is not None and int(got.group(1)) > n,
          "it restarts from a version after %d (%s)" % (n, got and got.group(1)))
    check(r2.stdout() == ref.stdout, "result identical to the plain run")
    # This host kept every file the restart can use: nothing comes from
    # CCC_DIR, where the failed flush may have left files of version n.
    taken = re.search(r"CCC_LOCAL_DIR: \d+ files? taken from CCC_DIR",
                      r2.stderr())
    check(taken is None and not os.path.exists(local_stray),
          "no file is taken from CCC_DIR (%s)" % (taken and taken.group(0)))
finally:
    subprocess.run(["umount", "-l", ckpt])

finish(check, work, ("first", "restart"))
print("PASS")
