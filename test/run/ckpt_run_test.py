#!/usr/bin/env python3
"""Runs a job under `ckpt run` and checks it ends as an uninterrupted run.

  ckpt_run_test.py --mode MODE --ckpt CKPT --ref "REF COMMAND" -- COMMAND...

The reference command (the program built without ccc) runs first in ref/;
then COMMAND runs under `ckpt run --stdout stdout` in run/, checkpointing
every 0.25 s, and:
  random   5 random injected failures (kills at random times, kills during
           an image write, kills before a commit record), --hang-timeout
           20: it must finish with status 0 after at least 5 injected
           failures;
  sigterm  SIGTERM to `ckpt run` after the first commit: every rank
           checkpoints and the job stops with status 75; the same command
           again finishes from there;
  hang     one rank is stopped with SIGSTOP after the first commit: the
           missing heartbeat is noticed, the job is killed and relaunched.
In every mode the captured standard output and every file the program
wrote must be byte-identical to the reference run's.
"""
import argparse
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time


def fail(msg, log=None):
    print("FAIL: " + msg)
    if log:
        print("---- ckpt run's standard error ----")
        print(log[-6000:])
    sys.exit(1)


def wait_for_commit(events, proc, timeout=90):
    end = time.time() + timeout
    while time.time() < end:
        if proc.poll() is not None:
            return False
        try:
            with open(events) as f:
                if any(" commit " in line for line in f):
                    return True
        except FileNotFoundError:
            pass
        time.sleep(0.05)
    return False


def compare(ref, run, log):
    for name in sorted(os.listdir(ref)):
        a, b = os.path.join(ref, name), os.path.join(run, name)
        if not os.path.isfile(a):
            continue
        if not os.path.exists(b):
            fail("%s was not written under ckpt run" % name, log)
        with open(a, "rb") as fa, open(b, "rb") as fb:
            da, db = fa.read(), fb.read()
        if da != db:
            i = next((k for k in range(min(len(da), len(db)))
                      if da[k] != db[k]), min(len(da), len(db)))
            fail("%s differs from the uninterrupted run's at byte %d (%d vs "
                 "%d bytes)" % (name, i, len(da), len(db)), log)
    extra = [n for n in os.listdir(run)
             if n not in os.listdir(ref) and n != "ccc-ckpt"]
    if extra:
        fail("files only under ckpt run: %s" % extra, log)


def descendants(pid):
    """The processes below pid, parents first (from /proc)."""
    children = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        p = todo.pop(0)
        for c in sorted(children.get(p, [])):
            out.append(c)
            todo.append(c)
    return out


def kill_tree(pid):
    for p in [pid] + descendants(pid):
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass


def carrying(entry):
    """The processes whose environment holds entry (NAME=VALUE)."""
    out = []
    for d in os.listdir("/proc"):
        try:
            with open("/proc/%s/environ" % d, "rb") as f:
                if entry.encode() in f.read().split(b"\0"):
                    out.append(int(d))
        except (OSError, ValueError):
            continue
    return out


def snapshot(pid, run):
    """What a hung job was doing: its processes (those under ckpt run and
    any other that carries its run directory), the last events, and each
    process's stacks (gdb), for the failure report."""
    lines = ["---- processes of the job ----"]
    rundir = os.path.realpath(os.path.join(run, "ccc-ckpt", "run"))
    procs = descendants(pid)
    procs += [p for p in carrying("CCC_RUN_DIR=" + rundir)
              if p not in procs and p != pid]
    if procs:
        lines.append(subprocess.run(
            ["ps", "-o", "pid,ppid,stat,wchan:24,etime,args", "-p",
             ",".join(map(str, [pid] + procs))],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            universal_newlines=True).stdout)
    events = os.path.join(run, "ccc-ckpt", "run", "events")
    if os.path.exists(events):
        with open(events, errors="replace") as f:
            lines.append("---- last events ----")
            lines.extend(f.read().splitlines()[-25:])
    gdb = shutil.which("gdb")
    for p in procs:
        try:
            exe = os.path.basename(os.readlink("/proc/%d/exe" % p))
        except OSError:
            continue
        if not gdb or exe.startswith(("mpirun", "orte", "prted", "hydra",
                                      "mpiexec", "python")):
            continue
        r = subprocess.run([gdb, "-p", str(p), "-batch", "-nx", "-ex",
                            "thread apply all bt 12"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           universal_newlines=True, timeout=60)
        lines.append("---- stacks of %d (%s) ----" % (p, exe))
        lines.extend(l for l in r.stdout.splitlines()
                     if l.startswith(("#", "Thread")))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=["random", "sigterm", "hang"],
                    required=True)
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--hooks", action="store_true",
                    help="the program reports its hook counts last on "
                         "stderr: each must have run")
    ap.add_argument("--ref", required=True)
    ap.add_argument("--seed", type=int,
                    default=int(os.environ.get("CKPT_RUN_SEED", "0")) or
                    int.from_bytes(os.urandom(3), "little"))
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    started = time.time()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd

    top = tempfile.mkdtemp(prefix="ckpt_run_%s_" % a.mode, dir=os.getcwd())
    ref, run = os.path.join(top, "ref"), os.path.join(top, "run")
    os.makedirs(ref)
    os.makedirs(run)
    # Standard error goes to a file, not a pipe: a rank left behind would
    # hold a pipe open and make the wait endless.
    referr = os.path.join(top, "ref.err")
    with open(os.path.join(ref, "stdout"), "wb") as out, \
            open(referr, "wb") as err:
        r = subprocess.run(shlex.split(a.ref), cwd=ref, stdout=out,
                           stderr=err, timeout=120)
    if r.returncode != 0:
        with open(referr, errors="replace") as f:
            fail("the reference run failed: %s" % f.read()[-2000:])

    env = dict(os.environ, CCC_INTERVAL="0.25")
    base = [a.ckpt, "run", "--stdout", "stdout", "--backoff", "0.1",
            "--retries", "12"]
    errpath = os.path.join(top, "ckpt_run.err")
    events = os.path.join(run, "ccc-ckpt", "run", "events")

    def start(extra):
        err = open(errpath, "ab")
        return subprocess.Popen(base + extra + ["--"] + cmd, cwd=run,
                                env=env, stdout=err, stderr=err)

    def log():
        with open(errpath, errors="replace") as f:
            return f.read()

    def finish(p):
        # Ends before ctest's limit (300 s), so that a job that hangs is
        # reported with what each of its processes was doing.
        left = started + 270 - time.time()
        try:
            return p.wait(timeout=max(left, 1))
        except subprocess.TimeoutExpired:
            report = snapshot(p.pid, run)
            p.send_signal(signal.SIGINT)
            p.send_signal(signal.SIGINT)
            try:
                p.wait(timeout=10)
                ended = "it ended after SIGINT twice"
            except subprocess.TimeoutExpired:
                ended = "it did not end after SIGINT twice: killed"
                kill_tree(p.pid)
                p.wait()
            fail("ckpt run did not end within %.0f s (%s)\n%s"
                 % (time.time() - started, ended, report), log())

    if a.mode == "random":
        print("seed %d (CKPT_RUN_SEED=%d repeats the faults)" % (a.seed,
                                                                   a.seed))
        # A short mean time between faults: the faults are over long before
        # the job could finish (it runs about 5 s uninterrupted).
        # --hang-timeout as users should run: Open MPI 4.1.4's mpirun can
        # deadlock in its own finalization after a rank dies (seen here:
        # orte_finalize -> PMIx_server_finalize waiting on a mutex, every
        # rank gone, mpirun alive for 10 minutes). The dead ranks' heartbeats
        # stop, and ckpt run kills the job and launches it again.
        p = start(["--inject", "random:mtbf=0.3,count=5,seed=%d" % a.seed,
                   "--hang-timeout", "20"])
        rc = finish(p)
        text = log()
        if rc != 0:
            fail("ckpt run exited with %d" % rc, text)
        m = re.search(r"finished after (\d+) attempts?: (\d+) failures? "
                      r"\((\d+) injected", text)
        if not m or int(m.group(3)) < 5:
            fail("fewer than 5 injected failures", text)
        for what in ("killed while writing", "killed before writing a commit",
                     "injected: SIGKILL"):
            if what not in text:
                fail("no injected fault of the kind '%s'" % what, text)
        print(m.group(0))
    elif a.mode == "sigterm":
        p = start([])
        if not wait_for_commit(events, p):
            fail("no checkpoint was committed", log())
        time.sleep(0.3)
        p.send_signal(signal.SIGTERM)
        rc = finish(p)
        if rc != 75:
            fail("ckpt run exited with %d after SIGTERM, not 75" % rc, log())
        with open(events) as f:
            stopped = [l for l in f if " stopped " in l]
        if not stopped:
            fail("no process reported that it stopped", log())
        final = open(os.path.join(ref, "stdout"), "rb").read().splitlines()[-1]
        if final in open(os.path.join(run, "stdout"), "rb").read():
            fail("the job had finished before SIGTERM: nothing was tested",
                 log())
        p = start([])
        rc = finish(p)
        if rc != 0:
            fail("the second run exited with %d" % rc, log())
        with open(events) as f:
            if not any(" restart " in l for l in f):
                fail("the second run started afresh instead of restarting",
                     log())
        print("stopped at %s; continued to the end" % stopped[0].split()[3])
    else:
        p = start(["--hang-timeout", "4"])
        if not wait_for_commit(events, p):
            fail("no checkpoint was committed", log())
        rundir = os.path.dirname(events)
        ranks = sorted(n for n in os.listdir(rundir) if n.startswith("rank."))
        with open(os.path.join(rundir, ranks[-1])) as f:
            pid = int(f.read().split()[0])
        os.kill(pid, signal.SIGSTOP)
        t0 = time.time()
        rc = finish(p)
        text = log()
        if rc != 0:
            fail("ckpt run exited with %d" % rc, text)
        if "reached no checkpoint site" not in text:
            fail("the hang was not reported", text)
        print("%s stopped; recovered in %.1f s" % (ranks[-1], time.time() - t0))
    if a.hooks:
        counts = re.findall(r"hooks: checkpoint=(\d+) continue=(\d+) "
                            r"restart=(\d+)", log())
        if not counts:
            fail("the program did not report its hooks", log())
        c, k, r = map(int, counts[-1])
        if c < 1 or k < 1 or (a.mode == "sigterm" and r < 1):
            fail("hooks did not run: checkpoint %d, continue %d, restart %d"
                 % (c, k, r), log())
        print("hooks: checkpoint %d, continue %d, restart %d" % (c, k, r))
    compare(ref, run, log())
    print("PASS: output and files identical to the uninterrupted run")
    shutil.rmtree(top)


if __name__ == "__main__":
    main()
