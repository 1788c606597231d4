#!/usr/bin/env python3
"""A disk that fills up under a running MPI job loses nothing: the job
goes on with the right result, each checkpoint it cannot write is reported
with a ccc: message and not committed, no partial image is left, the last
committed checkpoint verifies, and a restart from it gives the result of a
run without ccc.

The checkpoint directory is a tmpfs of its own (root only: the test is
skipped, exit 77, without root or when the mount fails; a file-size limit
would also break MPI's shared-memory files). Once the first version is
committed, the test fills the tmpfs with a file until writes fail.

usage: full_disk_test.py --ckpt CKPT --ref "PLAIN COMMAND" -- COMMAND...
"""
import argparse
import errno
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "harness"))
from killrestart import kill_job, private_mpi_env, run_to_end  # noqa: E402

SKIP = 77
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def fill(path):
    """Writes zeros to path until the file system is full."""
    block = b"\0" * (1 << 20)
    with open(path, "wb", buffering=0) as f:
        while True:
            try:
                f.write(block)
            except OSError as e:
                if e.errno != errno.ENOSPC:
                    raise
                break
    # The last partial block: a smaller write may still fit.
    with open(path, "ab", buffering=0) as f:
        try:
            while True:
                f.write(b"\0" * 4096)
        except OSError as e:
            if e.errno != errno.ENOSPC:
                raise


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--ref", required=True)
    ap.add_argument("--size", default="64m", help="tmpfs size")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if os.geteuid() != 0:
        print("skipped: mounting a tmpfs needs root")
        return SKIP
    work = tempfile.mkdtemp(prefix="ccc-full-disk-")
    disk = os.path.join(work, "disk")
    os.makedirs(disk)
    m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=" + a.size,
                        "tmpfs", disk], capture_output=True, text=True)
    if m.returncode != 0:
        print("skipped: cannot mount a tmpfs: " + m.stderr.strip())
        shutil.rmtree(work, ignore_errors=True)
        return SKIP
    job = None
    try:
        mpi_env, _ = private_mpi_env()
        env = dict(os.environ, **mpi_env)
        ref = run_to_end(a.ref, a.timeout, shell=True, text=True,
                         env=dict(env, CCC_DISABLE="1"))
        check(ref.returncode == 0 and ref.stdout.strip() != "",
              "reference ran: %s" % ref.stdout.strip())

        run_env = dict(env, CCC_DIR=disk, CCC_INTERVAL="0.1",
                       CCC_VERBOSE="1", CCC_RESTART="never")
        job = subprocess.Popen(cmd, env=run_env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
        t0 = time.monotonic()
        while not glob.glob(os.path.join(disk, "*.commit")):
            if job.poll() is not None or time.monotonic() - t0 > a.timeout:
                break
            time.sleep(0.01)
        committed = sorted(glob.glob(os.path.join(disk, "*.commit")))
        check(bool(committed) and job.poll() is None,
              "a version was committed while the job ran (%s)" %
              ", ".join(os.path.basename(c) for c in committed))
        filler = os.path.join(disk, "filler")
        fill(filler)
        out, err = job.communicate(timeout=a.timeout)
        check(job.returncode == 0, "the job finished (exit %d)" %
              job.returncode)
        check(out.strip() == ref.stdout.strip(),
              "its result is that of the run without ccc (%s)" % out.strip())
        failed = re.findall(r"ccc: .*checkpoint (\d+) not taken: .*No space "
                            r"left on device; the previous committed "
                            r"checkpoint is kept", err)
        check(bool(failed), "full disk reported with a ccc: message "
              "(versions %s)" % ", ".join(sorted(set(failed), key=int)))
        # Rank 0's verdict on each: a rank could not write (not the
        # silence of a checkpoint abandoned at MPI_Finalize).
        lost = re.findall(r"ccc: checkpoint (\d+) not committed: a rank could "
                          r"not write its image or its message log; the "
                          r"previous committed checkpoint is kept", err)
        check(failed and set(failed) <= set(lost),
              "rank 0 reported each as not committed (versions %s)" %
              ", ".join(sorted(set(lost), key=int)))
        check(not any(glob.glob(os.path.join(disk, "*.v%06d.commit" %
                                             int(v))) for v in failed),
              "no version that failed to write was committed")
        tmp = glob.glob(os.path.join(disk, "*.tmp"))
        check(not tmp, "no partial image left (%d .tmp files%s)" % (
            len(tmp), (": " + os.path.basename(tmp[0]) + ", ...") if tmp
            else ""))
        os.unlink(filler)
        commits = sorted(glob.glob(os.path.join(disk, "*.commit")))
        last = commits[-1] if commits else "(none).commit"
        images = sorted(glob.glob(last[:-len(".commit")] + ".r*.ccc"))
        check(bool(images), "the last committed version has its images (%s)"
              % os.path.basename(last))
        for img in images:
            v = subprocess.run([a.ckpt, "verify", img], capture_output=True,
                               text=True)
            check(v.returncode == 0, "ckpt verify %s" % os.path.basename(img))

        rs = run_to_end(cmd, a.timeout, text=True,
                        env=dict(run_env, CCC_INTERVAL="0",
                                 CCC_RESTART="require"))
        check(rs.returncode == 0 and rs.stdout.strip() == ref.stdout.strip(),
              "a restart from it gives the same result (%s)" %
              rs.stdout.strip())
        check(re.search(r"restarting from .*\(checkpoint \d+\)", rs.stderr)
              is not None,
              "the restart said it restarted")
    finally:
        if job is not None and job.poll() is None:
            kill_job(job)  # a timed-out job: none of its ranks left
        subprocess.run(["umount", "-l", disk])
        shutil.rmtree(work, ignore_errors=True)
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
