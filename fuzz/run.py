#!/usr/bin/env python3
"""Builds and runs the reader fuzzers (image_fuzzer, store_fuzzer,
log_fuzzer).

usage: run.py [--runs N] [--image-runs N] [--seconds S] [--build DIR]
              [--prefix DIR] [--install-from BUILD] [--only NAME]

Builds the fuzzers with the first clang that links -fsanitize=fuzzer
(CCC_FUZZ_CXX, then clang++-19, clang++, clang++-22, clang++-14; address
and undefined behaviour sanitizers too) into DIR (default fuzz/build),
makes the seed corpus (make_corpus.py, plus the inputs of fuzz/regress/
that once crashed, with ckpt-cc of --prefix, of an
install of --install-from, or of $CCC_PREFIX; message logs from
logfile.py), runs each fuzzer for N
executions (default 20000; image_fuzzer --image-runs if given) or S seconds and reports executions, exec/s,
coverage (edges, features), corpus size and any crash, leak, timeout or
out-of-memory. Exit status 0 if none, 1 if one, 77 (skipped) if no
compiler here can build a libFuzzer target.
"""
import argparse, os, re, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SKIP = 77
COMMON = ["rt/image/Image.cpp", "rt/common/Hash.cpp", "rt/store/Incremental.cpp",
          "rt/store/MessageLog.cpp", "rt/store/RankPruning.cpp", "rt/store/Store.cpp",
          "tools/ckpt.cpp", "tools/RunCommand.cpp", "tools/RunHosts.cpp",
          "tools/RunOptions.cpp", "tools/RunProcesses.cpp",
          "tools/SlurmHosts.cpp", "fuzz/FuzzCommon.cpp"]
FUZZERS = {"image": ["fuzz/ImageModel.cpp", "fuzz/image_fuzzer.cpp"],
           "store": ["fuzz/store_fuzzer.cpp"],
           "log": ["fuzz/log_fuzzer.cpp"]}
SAN = "-fsanitize=address,undefined"


def compiler():
    cands = [os.environ.get("CCC_FUZZ_CXX"), "clang++-19", "clang++",
             "clang++-22", "clang++-14"]
    with tempfile.TemporaryDirectory() as t:
        src = os.path.join(t, "t.cpp")
        open(src, "w").write('#include <cstdint>\n#include <cstddef>\n'
                             'extern "C" int LLVMFuzzerTestOneInput('
                             'const uint8_t *, size_t) { return 0; }\n')
        for c in cands:
            if c and shutil.which(c) and subprocess.run(
                    [c, "-fsanitize=fuzzer," + SAN[11:], src, "-o",
                     os.path.join(t, "t")], stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL).returncode == 0:
                return c
    return None


def build(cxx, out):
    os.makedirs(out, exist_ok=True)
    flags = ["-std=c++17", "-O1", "-g", "-fno-omit-frame-pointer",
             "-fsanitize=fuzzer-no-link", SAN, "-fno-sanitize-recover=all",
             "-fsanitize-coverage-ignorelist=" +
             os.path.join(HERE, "coverage-ignore.txt"),
             "-I" + ROOT, "-I" + os.path.join(ROOT, "include"),
             "-I" + os.path.join(ROOT, "tools")]
    objs, procs = {}, []
    for src in sorted(set(COMMON + sum(FUZZERS.values(), []))):
        s = os.path.join(ROOT, src)
        o = os.path.join(out, src.replace("/", "_") + ".o")
        objs[src] = o
        deps = [s, os.path.join(HERE, "coverage-ignore.txt")] + [os.path.join(w, f) for d in ("rt", "fuzz", "tools")
                      for w, _, fs in os.walk(os.path.join(ROOT, d)) for f in fs if f.endswith(".h")]
        if os.path.exists(o) and os.path.getmtime(o) >= max(map(os.path.getmtime, deps)):
            continue
        extra = ["-Dmain=ckpt_main"] if src == "tools/ckpt.cpp" else []
        procs.append(subprocess.Popen([cxx, *flags, *extra, "-c", s, "-o", o]))
        if len(procs) >= 2:  # two cores, shared
            if procs.pop(0).wait():
                sys.exit("run.py: compile failed")
    if any(p.wait() for p in procs):
        sys.exit("run.py: compile failed")
    for name, srcs in FUZZERS.items():
        exe = os.path.join(out, name + "_fuzzer")
        ins = [objs[s] for s in COMMON + srcs]
        if not os.path.exists(exe) or os.path.getmtime(exe) < max(map(os.path.getmtime, ins)):
            subprocess.run([cxx, "-fsanitize=fuzzer", SAN, *ins, "-lzstd",
                            "-o", exe], check=True)


def log_seeds(out):
    """Message logs need no program to make: written here (logfile.py)."""
    d = os.path.join(out, "log")
    os.makedirs(d, exist_ok=True)
    sys.path.insert(0, HERE)
    import logfile
    for name, data in logfile.seeds().items():
        with open(os.path.join(d, name + ".log"), "wb") as f:
            f.write(data)


def corpus(args, out):
    log_seeds(out)
    if os.path.isdir(os.path.join(out, "image")):
        return True
    prefix = args.prefix or os.environ.get("CCC_PREFIX")
    tmp = None
    if not prefix and args.install_from:
        tmp = tempfile.mkdtemp(prefix="ccc-fuzz-prefix-")
        if subprocess.run(["cmake", "--install", args.install_from,
                           "--prefix", tmp], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0:
            prefix = tmp
    if not prefix:
        print("run.py: no ckpt-cc (--prefix, --install-from, CCC_PREFIX): "
              "fuzzing without seeds")
        os.makedirs(os.path.join(out, "image"), exist_ok=True)
        os.makedirs(os.path.join(out, "store"), exist_ok=True)
        return False
    try:
        subprocess.run([sys.executable, os.path.join(HERE, "make_corpus.py"),
                        out, "--ckpt-cc", os.path.join(prefix, "bin", "ckpt-cc")],
                       check=True)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    return True


def fuzz(exe, seeds, work, args):
    live = os.path.join(work, os.path.basename(exe) + ".corpus")
    shutil.rmtree(live, ignore_errors=True)
    os.makedirs(live)
    arts = os.path.join(work, "artifacts") + "/"
    os.makedirs(arts, exist_ok=True)
    regress = os.path.join(HERE, "regress", os.path.basename(seeds))
    extra = [regress] if os.path.isdir(regress) else []
    # One process (what -jobs=1 asks for, minus the log file in the cwd).
    cmd = [exe, live, seeds, *extra, "-close_fd_mask=3",
           "-max_len=262144", "-timeout=10", "-rss_limit_mb=2048",
           "-malloc_limit_mb=1024", "-print_final_stats=1",
           "-artifact_prefix=" + arts, "-seed=%d" % args.seed]
    runs = args.runs
    if args.image_runs and "image" in exe:
        runs = args.image_runs
    cmd.append("-max_total_time=%d" % args.seconds if args.seconds
               else "-runs=%d" % runs)
    t0 = time.time()
    # Its scratch directory, removed even when a crash skipped its atexit.
    tmp = tempfile.mkdtemp(prefix="ccc-fuzz-run-", dir="/dev/shm"
                           if os.access("/dev/shm", os.W_OK) else None)
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, errors="replace", cwd=work,
                           env=dict(os.environ, CCC_FUZZ_TMP=tmp))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    secs = time.time() - t0
    out = p.stdout
    log = os.path.join(work, os.path.basename(exe) + ".log")
    open(log, "w").write(out)
    st = dict(re.findall(r"stat::(\w+):\s+(\d+)", out))
    cov = re.findall(r"cov: (\d+) ft: (\d+) corp: (\d+)/(\S+)", out)
    bad = re.findall(r"ERROR: (?:AddressSanitizer|LeakSanitizer|libFuzzer)"
                     r"[^\n]*|runtime error:[^\n]*|SUMMARY: [^\n]*", out)
    crash = [l for l in out.splitlines() if "Test unit written to" in l]
    r = {"name": os.path.basename(exe), "execs": int(st.get("number_of_executed_units", 0)),
         "exec_s": int(st.get("average_exec_per_sec", 0)), "secs": secs,
         "rss_mb": int(st.get("peak_rss_mb", 0)), "status": p.returncode,
         "cov": cov[-1] if cov else ("0", "0", "0", "0"), "bad": bad,
         "crash": crash, "log": log}
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20000)
    ap.add_argument("--image-runs", type=int, default=0)
    ap.add_argument("--seconds", type=int, default=0)
    ap.add_argument("--build", default=os.path.join(HERE, "build"))
    ap.add_argument("--prefix")
    ap.add_argument("--install-from")
    ap.add_argument("--only", choices=sorted(FUZZERS))
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    args.build = os.path.abspath(args.build)  # the fuzzers run in it
    cxx = compiler()
    if not cxx:
        print("run.py: no clang here links -fsanitize=fuzzer: skipped")
        return SKIP
    t0 = time.time()
    build(cxx, args.build)
    print("built with %s in %.0f s" % (cxx, time.time() - t0))
    seeds = os.path.join(args.build, "corpus")
    corpus(args, seeds)
    failed = False
    for name in FUZZERS:
        if args.only and name != args.only:
            continue
        r = fuzz(os.path.join(args.build, name + "_fuzzer"),
                 os.path.join(seeds, name), args.build, args)
        edges, ft, units, size = r["cov"]
        print("%-14s %9d execs %6d exec/s %5.0f s  cov %s ft %s  corpus %s "
              "units/%s  rss %d MB  exit %d" %
              (r["name"], r["execs"], r["exec_s"], r["secs"], edges, ft, units,
               size, r["rss_mb"], r["status"]))
        if r["status"] != 0 or r["bad"] or r["crash"]:
            failed = True
            for l in r["bad"] + r["crash"]:
                print("  " + l)
            for l in r["crash"]:  # the fuzzer run with stderr closed
                print("  stack: %s %s" % (os.path.join(args.build, name +
                                                        "_fuzzer"),
                                           l.split("written to ")[-1]))
            print("  log: " + r["log"])
    print("FAILED" if failed else "no crash, leak, timeout or out-of-memory")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
