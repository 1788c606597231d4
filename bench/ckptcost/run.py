#!/usr/bin/env python3
"""Checkpoint and restart cost against the cost of the bytes (bench/ckptcost).

state.c holds N MiB of state (3/4 smooth doubles, 1/4 integers). Per round,
in one directory (the same file system for everything):
  checkpoint   one forced ccc checkpoint, timed inside the program (from the
               call to its return: image written, fsync'd, committed)
  zstd -1 -T0  of the state's raw bytes (written by the program beforehand,
               so in the page cache) into that directory, then `sync` of
               the output: the physical baseline
  cp           of the same raw bytes, then `sync`
  restart      the whole run of the program restarting from that image and
               exiting as soon as the site returns (process start, re-exec,
               reading, decompressing, restoring)
  zstd -d      of the baseline's output to /dev/null
Prints medians and minima over the rounds and the ratios ccc/baseline of
the medians. Targets (issue 6): checkpoint <= 1.2x zstd, restart <= 1.3x
zstd -d.

Then CCC_ASYNC (issue 44), in the same run on the same state: `state MB
steps K` takes K forced checkpoints, each followed by steps (a pass
rewriting every double, so every image is a full one) until its commit
record exists and 3 more; once synchronously, once with CCC_ASYNC=1.
Reported: the synchronous checkpoint, the asynchronous stall (the time the
program waited at its site: the staging copy, plus any wait for the
previous write) of checkpoints 2..K (the first also pays the staging
buffer's first page faults: shown apart), and the step time while a
background write runs ("busy") against the step time with none.
Last, fork() as the snapshot (`state MB forks K`): the time fork() takes
and the parent's first step after it (which copies every page it writes)
while the child lives, against a step with no child.

usage: bench/ckptcost/run.py [full|smoke] [--mb N] [--rounds R]
       [--checkpoints K] [--prefix PREFIX] [--env CCC_VAR=VALUE]...
  full  256 MiB, 5 rounds, K = 5 (default)    smoke  16 MiB, 1 round, K = 2
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def timed(cmd, **kw):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, **kw)
    return time.perf_counter() - t


def steps(exe, mb, nckpt, env, d):
    """Stalls and step times ("busy", "idle") of `state MB steps K`."""
    os.makedirs(d)
    e = dict(env, CCC_DIR=d, CCC_NAME="state", CCC_RESTART="never")
    out = subprocess.run([exe, str(mb), "steps", str(nckpt)], env=e,
                         check=True, capture_output=True, text=True).stdout
    shutil.rmtree(d)
    r = {"stall": [], "busy": [], "idle": []}
    for line in out.splitlines():
        w = line.split()
        if w[0] == "stall":
            r["stall"].append(float(w[2]))
        elif w[0] == "step":
            r[w[1]].append(float(w[2]))
    return r


def asynchronous(exe, mb, nckpt, env, work):
    sync = steps(exe, mb, nckpt, dict(env, CCC_ASYNC="0"),
                 os.path.join(work, "sync"))
    asy = steps(exe, mb, nckpt, dict(env, CCC_ASYNC="1"),
                os.path.join(work, "async"))
    later = lambda v: v[1:] if len(v) > 1 else v
    s, st = statistics.median(later(sync["stall"])), later(asy["stall"])
    print("CCC_ASYNC=1, %d checkpoints each way, every image full:" % nckpt)
    print("%-26s %10s %10s" % ("seconds", "median", "max"))
    print("%-26s %10.3f %10.3f" % ("checkpoint (synchronous)", s,
                                   max(later(sync["stall"]))))
    print("%-26s %10.3f %10.3f" % ("stall (asynchronous)",
                                   statistics.median(st), max(st)))
    print("%-26s %10.3f" % ("first stall (asynchronous)", asy["stall"][0]))
    idle = statistics.median(sync["idle"] + asy["idle"])
    busy = statistics.median(asy["busy"]) if asy["busy"] else float("nan")
    print("%-26s %10.4f %10s" % ("step, no write running", idle,
                                 "(%d)" % len(sync["idle"] + asy["idle"])))
    print("%-26s %10.4f %10s" % ("step, background write", busy,
                                 "(%d)" % len(asy["busy"])))
    print("stall / synchronous checkpoint: %.2f (target <= 0.1); "
          "step during a write / without: %.2f" %
          (statistics.median(st) / s, busy / idle))


def forks(exe, mb, nckpt, env):
    out = subprocess.run([exe, str(mb), "forks", str(nckpt)],
                         env=dict(env, CCC_RESTART="never"), check=True,
                         capture_output=True, text=True).stdout
    r = {"fork": [], "cow": [], "busy": [], "idle": []}
    for line in out.splitlines():
        w = line.split()
        if w[0] == "fork":
            r["fork"].append(float(w[2]))
        elif w[0] == "step":
            r[w[1]].append(float(w[2]))
    med = {k: statistics.median(v) if v else float("nan")
           for k, v in r.items()}
    print("fork() as the snapshot, %d times: fork %.4f s; parent's step: "
          "first after fork %.4f s, later while the child lives %.4f s, "
          "none %.4f s" % (nckpt, med["fork"], med["cow"], med["busy"],
                           med["idle"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", nargs="?", default="full", choices=["full", "smoke"])
    ap.add_argument("--mb", type=float)
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--checkpoints", type=int)
    ap.add_argument("--prefix", default=os.path.join(TOP, "build", "install"))
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--dir", default=None,
                    help="where images and files go (default: a temporary "
                         "directory under /tmp)")
    a = ap.parse_args()
    mb = a.mb or (256 if a.mode == "full" else 16)
    rounds = a.rounds or (5 if a.mode == "full" else 1)
    nckpt = a.checkpoints or (5 if a.mode == "full" else 2)
    cc = os.path.join(a.prefix, "bin", "ckpt-cc")
    if not os.access(cc, os.X_OK):
        sys.exit("%s: %s not found (run scripts/build.sh)" % (sys.argv[0], cc))
    work = tempfile.mkdtemp(prefix="ccc-cost-", dir=a.dir)
    try:
        exe = os.path.join(work, "state")
        subprocess.run([cc, "-O2", "-o", exe,
                        os.path.join(TOP, "bench", "ckptcost", "state.c"),
                        "-lm"], check=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith("CCC_")}
        env.update(e.split("=", 1) for e in a.env)
        raw = os.path.join(work, "raw")
        subprocess.run([exe, str(mb), "dump", raw], check=True,
                       env=dict(env, CCC_DISABLE="1"))
        res = {k: [] for k in ("ckpt", "zstd", "cp", "restart", "unzstd")}
        size = {}
        for r in range(rounds):
            d = os.path.join(work, "r%d" % r)
            os.makedirs(d)
            e = dict(env, CCC_DIR=d, CCC_NAME="state", CCC_RESTART="never")
            out = subprocess.run([exe, str(mb), "ckpt"], env=e, check=True,
                                 capture_output=True, text=True).stdout
            res["ckpt"].append(float(out.split()[1]))
            img = os.path.join(d, "state.v000001.r0.ccc")
            size["ccc"] = os.path.getsize(img)
            z = os.path.join(d, "raw.zst")
            res["zstd"].append(timed(
                "zstd -1 -T0 -q -f %s -o %s && sync %s" % (raw, z, z),
                shell=True))
            size["zstd"] = os.path.getsize(z)
            c = os.path.join(d, "raw.copy")
            res["cp"].append(timed("cp %s %s && sync %s" % (raw, c, c),
                                   shell=True))
            os.unlink(c)
            e["CCC_RESTART"] = "require"
            res["restart"].append(timed([exe, str(mb), "ckpt"], env=e,
                                        stdout=subprocess.DEVNULL))
            res["unzstd"].append(timed("zstd -d -T0 -q -c %s > /dev/null" % z,
                                       shell=True))
            shutil.rmtree(d)
        med = {k: statistics.median(v) for k, v in res.items()}
        low = {k: min(v) for k, v in res.items()}
        print("bench/ckptcost, %g MiB of state, %d rounds, %s%s" %
              (mb, rounds, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
               "".join(", " + e for e in a.env)))
        print("bytes: raw %d, ccc image %d, zstd -1 %d" %
              (os.path.getsize(raw), size["ccc"], size["zstd"]))
        print("%-12s %10s %10s" % ("seconds", "median", "min"))
        for k, name in (("ckpt", "checkpoint"), ("zstd", "zstd -1 -T0"),
                        ("cp", "cp"), ("restart", "restart"),
                        ("unzstd", "zstd -d")):
            print("%-12s %10.3f %10.3f" % (name, med[k], low[k]))
        print("checkpoint / zstd -1 -T0: %.2f (target <= 1.2); / cp: %.2f" %
              (med["ckpt"] / med["zstd"], med["ckpt"] / med["cp"]))
        print("restart / zstd -d: %.2f (target <= 1.3)" %
              (med["restart"] / med["unzstd"]))
        asynchronous(exe, mb, nckpt, env, work)
        forks(exe, mb, nckpt, env)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
