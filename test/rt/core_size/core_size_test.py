#!/usr/bin/env python3
"""A core dump of a ccc process holds about what the process uses, not the
heap region's whole reservation (64 GiB, reserved MADV_DONTDUMP and made
dumpable as the allocator takes it): PROGRAM holds 100 MiB, `gcore` of it,
first run and restarted run, must be at least 100 MiB (the data is in it)
and at most LIMIT MiB, in apparent size and in blocks written.

usage: core_size_test.py PROGRAM [LIMIT_MIB]
"""
import os
import resource
import signal
import subprocess
import sys
import tempfile

program = sys.argv[1]
limit = int(sys.argv[2]) if len(sys.argv) > 2 else 400
MiB = 1 << 20
bad = 0
with tempfile.TemporaryDirectory(prefix="ccc-core-") as tmp:
    env = dict(os.environ, CCC_DIR=os.path.join(tmp, "ckpt"))
    for run in ("first", "restarted"):
        p = subprocess.Popen([program], env=env, stdout=subprocess.PIPE,
                             text=True)
        try:
            line = p.stdout.readline().split()
            if line[:2] != ["ready", run]:
                print("FAIL: %s run printed %r" % (run, line))
                sys.exit(1)
            core = os.path.join(tmp, "core")
            # A core past the limit is a failure: stop gcore there (SIGXFSZ)
            # rather than write the whole reservation.
            cap = (limit + 1) * MiB
            g = subprocess.run(["gcore", "-o", core, str(p.pid)],
                               capture_output=True, text=True, timeout=300,
                               preexec_fn=lambda: resource.setrlimit(
                                   resource.RLIMIT_FSIZE, (cap, cap)))
            path = "%s.%d" % (core, p.pid)
            if g.returncode != 0 or not os.path.exists(path):
                print("FAIL: %s run: gcore failed (exit %d; a core over %d "
                      "MiB is cut off):" % (run, g.returncode, limit + 1),
                      g.stdout[-2000:], g.stderr[-2000:])
                sys.exit(1)
            st = os.stat(path)
            size, written = st.st_size, st.st_blocks * 512
            os.unlink(path)
        finally:
            p.send_signal(signal.SIGKILL)
            p.wait()
        ok = 100 * MiB <= size <= limit * MiB and written <= limit * MiB
        bad += not ok
        print("%s %s run: core %.1f MiB (%.1f MiB written), expected "
              "100..%d MiB" % ("ok  " if ok else "FAIL", run, size / MiB,
                               written / MiB, limit))
sys.exit(1 if bad else 0)
