#!/usr/bin/env python3
"""The cost of one coordinated checkpoint with messages in flight, C3's
non-blocking protocol against the blocking one (bench/coordination).

traffic.c, built with ckpt-cc for each MPI whose layer is installed, runs
under mpirun at 2 and 4 ranks (oversubscribed on small machines): per step
each rank posts 4 messages of 64 KiB to each ring neighbour, reaches the
site with them in flight, updates its state and waits for them. Per round,
for each protocol, one run where rank 0 forces a checkpoint half-way and
one where nothing is checkpointed, alternating. The cost of the checkpoint
is the difference of the slowest rank's times (medians over the rounds);
the table gives it per protocol and the ratio non-blocking / blocking, and
the bytes of the image each rank wrote. Both runs of a pair must print the
same checksum, and the forced run must commit version 1.

usage: bench/coordination/run.py [full|smoke] [--prefix PREFIX]
                                 [--mpis openmpi,mpich] [--np 2,4]
  full   64 MiB of state per rank, 24 steps, 5 rounds (about 3 minutes)
  smoke  4 MiB, 8 steps, 1 round (its figures mean nothing)
"""
import argparse
import glob
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.join(TOP, "bench", "coordination")
MODES = {"full": (64, 24, 5), "smoke": (4, 8, 1)}  # MiB, steps, rounds
PROTOCOLS = ("nonblocking", "blocking")


def run(mpi, exe, np, protocol, mib, steps, at, env, work):
    """Seconds (slowest rank) and checksum of one run; the image bytes per
    rank when it checkpointed."""
    store = os.path.join(work, "store")
    shutil.rmtree(store, ignore_errors=True)
    e = dict(env, CCC_DIR=store, CCC_PROTOCOL=protocol, CCC_RESTART="never")
    cmd = ["mpirun." + mpi, "-np", str(np)]
    if mpi == "openmpi":
        cmd.insert(1, "--oversubscribe")
    cmd += [exe, str(mib), str(steps), str(at)]
    r = subprocess.run(cmd, env=e, capture_output=True, text=True)
    m = re.search(r"traffic: \d+ ranks, (\S+) s, sum (\S+)", r.stdout)
    if r.returncode != 0 or not m:
        sys.exit("%s: %s failed (%d):\n%s%s" % (sys.argv[0], " ".join(cmd),
                                               r.returncode, r.stdout,
                                               r.stderr[-3000:]))
    name = os.path.basename(exe)
    images = glob.glob(os.path.join(store, name + ".v000001.r*.ccc"))
    committed = os.path.exists(os.path.join(store, name + ".v000001.commit"))
    if at >= 0 and (not committed or len(images) != np):
        sys.exit("%s: %s %s np %d: the forced checkpoint was not committed"
                 " (%d images)" % (sys.argv[0], mpi, protocol, np,
                                   len(images)))
    if at < 0 and images:
        sys.exit("%s: %s %s np %d: a checkpoint was taken when none was"
                 " asked for" % (sys.argv[0], mpi, protocol, np))
    per_rank = sum(os.path.getsize(p) for p in images) / max(len(images), 1)
    return float(m.group(1)), m.group(2), per_rank


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", nargs="?", default="full", choices=MODES)
    ap.add_argument("--prefix", default=os.path.join(TOP, "build", "install"))
    ap.add_argument("--mpis", default="openmpi,mpich")
    ap.add_argument("--np", default="2,4")
    a = ap.parse_args()
    mib, steps, rounds = MODES[a.mode]
    at = steps // 2
    cc = os.path.join(a.prefix, "bin", "ckpt-cc")
    if not os.access(cc, os.X_OK):
        sys.exit("%s: %s not found (run scripts/build.sh, or name the install"
                 " prefix with --prefix)" % (sys.argv[0], cc))
    try:
        nps = [int(x) for x in a.np.split(",")]
    except ValueError:
        sys.exit("%s: --np takes rank counts, e.g. 2,4" % sys.argv[0])
    work = tempfile.mkdtemp(prefix="ccc-coordination-")
    shm = tempfile.mkdtemp(prefix="ccc-coordination-", dir="/dev/shm")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CCC_")}
    # Open MPI's session directory and segments in our own directories.
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_orte_tmpdir_base=work,
               OMPI_MCA_btl_vader_backing_directory=shm)
    rows = []
    try:
        for mpi in a.mpis.split(","):
            layer = os.path.join(a.prefix, "lib", "libccc_mpi_%s.a" % mpi)
            if not (shutil.which("mpirun." + mpi) and os.path.exists(layer)):
                print("%s: skipped (mpirun.%s or %s not found)" %
                      (mpi, mpi, layer), flush=True)
                continue
            exe = os.path.join(work, "traffic." + mpi)
            subprocess.run([cc, "--mpi=" + mpi, "-O2", "-o", exe,
                            os.path.join(HERE, "traffic.c"), "-lm"],
                           check=True)
            for np in nps:
                t = {(p, c): [] for p in PROTOCOLS for c in (True, False)}
                size = {}
                for r in range(rounds):
                    for p in PROTOCOLS:
                        sums = set()
                        # Alternate which run of the pair goes first.
                        for c in ((True, False) if r % 2 == 0 else
                                  (False, True)):
                            s, chk, b = run(mpi, exe, np, p, mib, steps,
                                            at if c else -1, env, work)
                            t[p, c].append(s)
                            sums.add(chk)
                            if c:
                                size[p] = b
                        if len(sums) != 1:
                            sys.exit("%s: %s %s np %d: the checkpointed run"
                                     " computed another result" %
                                     (sys.argv[0], mpi, p, np))
                cost = {}
                for p in PROTOCOLS:
                    w, wo = (statistics.median(t[p, c]) for c in (True, False))
                    cost[p] = w - wo
                    rows.append((mpi, np, p, wo, w, cost[p], size[p]))
                    print("%-8s np %d %-11s without %.3f s  with %.3f s"
                          "  cost %.3f s" % (mpi, np, p, wo, w, cost[p]),
                          flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(shm, ignore_errors=True)
    print()
    print("bench/coordination, %s mode (%g MiB per rank, %d steps, checkpoint"
          " forced by rank 0 at step %d, %d round%s), %s" %
          (a.mode, mib, steps, at, rounds, "" if rounds == 1 else "s",
           time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())))
    print("seconds, slowest rank, median over the rounds; cost = with - "
          "without; image MB per rank")
    print("%-8s %3s %-12s %9s %9s %9s %9s" % ("mpi", "np", "protocol",
                                             "without", "with", "cost",
                                             "image MB"))
    for mpi, np, p, wo, w, c, b in rows:
        print("%-8s %3d %-12s %9.3f %9.3f %9.3f %9.1f" % (mpi, np, p, wo, w,
                                                          c, b / 1e6))
    for mpi in dict.fromkeys(r[0] for r in rows):
        for np in nps:
            c = {r[2]: r[5] for r in rows if r[0] == mpi and r[1] == np}
            if len(c) == 2 and c["blocking"] > 0:
                print("%s np %d: cost non-blocking / blocking %.2f" %
                      (mpi, np, c["nonblocking"] / c["blocking"]))


if __name__ == "__main__":
    main()
