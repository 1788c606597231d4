#!/usr/bin/env python3
"""Checkpoint size: ccc's images against system-level images of the same
program at the same moment (bench/size).

For every kernel (cg, stencil, zero_freed, fft, particles in C; diffusion
in Fortran: MPI, Open MPI, 2 ranks) it builds the kernel twice, with
ckpt-cc / ckpt-fc and plain (mpicc / mpifort with flang, -DBENCH_PLAIN:
what a system-level checkpointer would checkpoint), runs each, and takes
of rank 0 at the measurement moment (moment.h: step 3):

  ccc first    the first ccc image (full), bytes in the file
  ccc incr     the mean size of the next 3 images (one per step; incremental)
  ccc raw      memory bytes that first image holds before compression
  oracle       the kernel's live bytes: what its author would save by hand
               (raw; oracle_zstd: those bytes, written out by the plain
               build at the moment, through `zstd -1 -T0`)
  core         `gcore` of the process: raw, and after `zstd -1 -T0`
  dirty        what CRIU/DMTCP save: the present pages of the process's
               private writable and shared-memory mappings (from
               /proc/PID/smaps and /proc/PID/pagemap, read through
               /proc/PID/mem): raw, and after `zstd -1 -T0`

Kernels in EXCLUDING (their authors promise scratch with ccc_exclude) run
the ccc build twice: as is (the pass's analysis alone) and with
BENCH_EXCLUDE=1, where they make the promises (the row KERNEL+exclude; a
Fortran kernel from a build with -DBENCH_PROMISES, as the build without
them holds no promise calls at all). It
prints a table, the geometric means of the ratios the targets name (for
the rows as users run them, and for the analysis alone), and
writes size.svg, size.json and size.txt into the output directory.

usage: bench/size/run.py [full|smoke] [--out DIR] [--prefix PREFIX]
                         [--kernels K,K] [--env CCC_VAR=VALUE]...
  full   120 MB of state per rank (default)    smoke  8 MB per rank
Needs root (gcore and /proc/PID/mem of another process) and gdb.
"""
import argparse
import glob
import json
import math
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.join(TOP, "bench", "size")
# Kernel: whether it holds read-only data (the incremental target's set).
KERNELS = {"cg": True, "stencil": True, "zero_freed": False, "fft": True,
           "particles": False, "diffusion": True}
# Kernels that promise scratch with ccc_exclude (moment.h's bench_exclude,
# under BENCH_EXCLUDE=1): measured both ways, the second as the row
# KERNEL+exclude.
EXCLUDING = {"particles", "diffusion"}
AT, INCR = 3, 3
PAGE = os.sysconf("SC_PAGE_SIZE")


def zstd_size(path):
    r = subprocess.run("zstd -1 -T0 -q -c %s | wc -c" % path, shell=True,
                       capture_output=True, text=True, check=True)
    return int(r.stdout)


def dirty_dump(pid, out):
    """Writes the present pages of the private writable and shared-memory
    mappings of pid to out; returns the bytes written."""
    maps = []
    with open("/proc/%d/smaps" % pid) as f:
        cur = None
        for line in f:
            m = re.match(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$",
                         line)
            if m:
                cur = {"lo": int(m.group(1), 16), "hi": int(m.group(2), 16),
                       "perm": m.group(3), "path": m.group(4)}
                maps.append(cur)
            elif cur is not None and ":" in line:
                k, v = line.split(":", 1)
                if v.strip().endswith("kB"):
                    cur[k] = int(v.split()[0]) * 1024
    total = 0
    with open("/proc/%d/pagemap" % pid, "rb") as pm, \
            open("/proc/%d/mem" % pid, "rb") as mem, open(out, "wb") as o:
        for m in maps:
            private_w = m["perm"][1] == "w" and m["perm"][3] == "p"
            shm = m["perm"][3] == "s" and (m["path"].startswith("/dev/shm") or
                                           "(deleted)" in m["path"] or
                                           m["path"] == "")
            if not (private_w or shm) or m.get("Rss", 0) == 0:
                continue
            if m["path"] in ("[vvar]", "[vsyscall]"):
                continue
            pages = (m["hi"] - m["lo"]) // PAGE
            first = m["lo"] // PAGE
            step = 1 << 16
            for base in range(0, pages, step):
                n = min(step, pages - base)
                pm.seek((first + base) * 8)
                ent = struct.unpack("<%dQ" % n, pm.read(8 * n))
                i = 0
                while i < n:
                    if not ent[i] >> 63 & 1:
                        i += 1
                        continue
                    j = i
                    while j < n and ent[j] >> 63 & 1:
                        j += 1
                    addr = (first + base + i) * PAGE
                    try:
                        mem.seek(addr)
                        data = mem.read((j - i) * PAGE)
                    except OSError:
                        data = b""
                    o.write(data)
                    total += len(data)
                    i = j
    return total


def build(k, prefix, work):
    """Builds kernel k plain and with ccc into work; returns the two
    executables and, for a Fortran kernel in EXCLUDING, a third: the ccc
    build with the author's promises (-DBENCH_PROMISES; else None). C
    kernels: mpicc.openmpi -DBENCH_PLAIN against ckpt-cc. Fortran kernels
    (k.f90, preprocessed, with moment_f.c for moment.h): flang-new-19 for
    all builds (ckpt-fc is flang; Open MPI's mpifort would be gfortran,
    another compiler), the plain one through Open MPI's mpifort with
    OMPI_FC, reading the mpi module ccc built for flang (flang cannot read
    gfortran's); --as-needed leaves out gfortran's module libraries, which
    the flang program does not use."""
    bin_ = os.path.join(prefix, "bin")
    plain, cccb = (os.path.join(work, k + s) for s in (".plain", ".ccc"))
    src = os.path.join(HERE, k + ".c")
    if os.path.exists(src):
        subprocess.run(["mpicc.openmpi", "-O2", "-DBENCH_PLAIN", "-I", HERE,
                        "-o", plain, src, "-lm"], check=True)
        subprocess.run([os.path.join(bin_, "ckpt-cc"), "--mpi=openmpi", "-O2",
                        "-I", HERE, "-o", cccb, src, "-lm"], check=True)
        return plain, cccb, None
    src = os.path.join(HERE, k + ".f90")
    helper = os.path.join(HERE, "moment_f.c")
    mods = os.path.join(prefix, "include", "ccc", "fortran", "openmpi")
    po, co = plain + ".moment.o", cccb + ".moment.o"
    subprocess.run(["clang-19", "-O2", "-DBENCH_PLAIN", "-I", HERE, "-c",
                    "-o", po, helper], check=True)
    subprocess.run(["mpifort.openmpi", "-O2", "-cpp", "-DBENCH_PLAIN",
                    "-I" + mods, "-Wl,--as-needed", "-J", work, "-o", plain,
                    src, po], check=True,
                   env=dict(os.environ, OMPI_FC="flang-new-19"))
    subprocess.run([os.path.join(bin_, "ckpt-cc"), "--mpi=openmpi", "-O2",
                    "-I", HERE, "-c", "-o", co, helper], check=True)
    promising = cccb + "+promises" if k in EXCLUDING else None
    for exe, defs in ((cccb, []), (promising, ["-DBENCH_PROMISES"])):
        if exe:
            subprocess.run([os.path.join(bin_, "ckpt-fc"), "--mpi=openmpi",
                            "-O2", "-cpp"] + defs + ["-J", work, "-o", exe,
                                                     src, co], check=True)
    return plain, cccb, promising


def without_fortran(k, prefix):
    """Why Fortran kernel k cannot be built here, or None (C kernels too)."""
    if not os.path.exists(os.path.join(HERE, k + ".f90")):
        return None
    mods = os.path.join(prefix, "include", "ccc", "fortran", "openmpi")
    if not shutil.which("flang-new-19"):
        return "flang-new-19 not found"
    if not os.path.isdir(mods):
        return "%s not found (ccc built without Fortran or Open MPI)" % mods
    return None


def ckpt_raw(ckpt, img):
    out = subprocess.run([ckpt, "info", img], capture_output=True, text=True,
                         check=True).stdout
    raw = 0
    for sec in ("globals", "heap", "stack"):
        m = re.search(r"^%s\s+\S+\s+(\d+)" % sec, out, re.M)
        raw += int(m.group(1)) if m else 0
    return raw


CCC_ENV = {}  # --env: CCC_* settings of the ccc runs


def launch(name, exe, mb, d, moment, exclude=False):
    """Starts the kernel under mpirun -np 2 in d; with moment, the ranks
    stop at step AT until run.py touches go.RANK; with exclude, the kernel
    makes its ccc_exclude promises."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("CCC_") and k != "BENCH_EXCLUDE"}
    # Every image is kept (CCC_KEEP): the first and the next INCR are read.
    # The blocking protocol: every rank's forced site of a step is one
    # checkpoint (under the non-blocking one a site that comes while the
    # previous checkpoint's period is open defers it, and a step would be
    # missing).
    env.update(CCC_DIR=os.path.join(d, "ckpt"), CCC_NAME=name,
               CCC_KEEP=str(AT + INCR + 4), CCC_PROTOCOL="blocking",
               BENCH_AT=str(AT), BENCH_INCR=str(INCR),
               BENCH_EXCLUDE="1" if exclude else "0",
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_orte_tmpdir_base=d,
               # Open MPI's shared memory in a directory of our own (the
               # kill/restart harness deletes new segments in /dev/shm).
               OMPI_MCA_btl_vader_backing_directory=d)
    if moment:
        env["BENCH_SIZE_DIR"] = d
    else:
        env.update(CCC_ENV)
    return subprocess.Popen(["mpirun", "-np", "2", exe, str(mb),
                             str(AT + INCR + 2)],
                            env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def finish(name, job):
    try:
        out, err = job.communicate(timeout=900)
    finally:
        if job.poll() is None:
            os.killpg(job.pid, signal.SIGKILL)
            job.wait()
    if job.returncode != 0 or not out.strip():
        raise RuntimeError("%s failed: %s" % (name, err[-2000:]))
    return out.strip()


def system_images(name, exe, mb, d, codecs):
    """gcore and the dirty pages of rank 0 of the plain build at step AT."""
    os.makedirs(d)
    job = launch(name, exe, mb, d, True)
    try:
        ready = [os.path.join(d, "ready.%d" % r) for r in (0, 1)]
        t0 = time.time()
        while not all(os.path.exists(p) for p in ready):
            if job.poll() is not None:
                raise RuntimeError("%s exited before the moment: %s" %
                                   (name, job.stderr.read()[-2000:]))
            if time.time() - t0 > 900:
                raise RuntimeError("%s did not reach the moment" % name)
            time.sleep(0.05)
        pid, oracle = open(ready[0]).read().split()
        pid = int(pid)
        core = os.path.join(d, "core")
        subprocess.run(["gcore", "-o", core, str(pid)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        core += ".%d" % pid
        dump = os.path.join(d, "dirty")
        dirty = dirty_dump(pid, dump)
        live = os.path.join(d, "live.0")
        res = {"oracle": float(oracle), "core_raw": os.path.getsize(core),
               "core_zstd": zstd_size(core), "dirty_raw": dirty,
               "dirty_zstd": zstd_size(dump), "oracle_zstd": zstd_size(live)}
        if os.path.getsize(live) != res["oracle"]:
            raise RuntimeError("%s: live.0 holds %d bytes, the oracle %d" %
                               (name, os.path.getsize(live), res["oracle"]))
        for f in (core, dump):
            os.unlink(f)
        for r in (0, 1):
            open(os.path.join(d, "go.%d" % r), "w").close()
    except BaseException:
        try:
            os.killpg(job.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        raise
    res["plain_output"] = finish(name, job)
    # The live bytes and the same arrays one step on, through codecs.c.
    r = subprocess.run([codecs, live, live + ".next"], capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise RuntimeError("codecs %s: %s" % (live, r.stderr))
    res["codecs"] = json.loads(r.stdout)
    return res


def ccc_images(name, exe, mb, d, ckpt, exclude=False):
    """Rank 0's images of the ccc build: the first (full, at step AT) and
    the mean of the next INCR (one per step)."""
    os.makedirs(d)
    out = finish(name, launch(name, exe, mb, d, False, exclude))
    img = lambda v: os.path.join(d, "ckpt", "%s.v%06d.r0.ccc" % (name, v))
    return {"ccc_first": os.path.getsize(img(1)),
            "ccc_raw": ckpt_raw(ckpt, img(1)),
            "ccc_incr": sum(os.path.getsize(img(v))
                            for v in range(2, 2 + INCR)) / INCR,
            "output": out}


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def mib(b):
    return b / 1048576


def table(results):
    cols = ["oracle", "oracle_zstd", "ccc_raw", "ccc_first", "ccc_incr",
            "core_raw", "core_zstd", "dirty_raw", "dirty_zstd"]
    lines = ["rank 0, MiB        " + "".join("%12s" % c for c in cols) +
             "  first/sys  incr/first  first/oracle  first/oracle_zstd"]
    for r in results:
        sysz = min(r["core_zstd"], r["dirty_zstd"])
        lines.append("%-18s" % r["kernel"] +
                     "".join("%12.1f" % mib(r[c]) for c in cols) +
                     "  %9.3f  %10.3f  %12.3f  %17.3f" % (
                         r["ccc_first"] / sysz, r["ccc_incr"] / r["ccc_first"],
                         r["ccc_first"] / r["oracle"],
                         r["ccc_first"] / r["oracle_zstd"]))
    # One row per kernel: as a user runs it (with its ccc_exclude promises,
    # where it makes some), or the pass's analysis alone.
    with_promises = [r for r in results
                     if r.get("exclude") or r["kernel"] not in EXCLUDING]
    alone = [r for r in results if not r.get("exclude")]
    for rows, what in ((with_promises, "as run by users (KERNEL+exclude "
                        "where the kernel promises scratch with ccc_exclude)"),
                       (alone, "the pass's analysis alone (no ccc_exclude)")):
        if not rows or (rows is alone and
                         not any(r.get("exclude") for r in results)):
            continue
        ro = [r for r in rows if KERNELS.get(r["base"])]
        lines.append("")
        lines.append("Rows %s:" % what)
        lines.append("  first image / smaller zstd system-level image, "
                     "geomean: %.3f (target <= 0.5)" % geomean(
                         [r["ccc_first"] / min(r["core_zstd"],
                                               r["dirty_zstd"])
                          for r in rows]))
        lines.append("  steady-state incremental / first image, geomean: "
                     "%.3f (target <= 0.2; kernels with read-only data: %s)"
                     % (geomean([r["ccc_incr"] / r["ccc_first"] for r in ro]),
                        ", ".join(r["kernel"] for r in ro) or "none run"))
        lines.append("  first image / live-bytes oracle, worst: %.3f "
                     "(target <= 1.05 + a few KB)" %
                     max(r["ccc_first"] / r["oracle"] for r in rows))
    lines.append("")
    lines.append("The live bytes alone through zstd -1 (oracle_zstd) / smaller "
                 "zstd system-level image, geomean: %.3f (what first/sys "
                 "would be if an image held exactly the live bytes, "
                 "compressed as the system-level images are)" % geomean(
                     [r["oracle_zstd"] / min(r["core_zstd"], r["dirty_zstd"])
                      for r in results if not r.get("exclude")]))
    return "\n".join(lines)


def codec_table(results):
    """The live bytes through each lossless coding of codecs.c, and the
    changed blocks one step on (what incremental images hold), per kernel;
    ratios against the smaller zstd system-level image and the first
    image."""
    names = ["zstd1", "zstd3", "zstd9", "shuffle8_zstd3", "records_zstd3",
             "xor8_shuffle8", "diff8_shuffle8", "diff4_zstd3", "per_block",
             "fpzip", "best"]
    lines = ["live bytes, MiB    " + "".join("%15s" % n for n in names) +
             "  best/sys",
             ]
    rows = [r for r in results if not r.get("exclude")]
    for r in rows:
        c = r["codecs"]
        sysz = min(r["core_zstd"], r["dirty_zstd"])
        lines.append("%-18s" % r["kernel"] +
                     "".join("%15.1f" % mib(c[n]) for n in names) +
                     "  %8.3f" % (c["best"] / sysz))
    lines.append("")
    lines.append("smallest coding of the live bytes / smaller zstd "
                 "system-level image, geomean: %.3f (first/sys of an image "
                 "holding exactly the live bytes, coded by the best of these "
                 "candidates)" % geomean(
                     [r["codecs"]["best"] /
                      min(r["core_zstd"], r["dirty_zstd"]) for r in rows]))
    lines.append("")
    lines.append("one step on, MiB   %15s%15s%15s%15s  xor/zstd3" %
                 ("changed_raw", "changed_zstd3", "changed_xor", "zstd3_all"))
    for r in rows:
        c = r["codecs"]
        lines.append("%-18s%15.1f%15.1f%15.1f%15.1f  %9.3f" % (
            r["kernel"], mib(c["changed_raw"]), mib(c["changed_zstd3"]),
            mib(c["changed_xor_prev"]), mib(c["zstd3"]),
            c["changed_xor_prev"] / max(1, c["changed_zstd3"])))
    ro = [r for r in rows if KERNELS.get(r["base"])]
    if ro:
        lines.append("")
        lines.append("changed blocks (best of zstd -3, shuffled) / all live "
                     "bytes (zstd -3), geomean over the kernels with "
                     "read-only data: %.3f; with the XOR against the previous "
                     "step: %.3f (incr/first of images holding exactly the live "
                     "bytes)" % (
                         geomean([max(1, r["codecs"]["changed_zstd3"]) /
                                  r["codecs"]["zstd3"] for r in ro]),
                         geomean([max(1, r["codecs"]["changed_xor_prev"]) /
                                  r["codecs"]["zstd3"] for r in ro])))
        lines.append("changed blocks coded per block / all live bytes coded "
                     "per block (as ccc's codec 5 at best), geomean over the "
                     "same kernels: %.3f" % geomean(
                         [max(1, r["codecs"]["changed_per_block"]) /
                          r["codecs"]["per_block"] for r in ro]))
    return "\n".join(lines)


def svg(results, path):
    series = [("oracle", "live bytes (oracle)", "#4c72b0"),
              ("oracle_zstd", "live bytes + zstd -1", "#8172b2"),
              ("ccc_first", "ccc first image", "#55a868"),
              ("ccc_incr", "ccc incremental", "#8fd19e"),
              ("core_zstd", "gcore + zstd -1", "#c44e52"),
              ("dirty_zstd", "dirty pages + zstd -1", "#dd8452")]
    H, L, B = 360, 60, 50
    W = max(L + 20 + 6 * 150, L + 20 + 120 * len(results))
    top = max(max(r[k] for k, _, _ in series) for r in results) / 1048576
    top = max(1, 10 ** math.ceil(math.log10(top)))
    lo = 0.1
    def y(v):
        v = max(v, lo)
        return B + (H - 2 * B) * (1 - math.log10(v / lo) / math.log10(top / lo))
    gw = (W - L - 20) / len(results)
    bw = gw * 0.8 / len(series)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (W, H + 40),
           '<text x="%d" y="20" font-size="14">Checkpoint size per rank, '
           'MiB (log scale)</text>' % L]
    v = lo
    while v <= top * 1.0001:
        out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>'
                   '<text x="%d" y="%.1f" text-anchor="end">%g</text>' %
                   (L, W - 20, y(v), y(v), L - 4, y(v) + 4, v))
        v *= 10
    for i, r in enumerate(results):
        x0 = L + i * gw + gw * 0.1
        for j, (k, _, c) in enumerate(series):
            yy = y(mib(r[k]))
            out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" '
                       'fill="%s"/>' % (x0 + j * bw, yy, bw - 1,
                                        H - B - yy, c))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' %
                   (L + i * gw + gw / 2, H - B + 16, r["kernel"]))
    for j, (_, label, c) in enumerate(series):
        out.append('<rect x="%d" y="%d" width="12" height="12" fill="%s"/>'
                   '<text x="%d" y="%d">%s</text>' %
                   (L + j * 150, H + 10, c, L + j * 150 + 16, H + 21, label))
    out.append("</svg>")
    open(path, "w").write("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", nargs="?", default="full",
                    choices=["full", "smoke"])
    ap.add_argument("--out", default="bench-size-results")
    ap.add_argument("--prefix", default=os.path.join(TOP, "build", "install"))
    ap.add_argument("--kernels")
    ap.add_argument("--env", action="append", default=[],
                    help="VAR=VALUE for the ccc runs (e.g. CCC_SHUFFLE=never)")
    a = ap.parse_args()
    CCC_ENV.update(e.split("=", 1) for e in a.env)
    mb = 120 if a.mode == "full" else 8
    cc = os.path.join(a.prefix, "bin", "ckpt-cc")
    ckpt = os.path.join(a.prefix, "bin", "ckpt")
    if not os.access(cc, os.X_OK):
        sys.exit("%s: %s not found (run scripts/build.sh)" % (sys.argv[0], cc))
    for tool in ("gcore", "zstd", "mpirun"):
        if not shutil.which(tool):
            sys.exit("%s: %s not found (scripts/install-deps.sh installs it)"
                     % (sys.argv[0], tool))
    work = tempfile.mkdtemp(prefix="ccc-size-")
    results = []
    try:
        codecs = os.path.join(work, "codecs")
        subprocess.run(["clang-19", "-O2", "-o", codecs,
                        os.path.join(HERE, "codecs.c"), "-lzstd", "-lfpzip"],
                       check=True)
        for k in (a.kernels or ",".join(KERNELS)).split(","):
            why = without_fortran(k, a.prefix)
            if why and a.kernels:
                sys.exit("%s: %s: %s" % (sys.argv[0], k, why))
            if why:  # the default set: the C kernels still run
                print("%-12s skipped: %s" % (k, why), flush=True)
                continue
            plain, cccb, promising = build(k, a.prefix, work)
            sysimg = system_images(k, plain, mb, os.path.join(work, k + "-sys"),
                                   codecs)
            for exclude in (False, True) if k in EXCLUDING else (False,):
                name = k + "+exclude" if exclude else k
                r = {"kernel": name, "base": k, "exclude": exclude}
                r.update(sysimg)
                exe = promising if exclude and promising else cccb
                r.update(ccc_images(k, exe, mb,
                                    os.path.join(work, name + "-ccc"), ckpt,
                                    exclude))
                if r["output"] != r["plain_output"]:
                    raise RuntimeError("%s: ccc build printed %r, plain %r" %
                                       (name, r["output"], r["plain_output"]))
                print("%-18s %s" % (name, r["output"]), flush=True)
                results.append(r)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    os.makedirs(a.out, exist_ok=True)
    t = table(results) + "\n\n" + codec_table(results)
    print()
    print("bench/size, %s mode (%d MB of state per rank), %s%s" %
          (a.mode, mb, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "".join(", " + e for e in a.env)))
    print(t)
    open(os.path.join(a.out, "size.txt"), "w").write(t + "\n")
    json.dump(results, open(os.path.join(a.out, "size.json"), "w"), indent=1)
    svg(results, os.path.join(a.out, "size.svg"))
    print("\nwritten: %s/size.{txt,json,svg}" % a.out)


if __name__ == "__main__":
    main()
