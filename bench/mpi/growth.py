#!/usr/bin/env python3
"""Control traffic of the non-blocking protocol against the number of ranks.

Builds bench/mpi/growth.c with ckpt-cc --mpi=MPI and runs it at P ranks
(default 2, 4, 8 and 16; oversubscribed) with timer checkpoints
(CCC_INTERVAL, CCC_PROTOCOL=nonblocking, CCC_DIR in a temporary directory)
and CCC_MPI_COUNTS, the layer's own count of its control messages: one line
per rank at MPI_Finalize (mpi-layer/protocol/ProtocolControl.cpp, reportCounts).

Prints per P the control messages and bytes per rank per checkpoint (mean
and max over the ranks), the total per checkpoint, the INITs and the STARTs
sent up by ranks that began a checkpoint on their own, the logged
collective bytes per checkpoint, and compares the total with the tree's
formula 4(P-1) + INITs + STARTs up, and with the old design's P(P-1)+P-1;
then a least-squares fit of log(total per checkpoint) on log(P).

Fails (exit 1) when a count breaks the tree's rules: every rank r sends, per
checkpoint, START and ALL to each of its children (K=4-ary tree, root 0) and
DONE and LOGGED to its parent, plus its INITs and STARTs up, and nothing
else; so the total is exactly 4(P-1) per checkpoint + INITs + STARTs up, and
nothing is left for the collectives (the layer sends no control message for
a collective). Also checks: rank 0 sends no START up, each rank's INITs go to
its ring neighbours only (at most one each per checkpoint), every message
sent was received, and the layer counted as many collectives as the program
called. Unless --no-pmpi, bench/mpi/pmpicount.c (LD_PRELOAD) counts the
PMPI calls the layer makes, outside the layer: its sends on its own
communicator must equal its count of control messages, its sends on
MPI_COMM_WORLD the program's sends, and its collectives on MPI_COMM_WORLD
the program's collectives (one MPI call per call, nothing added).

usage: growth.py [--quick] [--prefix DIR] [--mpi openmpi,mpich]
                 [--ranks 2,4,8,16] [--seconds S] [--interval S] [--no-pmpi]
  --quick  P = 2 and 4, 1.2 s each (ctest bench.mpi.growth.quick)
"""
import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FANOUT = 4  # the tree's fan-out (ProtocolControl.cpp, kFanout)


def children(r, p):
    first = r * FANOUT + 1
    return max(0, min(FANOUT, p - first))


def launcher(mpi, np_):
    if mpi == "openmpi":
        return ["mpirun.openmpi", "--oversubscribe", "-np", str(np_)]
    return ["mpiexec.mpich", "-n", str(np_)]


def run(mpi, exe, np_, args, work, shim):
    env = {k: v for k, v in os.environ.items() if not k.startswith("CCC_")}
    ckpt = os.path.join(work, "ckpt-%s-%d" % (mpi, np_))
    counts = os.path.join(work, "counts-%s-%d" % (mpi, np_))
    os.makedirs(ckpt)
    env.update(CCC_INTERVAL=str(args.interval), CCC_PROTOCOL="nonblocking",
               CCC_DIR=ckpt, CCC_MPI_COUNTS=counts)
    pcounts = os.path.join(work, "pmpi-%s-%d" % (mpi, np_))
    cmd = launcher(mpi, np_)
    if mpi == "openmpi":
        for v in ("CCC_INTERVAL", "CCC_PROTOCOL", "CCC_DIR", "CCC_MPI_COUNTS"):
            cmd[1:1] = ["-x", v]
    if shim:
        # In the ranks only, not in the launcher.
        if mpi == "openmpi":
            cmd[1:1] = ["-x", "LD_PRELOAD=" + shim,
                        "-x", "PMPICOUNT_FILE=" + pcounts]
        else:
            cmd[1:1] = ["-genv", "LD_PRELOAD", shim,
                        "-genv", "PMPICOUNT_FILE", pcounts]
    cmd += [exe, "-t", str(args.seconds), "-n", "10"]
    p = subprocess.run(cmd, cwd=ckpt, env=env, capture_output=True, text=True,
                       timeout=600)
    if p.returncode != 0:
        sys.exit("growth.py: %s at %d ranks failed (%d):\n%s%s" %
                 (mpi, np_, p.returncode, p.stdout, p.stderr))
    prog = [l.split() for l in p.stdout.splitlines() if l.startswith("growth ")]
    if len(prog) != 1:
        sys.exit("growth.py: %s at %d ranks: no result line:\n%s%s" %
                 (mpi, np_, p.stdout, p.stderr))
    _, size, iters, secs, colls, sends = prog[0]
    ranks = {}
    with open(counts) as f:
        for line in f:
            w = line.split()
            d = {w[i]: int(w[i + 1]) for i in range(0, len(w) - 1, 2)}
            ranks[d["rank"]] = d
    if shim:
        with open(pcounts) as f:
            for line in f:
                w = line.split()
                d = {w[i]: int(w[i + 1]) for i in range(0, len(w) - 1, 2)}
                if d["rank"] in ranks:
                    ranks[d["rank"]]["pmpi"] = d
    return {"shim": shim, "iters": int(iters), "secs": float(secs), "colls": int(colls),
            "sends": int(sends), "ranks": ranks}


def check(np_, res):
    """The tree's rules (see the module doc); returns a list of failures."""
    bad = []
    ranks = res["ranks"]
    if sorted(ranks) != list(range(np_)):
        return ["%d count lines for ranks %s" % (len(ranks), sorted(ranks))]
    e = ranks[0]["checkpoints"]
    if e < 2:
        bad.append("only %d checkpoint(s): not enough to measure" % e)
    neighbours = 2 if np_ > 2 else np_ - 1  # distinct ring neighbours
    for r, d in sorted(ranks.items()):
        if d["checkpoints"] != e:
            bad.append("rank %d took %d checkpoints, rank 0 %d" %
                       (r, d["checkpoints"], e))
        tree = e * (2 * children(r, np_) + (2 if r else 0))
        want = tree + d["ctrl_inits"] + d["ctrl_starts_up"]
        if d["ctrl_msgs"] != want:
            bad.append("rank %d sent %d control messages, the tree says %d "
                       "(%d START/ALL/DONE/LOGGED + %d INIT + %d START up)" %
                       (r, d["ctrl_msgs"], want, tree, d["ctrl_inits"],
                        d["ctrl_starts_up"]))
        if r == 0 and d["ctrl_starts_up"]:
            bad.append("rank 0 sent %d STARTs up" % d["ctrl_starts_up"])
        if d["ctrl_starts_up"] > e:
            bad.append("rank %d sent %d STARTs up in %d checkpoints" %
                       (r, d["ctrl_starts_up"], e))
        if d["ctrl_inits"] > e * neighbours:
            bad.append("rank %d sent %d INITs in %d checkpoints to %d "
                       "neighbour(s)" % (r, d["ctrl_inits"], e, neighbours))
        if d["collectives"] != res["colls"]:
            bad.append("rank %d: the layer counted %d collectives, the "
                       "program called %d" % (r, d["collectives"],
                                              res["colls"]))
        # The PMPI calls the layer made, counted outside it (pmpicount.c).
        m = d.get("pmpi")
        if m is None:
            if res["shim"]:
                bad.append("rank %d: no PMPI count" % r)
            continue
        if m["other_sends"] != d["ctrl_msgs"]:
            bad.append("rank %d: %d PMPI sends on the layer's communicator, "
                       "the layer counted %d control messages" %
                       (r, m["other_sends"], d["ctrl_msgs"]))
        if m["world_sends"] != res["sends"]:
            bad.append("rank %d: %d PMPI sends on MPI_COMM_WORLD for %d "
                       "sends of the program" % (r, m["world_sends"],
                                                 res["sends"]))
        if m["world_colls"] != res["colls"]:
            bad.append("rank %d: %d PMPI collectives on MPI_COMM_WORLD for "
                       "%d of the program" % (r, m["world_colls"],
                                              res["colls"]))
    sent = sum(d["ctrl_msgs"] for d in ranks.values())
    got = sum(d["ctrl_msgs_in"] for d in ranks.values())
    if sent != got:
        bad.append("%d control messages sent, %d received" % (sent, got))
    return bad


def summarize(np_, res):
    ranks = res["ranks"]
    e = ranks[0]["checkpoints"]
    per = lambda k: [d[k] / e for d in ranks.values()]
    msgs, byts = per("ctrl_msgs"), per("ctrl_bytes")
    total = sum(msgs)
    inits = sum(per("ctrl_inits"))
    ups = sum(per("ctrl_starts_up"))
    return {
        "P": np_, "E": e, "iters": res["iters"], "secs": res["secs"],
        "colls": res["colls"],
        "msg_mean": total / np_, "msg_max": max(msgs),
        "byte_mean": sum(byts) / np_, "byte_max": max(byts),
        "total": total, "inits": inits, "ups": ups,
        "formula": 4 * (np_ - 1) + inits + ups,
        # each rank sends to both ring neighbours (one peer at P = 2)
        "ring": 2 * np_ if np_ > 2 else np_,
        "old": np_ * (np_ - 1) + np_ - 1,
        # the layer's own collectives on its communicator (pmpicount.c)
        "own": max((d["pmpi"]["other_colls"] for d in ranks.values()
                    if "pmpi" in d), default=None),
        "logged": sum(d["coll_logged_bytes"] for d in ranks.values()) / e,
    }


def slope(xs, ys):
    lx = [math.log(x) for x in xs]
    ly = [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return (sum((a - mx) * (b - my) for a, b in zip(lx, ly)) /
            sum((a - mx) ** 2 for a in lx))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--prefix", default=os.path.join(TOP, "build", "install"))
    ap.add_argument("--mpi", default="openmpi")
    ap.add_argument("--ranks")
    ap.add_argument("--seconds", type=float)
    ap.add_argument("--interval", type=float, default=0.2)
    ap.add_argument("--no-pmpi", action="store_true",
                    help="do not count PMPI calls with pmpicount.c")
    args = ap.parse_args()
    ranks = args.ranks or ("2,4" if args.quick else "2,4,8,16")
    ranks = [int(r) for r in ranks.split(",")]
    if args.seconds is None:
        args.seconds = 1.2 if args.quick else 3.0
    cc = os.path.join(args.prefix, "bin", "ckpt-cc")
    if not os.access(cc, os.X_OK):
        sys.exit("growth.py: %s not found (run scripts/build.sh, or give "
                 "--prefix)" % cc)
    work = tempfile.mkdtemp(prefix="ccc-growth.")
    shm = tempfile.mkdtemp(prefix="ccc-growth.", dir="/dev/shm")
    # Open MPI's session directory and shared memory in directories of our
    # own (as bench/mpi/run.sh), removed at the end.
    os.makedirs(os.path.join(work, "ompi"))
    os.environ["OMPI_MCA_orte_tmpdir_base"] = os.path.join(work, "ompi")
    os.environ["OMPI_MCA_btl_vader_backing_directory"] = shm
    if os.getuid() == 0:
        os.environ["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
        os.environ["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    failed = []
    try:
        for mpi in args.mpi.split(","):
            exe = os.path.join(work, "growth-" + mpi)
            subprocess.run([cc, "--mpi=" + mpi, "-O2", "-o", exe,
                            os.path.join(TOP, "bench", "mpi", "growth.c")],
                           check=True)
            shim = None
            if not args.no_pmpi:
                shim = os.path.join(work, "pmpicount-%s.so" % mpi)
                subprocess.run(["mpicc." + mpi, "-O2", "-shared", "-fPIC",
                                "-o", shim,
                                os.path.join(TOP, "bench", "mpi",
                                             "pmpicount.c"), "-ldl"],
                               check=True)
            print("== %s: growth.c, Allreduce 8 B + ring Sendrecv + site per "
                  "iteration, CCC_INTERVAL=%g on every rank, %g s per run; "
                  "per checkpoint" % (mpi, args.interval, args.seconds))
            print("%3s %4s %6s %6s | %13s %13s | %6s %6s %6s %7s %7s | %7s"
                  " %9s" % ("P", "ckpt", "iters", "colls", "msgs/rank",
                            "bytes/rank", "total", "INIT", "up", "formula",
                            "old", "logged", "ring INIT"))
            print("%3s %4s %6s %6s | %13s %13s | %6s %6s %6s %7s %7s | %7s"
                  " %9s" % ("", "", "", "", "mean   max", "mean    max",
                            "", "", "", "", "", "coll B", ""))
            rows = []
            for p in ranks:
                res = run(mpi, exe, p, args, work, shim)
                bad = check(p, res)
                s = summarize(p, res)
                rows.append(s)
                print("%3d %4d %6d %6d | %6.2f %6.2f %6.1f %6.1f | %6.2f "
                      "%6.2f %6.2f %7.2f %7d | %7.0f %9d" %
                      (p, s["E"], s["iters"], s["colls"], s["msg_mean"],
                       s["msg_max"], s["byte_mean"], s["byte_max"],
                       s["total"], s["inits"], s["ups"], s["formula"],
                       s["old"], s["logged"], s["ring"]))
                sys.stdout.flush()
                for b in bad:
                    failed.append("%s P=%d: %s" % (mpi, p, b))
            print("messages the layer adds per collective call: 0 (each "
                  "rank's count is exactly the tree's START/DONE/ALL/LOGGED "
                  "+ INIT + START up, nothing left over; the layer has no "
                  "code path that sends a control message for a collective)")
            if shim:
                print("counted outside the layer (pmpicount.c, LD_PRELOAD): "
                      "its PMPI sends on its communicator = its control "
                      "messages, on MPI_COMM_WORLD = the program's sends, "
                      "and one PMPI collective per collective of the "
                      "program, on every rank: %s; the layer's own "
                      "collectives on its communicator, per run: %s" %
                      ("no" if [f for f in failed if f.startswith(mpi + " ")
                                and "PMPI" in f] else "yes",
                       ", ".join("%s at P=%d" % (r["own"], r["P"])
                                 for r in rows)))
            if len(rows) >= 2:
                xs = [r["P"] for r in rows]
                print("least-squares fit on log-log, total ~ P^k: k = %.3f "
                      "(measured), %.3f (4(P-1) + ring INITs 2P, no START "
                      "up), %.3f (old design P(P-1)+P-1)" %
                      (slope(xs, [r["total"] for r in rows]),
                       slope(xs, [4 * (r["P"] - 1) + r["ring"] for r in rows]),
                       slope(xs, [r["old"] for r in rows])))
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(shm, ignore_errors=True)
    for f in failed:
        print("growth.py: FAIL: " + f, file=sys.stderr)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
