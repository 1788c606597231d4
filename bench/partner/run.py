#!/usr/bin/env python3
"""The cost of node-local images' partner copies (CCC_LOCAL_DIR).

    bench/partner/run.py [full|smoke] [--prefix PREFIX] [--np 2]

Runs bench/size/cg.c (ckpt-cc --mpi=openmpi; full: 48 MB per rank, 1500
steps, a checkpoint a second, about 15 s per case) at NP ranks, each rank on a
host of its own: every rank starts in a UTS and mount namespace of its own
(unshare) with hostname bhN, an /etc/hosts naming those hosts, and its own
directory mounted at the CCC_LOCAL_DIR path, so each rank writes its images
to "its host's disk" and copies them over TCP (loopback here) to its partner
rank on the next host. Per checkpoint the runtime reports (CCC_VERBOSE=2)
the time to write the image and the time of the partner copy (sent, stored
and fsynced by the partner's receiver). Prints, over every rank's
checkpoints, the median image write alone, the median partner copy and the
ratio (write + copy) / write, for full images (CCC_FULL_EVERY=1) and for
the default incremental ones. Needs root (unshare --mount).
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SIZE = os.path.join(TOP, "bench", "size")

# One rank on host bh<rank>: own hostname, hosts file, node-local directory.
WRAP = r"""#!/bin/sh
r=${OMPI_COMM_WORLD_RANK:?}
d="$BENCH_WORK/host$r"
mkdir -p "$d" "$BENCH_WORK/local"
exec unshare --uts --mount sh -c 'hostname "$1"; mount --bind "$2" /etc/hosts &&
mount --bind "$3" "$4" && shift 4 && exec "$@"' sh "bh$r" "$BENCH_WORK/hosts" \
  "$d" "$BENCH_WORK/local" "$@"
"""

LINE = re.compile(r"checkpoint (\d+) written: .*\.r(\d+)\.ccc, (\d+) bytes, "
                  r"([0-9.]+) s \(partner copy ([0-9.]+) s\)")


def run_case(work, exe, np, args, env, label):
    for d in os.listdir(work):
        if d.startswith("host") and d != "hosts" or d in ("shared", "local"):
            shutil.rmtree(os.path.join(work, d))
    r = subprocess.run(["mpirun.openmpi", "--oversubscribe", "-np", str(np),
                        os.path.join(work, "wrap.sh"), exe] + args,
                       env=env, capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        sys.exit("%s: %s failed (%d):\n%s" % (sys.argv[0], label, r.returncode,
                                             r.stderr[-3000:]))
    rows = [(int(m[1]), int(m[2]), int(m[3]), float(m[4]), float(m[5]))
            for m in LINE.finditer(r.stderr)]
    if not rows or any(m[4] <= 0 for m in rows):
        sys.exit("%s: %s: no checkpoint with a partner copy reported:\n%s" %
                 (sys.argv[0], label, r.stderr[-3000:]))
    write = [t - c for _, _, _, t, c in rows]
    copy = [c for _, _, _, _, c in rows]
    size = [b for _, _, b, _, _ in rows]
    w, c = statistics.median(write), statistics.median(copy)
    print("%-12s %3d  %12d  %9.4f  %9.4f  %6.3f" %
          (label, len(rows), int(statistics.median(size)), w, c, (w + c) / w),
          flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", nargs="?", default="full", choices=["full", "smoke"])
    ap.add_argument("--prefix", default=os.path.join(TOP, "build", "install"))
    ap.add_argument("--np", type=int, default=2)
    a = ap.parse_args()
    if os.geteuid() != 0 or not shutil.which("unshare"):
        sys.exit("%s: needs root and unshare (mount namespaces)" % sys.argv[0])
    cc = os.path.join(a.prefix, "bin", "ckpt-cc")
    if not os.access(cc, os.X_OK):
        sys.exit("%s: %s not found (run scripts/build.sh)" % (sys.argv[0], cc))
    work = tempfile.mkdtemp(prefix="ccc-partner-")
    try:
        exe = os.path.join(work, "cg")
        env = {k: v for k, v in os.environ.items() if not k.startswith("CCC_")}
        env.update(OMPI_CC="clang-19", OMPI_ALLOW_RUN_AS_ROOT="1",
                   OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   OMPI_MCA_orte_tmpdir_base=work, BENCH_WORK=work)
        subprocess.run([cc, "--mpi=openmpi", "-O2", "-I", SIZE, "-o", exe,
                        os.path.join(SIZE, "cg.c"), "-lm"], check=True, env=env)
        with open(os.path.join(work, "wrap.sh"), "w") as f:
            f.write(WRAP)
        os.chmod(os.path.join(work, "wrap.sh"), 0o755)
        with open(os.path.join(work, "hosts"), "w") as f:
            f.write("127.0.0.1 localhost %s\n" %
                    " ".join("bh%d" % r for r in range(a.np)))
        args = ["48", "1500"] if a.mode == "full" else ["4", "12"]
        env.update(CCC_DIR=os.path.join(work, "shared"),
                   CCC_LOCAL_DIR=os.path.join(work, "local"),
                   CCC_INTERVAL="1" if a.mode == "full" else "0.2",
                   CCC_VERBOSE="2")
        load = os.getloadavg()[0]
        print("bench/partner, %s mode, cg %s MB per rank, %d steps, %d ranks "
              "on %d hosts, load %.2f" % (a.mode, args[0], int(args[1]), a.np,
                                          a.np, load))
        print("images       ckpts  median bytes  write s    copy s     "
              "(write+copy)/write")
        run_case(work, exe, a.np, args, dict(env, CCC_FULL_EVERY="1"), "full")
        run_case(work, exe, a.np, args, env, "incremental")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
