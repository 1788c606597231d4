#!/usr/bin/env python3
"""CCC_ASYNC=1: a failure during a background write leaves the previous
committed version (test/rt/CMakeLists.txt: rt.async_inject_write).

usage: inject_test.py CKPT PROGRAM PLAIN

 1. PLAIN runs uninterrupted: the reference output, and its time bounds
    every other run's (RUN_LIMIT_FACTOR times it).
 2. PROGRAM runs with CCC_ASYNC=1, timer checkpoints and CCC_INJECT=write:0:2:
    its writer thread kills the process while writing image 2, after
    image 1 was committed and after the program had gone on from site 2
    (its stderr says so, in that order). Version 1 must be committed,
    version 2 not.
 3. PROGRAM runs again without the fault: it must restart from version 1,
    exit 0 and print the reference output.
 4. With CCC_ASYNC_MEMORY=1M the state does not fit: every image is written
    synchronously, after one `ccc:` note.
 5. The same job under `ckpt run --inject write` (its first image's
    background write killed): it must finish, with the reference output,
    and the events (and its summary) must hold the stall of each checkpoint
    apart from its image's write.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

RUN_LIMIT_FACTOR = 20


def fail(msg, text=""):
    sys.exit("FAIL: %s\n%s" % (msg, text[-3000:]))


def main():
    ckpt, prog, plain = sys.argv[1:4]
    work = tempfile.mkdtemp(prefix="ccc-async-inject-")
    try:
        t = time.monotonic()
        ref = subprocess.run([plain], check=True, capture_output=True).stdout
        limit = max(10.0, RUN_LIMIT_FACTOR * (time.monotonic() - t))
        env = {k: v for k, v in os.environ.items() if not k.startswith("CCC_")}
        d = os.path.join(work, "ckpt")
        env.update(CCC_DIR=d, CCC_ASYNC="1", CCC_INTERVAL="0.3",
                   CCC_VERBOSE="2")

        r = subprocess.run([prog], env=dict(env, CCC_INJECT="write:0:2"),
                           capture_output=True, text=True, timeout=limit)
        err = r.stderr
        if r.returncode != -9:
            fail("the injected run exited %d, not killed" % r.returncode, err)
        order = [r"checkpoint 1 committed", r"checkpoint 2 staged",
                 r"checkpoint 2: background write started",
                 r"CCC_INJECT: rank 0 killed while writing \S+\.v000002\."]
        at = 0
        for e in order:
            m = re.compile(e).search(err, at)
            if not m:
                fail("expected, in this order: %s" % order, err)
            at = m.end()
        commits = sorted(os.path.basename(c)
                         for c in glob.glob(os.path.join(d, "*.commit")))
        if commits != ["large_state.v000001.commit"]:
            fail("committed after the failure: %s, expected version 1 only"
                 % commits, err)

        r = subprocess.run([prog], env=env, capture_output=True, text=True,
                           timeout=limit)
        if "(checkpoint 1)" not in r.stderr or "restarting from" not in r.stderr:
            fail("the next run did not restart from version 1", r.stderr)
        if r.returncode != 0 or r.stdout.encode() != ref:
            fail("after the restart: status %d, output %r, reference %r" %
                 (r.returncode, r.stdout, ref), r.stderr)

        # A staging buffer too small: written synchronously, with a note.
        d1 = os.path.join(work, "small")
        r = subprocess.run([prog], env=dict(env, CCC_DIR=d1,
                                            CCC_ASYNC_MEMORY="1M"),
                           capture_output=True, text=True, timeout=limit)
        if (r.returncode != 0 or r.stdout.encode() != ref
                or "CCC_ASYNC_MEMORY allows 1 MiB: it is written "
                   "synchronously" not in r.stderr
                or "background write started" in r.stderr
                or not glob.glob(os.path.join(d1, "*.commit"))):
            fail("CCC_ASYNC_MEMORY=1M: not written synchronously with a note",
                 r.stderr)

        d2 = os.path.join(work, "run")
        run_env = dict(env, CCC_DIR=d2)
        del run_env["CCC_VERBOSE"]
        out = os.path.join(work, "out")
        r = subprocess.run([ckpt, "run", "--inject", "write", "--backoff", "0",
                            "--stdout", out, "--", prog],
                           env=run_env, capture_output=True, text=True,
                           timeout=4 * limit)
        if (r.returncode != 0 or "1 injected" not in r.stderr
                or "in the background; the program waited" not in r.stderr):
            fail("ckpt run --inject write: status %d" % r.returncode,
                 r.stderr)
        with open(out, "rb") as f:
            if f.read() != ref:
                fail("ckpt run --inject write: output differs", r.stderr)
        with open(os.path.join(d2, "run", "events")) as f:
            events = f.read()
        stalls = re.findall(r" stall (\d+) ([0-9.]+)", events)
        images = dict(re.findall(r" image (\d+) ([0-9.]+)", events))
        if not stalls or not images:
            fail("no stall or image events", events)
        for v, s in stalls:
            if v in images and float(s) > float(images[v]):
                fail("stall of version %s longer than its image's write" % v,
                     events)
        print("ok: version 1 kept after the kill during image 2's background "
              "write; ckpt run: %d stalls (median %.3f s), %d images" %
              (len(stalls), sorted(float(s) for _, s in stalls)[len(stalls) // 2],
               len(images)))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
