#!/usr/bin/env python3
"""Kill/restart harness: proves a program survives SIGKILL bit-identically.

For every test that kills and restarts (serial now, MPI later), and never to
be weakened to make a case pass:

 1. Runs the reference command uninterrupted and keeps its stdout; runs the
    checkpointed command uninterrupted once (it must match, and its run
    time bounds the random kill moments).
 2. Per trial, in a fresh CCC_DIR: starts the ccc-built command with
    timer-triggered checkpoints, waits until a checkpoint is committed (or,
    with --during-write, until an image is being written), SIGKILLs the whole
    process group at a random moment, starts the same command again once
    every thread of every killed process is gone, and
    repeats for a random number of kills; the last run goes to completion.
    A trial whose first run ends before it could be killed is redone (up to
    4 times, with ever earlier kill moments); a trial never killed fails.
    A kill that lands after the run recorded its completion is reported and
    not counted (nothing restarts after it).
    With --during-restore, restarted runs are also killed while restoring.
 3. Requires: every run started after a commit reports that it restarted
    (a silent fresh start would also give the right answer and prove
    nothing), the final run exits 0, and its stdout is byte-identical to the
    reference.
 4. With --files, every command runs in a working directory of its own (the
    reference's, the uninterrupted run's, each trial's) and the named files
    the final run leaves there must be byte-identical to the reference's
    (files open across checkpoints are reopened and cut back on restart).
 5. With --expect, the stderr of some checkpointed run must match each given
    expression (the case the test stands for occurred); when one depends on
    timing, up to 8 more uninterrupted runs are made for it.
Exit status 0 only if every trial passed.
"""
import argparse
import atexit
import glob
import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

# A checkpointed run may take this many times the reference's time (or
# --timeout, if longer) before it counts as hung.
RUN_LIMIT_FACTOR = 10


def committed(d):
    return sorted(glob.glob(os.path.join(d, "*.commit")))


def finished(d):
    """Whether a run completed after the newest commit in d (its NAME.completed
    names that version or a later one): the next run starts afresh. A run
    killed while exiting, after it recorded its completion, is one."""
    newest = 0
    for c in committed(d):
        m = re.search(r"\.v(\d+)\.commit$", c)
        newest = max(newest, int(m.group(1)) if m else 0)
    for f in glob.glob(os.path.join(d, "*.completed")):
        with open(f) as fh:
            m = re.search(r"^version (\d+)$", fh.read(), re.M)
        if m and int(m.group(1)) >= newest:
            return True
    return False


def writing(d):
    return glob.glob(os.path.join(d, "*.ccc.tmp"))


def ref_cache_key(ref, cwd_files):
    """The key of a reference run's result: its command, the size and
    modification time of every file the command names (a rebuilt program is
    another reference), and the environment but ccc's own variables (the
    reference is built without ccc). None when the run must not be reused:
    it leaves files that are compared (--files)."""
    if cwd_files:
        return None
    h = hashlib.sha256(ref.encode())
    for word in ref.split():
        try:
            st = os.stat(word)
        except OSError:
            continue
        h.update(f"\0{word}\0{st.st_size}\0{st.st_mtime_ns}".encode())
    for k in sorted(os.environ):
        if not k.startswith("CCC_"):
            h.update(f"\0{k}={os.environ[k]}".encode())
    return h.hexdigest()


def ref_cache_get(cache, key):
    """A cached reference's (stdout, seconds), or None."""
    if not cache or not key:
        return None
    try:
        with open(os.path.join(cache, key + ".json")) as f:
            d = json.load(f)
        return d["stdout"].encode("latin-1"), float(d["seconds"])
    except (OSError, ValueError, KeyError):
        return None


def ref_cache_put(cache, key, stdout, seconds):
    if not cache or not key:
        return
    os.makedirs(cache, exist_ok=True)
    tmp = os.path.join(cache, f"{key}.{os.getpid()}.tmp")
    with open(tmp, "w") as f:
        json.dump({"stdout": stdout.decode("latin-1"), "seconds": seconds}, f)
    os.replace(tmp, os.path.join(cache, key + ".json"))


def private_mpi_dirs():
    # Open MPI's session directory and shared-memory segments go to
    # directories of this harness run, emptied after every trial (a SIGKILLed
    # job leaves them behind). Cleaning /tmp/ompi.* and /dev/shm by pattern
    # instead deleted those of MPI jobs run at the same time by ctest -j2:
    # PMIx OUT-OF-RESOURCE in their MPI_Init. The path stays short: PMIx
    # puts its sockets there.
    tmp = tempfile.mkdtemp(prefix="ccckr-")
    try:
        shm = tempfile.mkdtemp(prefix="ccckr-", dir="/dev/shm")
    except OSError:
        shm = tempfile.mkdtemp(prefix="ccckr-shm-")
    return tmp, shm


def private_mpi_env():
    """The environment that gives Open MPI session and shared-memory
    directories of this run's own (removed at exit), and those
    directories."""
    dirs = private_mpi_dirs()
    for d in dirs:
        atexit.register(shutil.rmtree, d, True)
    return ({"OMPI_MCA_orte_tmpdir_base": dirs[0],
             "OMPI_MCA_btl_vader_backing_directory": dirs[1]}, dirs)


def empty_dirs(dirs):
    for d in dirs:
        for e in os.listdir(d):
            p = os.path.join(d, e)
            shutil.rmtree(p, ignore_errors=True) if os.path.isdir(p) else \
                os.unlink(p)


def descendants(root):
    children = {}
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            with open(stat) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.split("/")[2]))
    out, todo = [], [root]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def alive(pid):
    """Whether a thread of process pid still runs. A killed process's leader
    can be a zombie while another of its threads still unmaps its memory
    and holds its files, and with them its locks."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X"):
                    return True
        except OSError:
            continue
    return False


def stack_summary(path, cap=12000):
    """The frames of a .stacks file, for a log that outlives the files."""
    if not path:
        return "(no stacks: gdb not found)"
    keep = []
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith(("===", "Thread", "#", "(gdb")):
                keep.append(line.rstrip()[:200])
    text = "\n".join(keep)
    if len(text) > cap:
        text = text[:cap] + "\n..."
    return f"stacks of the hung run ({path}):\n{text}"


def kill_job(p):
    """SIGKILLs the job p leads (started with start_new_session) all at
    once, as when a node fails: its process group and every descendant (MPI
    launchers put ranks into process groups of their own); reaps p and
    waits until they are gone, so their locks are released."""
    victims = descendants(p.pid)
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    for pid in victims:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    p.wait()
    deadline = time.monotonic() + 60
    while any(alive(pid) for pid in victims) and time.monotonic() < deadline:
        time.sleep(0.01)
    stuck = [pid for pid in victims if alive(pid)]
    if stuck:
        print(f"warning: processes {stuck} still running 60 s after "
              f"SIGKILL", flush=True)


class Run:
    def __init__(self, cmd, env, log_prefix, cwd=None):
        # The child writes through descriptors of its own: sharing one file
        # offset with the reader would let a seek(0) to read the log send the
        # child's next write to the start of the file, over earlier lines.
        self.out_path = log_prefix + ".out"
        self.err_path = log_prefix + ".err"
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.p = subprocess.Popen(cmd, env=env, stdout=out, stderr=err,
                                      start_new_session=True, cwd=cwd)
        self.start = time.monotonic()

    def kill(self):
        kill_job(self.p)

    def dump_stacks(self):
        """Before a hung run is killed: every process's threads' stacks
        (gdb), to <log prefix>.stacks, so that a hang seen once in CI can be
        read afterwards. Returns that file's path ('' if gdb is missing)."""
        gdb = shutil.which("gdb")
        if not gdb:
            return ""
        path = self.out_path[:-len(".out")] + ".stacks"
        with open(path, "w") as f:
            for pid in [self.p.pid] + descendants(self.p.pid):
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as c:
                        what = c.read().replace(b"\0", b" ").decode(errors="replace")
                except OSError:
                    continue
                f.write(f"=== pid {pid}: {what}\n")
                f.flush()
                try:
                    subprocess.run([gdb, "-batch", "-nx", "-p", str(pid),
                                    "-ex", "thread apply all bt"],
                                   stdout=f, stderr=subprocess.STDOUT,
                                   timeout=60)
                except subprocess.TimeoutExpired:
                    f.write("(gdb timed out)\n")
        return path

    def stdout(self):
        with open(self.out_path, "rb") as f:
            return f.read()

    def stderr(self):
        with open(self.err_path, "rb") as f:
            return f.read().decode(errors="replace")


def run_to_end(cmd, timeout, env=None, cwd=None, shell=False, text=False):
    """subprocess.run(cmd, capture_output=True, timeout=timeout) in a
    session of its own: on the timeout the whole job is killed (kill_job),
    not only its first process. subprocess.run kills mpirun alone, and a
    hung job's ranks then spin on for good, slowing every later test."""
    p = subprocess.Popen(cmd, shell=shell, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env, cwd=cwd,
                         start_new_session=True, text=text)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_job(p)
        raise
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)


def run_signalling_last_rank(cmd, env, cwd, timeout):
    """Runs cmd to its end like subprocess.run; with CCC_RUN_DIR in env,
    sends SIGUSR1 every 0.2 s to the highest rank that reported its start
    (its handler is installed by then)."""
    rundir = env.get("CCC_RUN_DIR")
    if rundir:
        os.makedirs(rundir, exist_ok=True)
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=env, cwd=cwd, start_new_session=True)
    out, err = [], []

    def drain(stream, into):
        into.append(stream.read())
    import threading
    readers = [threading.Thread(target=drain, args=(p.stdout, out)),
               threading.Thread(target=drain, args=(p.stderr, err))]
    for t in readers:
        t.start()
    end = time.time() + timeout
    while p.poll() is None:
        if time.time() > end:
            kill_job(p)
            raise subprocess.TimeoutExpired(cmd, timeout)
        if rundir:
            try:
                with open(os.path.join(rundir, "events")) as f:
                    started = {int(l.split()[1]) for l in f
                               if l.split()[2:3] == ["start"]}
                if started:
                    with open(os.path.join(rundir,
                                           "rank.%d" % max(started))) as f:
                        os.kill(int(f.read().split()[0]), signal.SIGUSR1)
            except (OSError, ValueError, IndexError):
                pass
        time.sleep(0.2)
    for t in readers:
        t.join()
    return subprocess.CompletedProcess(cmd, p.returncode, out[0], err[0])


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--name", required=True, help="label for messages")
    ap.add_argument("--ref", required=True,
                    help="reference command (shell words), run uninterrupted")
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--max-kills", type=int, default=3)
    ap.add_argument("--interval", default="0.2", help="CCC_INTERVAL")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--during-write", action="store_true",
                    help="kill while an image is being written")
    ap.add_argument("--during-restore", action="store_true",
                    help="also kill restarted runs at a random moment of "
                         "their first 0.3 s, while they restore")
    ap.add_argument("--timeout", type=float, default=300,
                    help="seconds the reference may take; a checkpointed run "
                         "may take this or RUN_LIMIT_FACTOR times the "
                         "reference's measured time, whichever is longer")
    ap.add_argument("--keep", action="store_true", help="keep trial dirs")
    ap.add_argument("--env", action="append", default=[],
                    help="extra VAR=VALUE for the checkpointed runs")
    ap.add_argument("--expect", action="append", default=[],
                    help="regular expression that the checkpointed runs' "
                         "stderr (the uninterrupted one's or a trial's) must "
                         "match at least once "
                         "(e.g. a CCC_VERBOSE=protocol trace line proving a "
                         "case occurred); repeatable")
    ap.add_argument("--files", default="",
                    help="comma-separated files the program writes in its "
                         "working directory, compared with the reference's")
    ap.add_argument("--ref-cache", default="",
                    help="directory where the reference's output is kept for "
                         "other tests with the same reference command (the "
                         "twin rows of the two protocols): it is run once")
    ap.add_argument("cmd", nargs=argparse.REMAINDER,
                    help="-- command to checkpoint, kill and restart")
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if not cmd:
        ap.error("no command after --")
    seed = a.seed if a.seed is not None else int.from_bytes(os.urandom(4), "little")
    rng = random.Random(seed)
    print(f"[{a.name}] seed {seed} (rerun with --seed {seed})", flush=True)

    work = tempfile.mkdtemp(prefix=f"ccc-kr-{a.name}-")
    files = [f for f in a.files.split(",") if f]

    def fresh_cwd(path):
        """A working directory of its own for a run (with --files)."""
        if not files:
            return None
        os.makedirs(path, exist_ok=True)
        return path

    def files_differ(cwd):
        """Which of the --files differ from the reference's (or are
        missing), as a message; None if all are identical."""
        bad = []
        for f in files:
            try:
                with open(os.path.join(ref_cwd, f), "rb") as x, \
                        open(os.path.join(cwd, f), "rb") as y:
                    want, got = x.read(), y.read()
            except OSError as e:
                bad.append(f"{f}: {e}")
                continue
            if want != got:
                at = next((i for i in range(min(len(want), len(got)))
                           if want[i] != got[i]), min(len(want), len(got)))
                bad.append(f"{f}: {len(got)} bytes, reference {len(want)}, "
                           f"first difference at byte {at}")
        return "; ".join(bad) or None
    mpi_env, mpi_dirs = private_mpi_env()
    # The reference never checkpoints and never restarts.
    ref_env = dict(os.environ, CCC_DIR=os.path.join(work, "ref"),
                   CCC_RESTART="never", CCC_INTERVAL="0", **mpi_env)
    ref_cwd = fresh_cwd(os.path.join(work, "ref.cwd"))
    ref_key = ref_cache_key(a.ref, files)
    cached = ref_cache_get(a.ref_cache, ref_key)
    if cached:
        ref = subprocess.CompletedProcess(a.ref, 0, cached[0], b"")
        ref_time = cached[1]
        print(f"[{a.name}] reference output reused from {a.ref_cache}",
              flush=True)
    else:
        t0 = time.monotonic()
        try:
            ref = run_to_end(a.ref, a.timeout, env=ref_env, cwd=ref_cwd,
                             shell=True)
        except subprocess.TimeoutExpired:
            print(f"[{a.name}] FAIL: the reference did not end within "
                  f"{a.timeout} s (its processes were killed)")
            return 1
        ref_time = time.monotonic() - t0
    if ref.returncode != 0:
        print(f"[{a.name}] FAIL: reference exited {ref.returncode}\n"
              f"{ref.stderr.decode(errors='replace')}")
        return 1
    if not ref.stdout.strip():
        print(f"[{a.name}] FAIL: reference printed nothing to compare")
        return 1
    if not cached:
        ref_cache_put(a.ref_cache, ref_key, ref.stdout, ref_time)
    # The checkpointed runs' limit follows from the reference's measured
    # time: a sanitized build's checkpointed run took 2.1-2.4 times its
    # reference at load 9-10 on 2 cores, and the load may rise several-fold
    # between the two runs (issue 46: 120 s fixed was too short at load 19).
    run_limit = max(a.timeout, RUN_LIMIT_FACTOR * ref_time)

    def trial_env(ckpt_dir):
        env = dict(os.environ, CCC_DIR=ckpt_dir, CCC_INTERVAL=a.interval,
                   CCC_VERBOSE="1", **mpi_env)
        for kv in a.env:
            k, _, v = kv.partition("=")
            env[k] = v
        return env

    # Kill moments are drawn from the checkpointed command's own run time:
    # it may be faster than the reference (a plain build calls
    # ccc_checkpoint() out of line at every site). Its uninterrupted output
    # must match too.
    solo_cwd = fresh_cwd(os.path.join(work, "solo.cwd"))
    t0 = time.monotonic()
    try:
        solo = run_to_end(cmd, run_limit,
                          env=trial_env(os.path.join(work, "solo")),
                          cwd=solo_cwd)
    except subprocess.TimeoutExpired:
        print(f"[{a.name}] FAIL: the uninterrupted checkpointed run did not "
              f"end within {run_limit:.1f} s ({RUN_LIMIT_FACTOR} times the "
              f"reference's {ref_time:.1f} s, at least {a.timeout} s; its "
              f"processes were killed)")
        return 1
    run_time = time.monotonic() - t0
    solo_files = files_differ(solo_cwd) if files else None
    if solo_files:
        print(f"[{a.name}] FAIL: the uninterrupted checkpointed run's files "
              f"differ from the reference's: {solo_files}")
        return 1
    if solo.returncode != 0 or solo.stdout != ref.stdout:
        print(f"[{a.name}] FAIL: uninterrupted checkpointed run exited "
              f"{solo.returncode} or differs from the reference\n"
              f"{solo.stderr.decode(errors='replace')[-2000:]}")
        return 1

    # Programs are sized for a run of about a second; on a faster machine
    # (or a quiet one) a run can end before the first timed checkpoint, and
    # a trial would have nothing to kill. Under three intervals, the
    # interval shrinks to a quarter of the run, so that checkpoints, kills
    # and restarts still happen; the note says the program wants resizing.
    # (Under two, as until 2026-11-29, a run of 0.63 s at 0.3 s left its
    # first commit so little of the run that four attempts of a trial all
    # ended before their kill.)
    try:
        interval = float(a.interval)
    except ValueError:
        interval = 0.0
    if interval > 0 and run_time < 3 * interval:
        a.interval = f"{max(run_time / 4, 0.02):.3f}"
        print(f"[{a.name}] note: the uninterrupted run took {run_time:.2f} s, "
              f"less than 3 checkpoint intervals ({interval} s): interval "
              f"{a.interval} s for the trials", flush=True)

    failures = kills_total = restarts_total = vacuous = 0
    expect = {e: re.compile(e) for e in a.expect}
    solo_err = solo.stderr.decode(errors="replace")
    seen = {e for e, rx in expect.items() if rx.search(solo_err)}
    for trial in range(a.trials):
        # A run that ends before its first kill proves nothing: the trial is
        # redone with kill moments drawn ever earlier.
        for attempt in range(4):
            shrink = 0.5 ** attempt
            d = os.path.join(work, f"t{trial}.{attempt}")
            os.makedirs(d)
            env = trial_env(os.path.join(d, "ckpt"))
            cwd = fresh_cwd(os.path.join(d, "cwd"))
            kills_wanted = rng.randint(1, a.max_kills)
            kills = late_kills = 0
            run_no = 0
            problem = None
            while True:
                # A run resumes when a commit exists, unless the run before
                # completed (then it starts afresh, and must say so).
                afresh = finished(env["CCC_DIR"])
                had_commit = bool(committed(env["CCC_DIR"])) and not afresh
                r = Run(cmd, env, os.path.join(d, f"run{run_no}"), cwd)
                run_no += 1
                killed = False
                early = (a.during_restore and had_commit and kills < kills_wanted
                         and rng.random() < 0.5)
                if early:
                    # Killed while restoring: it need not have said so yet,
                    # but the next run must restart all the same.
                    time.sleep(rng.uniform(0, 0.3))
                    if r.p.poll() is None:
                        r.kill()
                        killed = True
                        kills += 1
                        kills_total += 1
                        continue
                if kills < kills_wanted:
                    # Wait for something worth killing: a committed checkpoint
                    # (or one being written), then kill at a random moment.
                    frac = rng.uniform(0, 0.8) * shrink
                    deadline = time.monotonic() + run_limit
                    armed_at = None
                    stale = set(writing(env["CCC_DIR"]))
                    while r.p.poll() is None and time.monotonic() < deadline:
                        # A restarted run is killed only once it has restarted,
                        # and a run after a completed one only once it has said
                        # it starts afresh, so that what it must say can be
                        # checked every time. (The old commits are still there
                        # then: killed at once, it had said nothing yet.)
                        said = ("ccc: restarting from" if had_commit else
                                "starting afresh" if afresh else None)
                        if armed_at is None and said and said not in r.stderr():
                            time.sleep(0.002)
                            continue
                        if armed_at is None:
                            if (a.during_write and committed(env["CCC_DIR"])
                                    and set(writing(env["CCC_DIR"])) - stale):
                                armed_at = time.monotonic()
                                delay = rng.uniform(0, 0.02)
                            elif not a.during_write and committed(env["CCC_DIR"]):
                                armed_at = time.monotonic()
                                # Within what is left of an uninterrupted run.
                                left = run_time - (armed_at - r.start)
                                delay = frac * max(left, 0.1)
                        if armed_at is not None and time.monotonic() - armed_at >= delay:
                            r.kill()
                            killed = True
                            break
                        time.sleep(0.002)
                if not killed:
                    try:
                        r.p.wait(timeout=run_limit)
                    except subprocess.TimeoutExpired:
                        stacks = r.dump_stacks()
                        r.kill()
                        problem = (f"run {run_no} timed out; its stderr ends:\n"
                                   f"{r.stderr()[-2000:]}\n{stack_summary(stacks)}")
                        break
                err = r.stderr()
                seen.update(e for e, rx in expect.items() if rx.search(err))
                if afresh and "starting afresh" not in err:
                    problem = (f"run {run_no} did not say it starts afresh after "
                               f"a completed run:\n{err[-2000:]}")
                    break
                if had_commit and "ccc: restarting from" not in err:
                    problem = f"run {run_no} did not restart though a commit existed:\n{err[-2000:]}"
                    break
                if had_commit:
                    restarts_total += 1
                if killed and finished(env["CCC_DIR"]):
                    # The kill landed after the program had completed (its
                    # exit was cut short): no restart follows, so it is no
                    # kill; the next run starts afresh and is killed in its
                    # turn. After three such, the next run completes and
                    # the attempt counts its real kills (none: redone, kill
                    # moments earlier).
                    late_kills += 1
                    print(f"[{a.name}] trial {trial}: run {run_no} was killed "
                          f"after it completed: not counted as a kill",
                          flush=True)
                    if late_kills == 3:
                        kills_wanted = kills
                    continue
                if killed:
                    kills += 1
                    kills_total += 1
                    continue
                if r.p.returncode != 0:
                    problem = f"run {run_no} exited {r.p.returncode}:\n{err[-2000:]}"
                    break
                if r.stdout() != ref.stdout:
                    problem = (f"output differs from the reference after {kills} kills\n"
                               f"--- reference\n{ref.stdout.decode(errors='replace')[:2000]}\n"
                               f"--- got\n{r.stdout().decode(errors='replace')[:2000]}")
                elif files and files_differ(cwd):
                    problem = (f"files differ from the reference's after "
                               f"{kills} kills: {files_differ(cwd)}")
                break
            empty_dirs(mpi_dirs)
            if problem or kills > 0 or attempt == 3:
                break
            shutil.rmtree(d, ignore_errors=True)
        if problem:
            failures += 1
            print(f"[{a.name}] trial {trial}: FAIL: {problem}\n  (files in {d})", flush=True)
        else:
            redone = f", attempt {attempt + 1}" if attempt else ""
            print(f"[{a.name}] trial {trial}: ok ({kills} kills, {run_no} runs"
                  f"{redone})", flush=True)
            vacuous += kills == 0
            if not a.keep:
                shutil.rmtree(d, ignore_errors=True)
    print(f"[{a.name}] {a.trials - failures}/{a.trials} trials identical, "
          f"{kills_total} kills, {restarts_total} restarts, {failures} mismatches "
          f"(reference {ref_time:.2f} s, checkpointed {run_time:.2f} s, "
          f"seed {seed})", flush=True)
    if vacuous:
        print(f"[{a.name}] FAIL: {vacuous} of {a.trials} trials ended before "
              f"a kill, 4 times each: make the run longer than the checkpoint "
              f"interval ({a.interval} s)", flush=True)
        failures += 1
    # Whether a case occurs can be a matter of timing (which rank's clock
    # starts a checkpoint first): uninterrupted runs are added, at most 8,
    # until each has occurred. A case that never occurs still fails.
    # Every other one has no timer: CCC_SIGNAL goes to the last rank alone
    # every 0.2 s, so it starts checkpoints the others join at their next
    # site (on its own, each rank's timer fires at about the same step and
    # cases such as collectives across the line may not occur).
    extra = 0
    while set(a.expect) - seen and extra < 8 and not failures:
        extra += 1
        env = trial_env(os.path.join(work, f"more{extra}"))
        if extra % 2 == 0:
            env.update(CCC_INTERVAL="0",
                       CCC_RUN_DIR=os.path.join(work, f"more{extra}.run"))
        more = run_signalling_last_rank(
            cmd, env, fresh_cwd(os.path.join(work, f"more{extra}.cwd")),
            run_limit)
        if more.returncode != 0 or more.stdout != ref.stdout:
            print(f"[{a.name}] FAIL: uninterrupted run {extra + 1} exited "
                  f"{more.returncode} or differs from the reference\n"
                  f"{more.stderr.decode(errors='replace')[-2000:]}", flush=True)
            failures += 1
            break
        err = more.stderr.decode(errors="replace")
        seen.update(e for e, rx in expect.items() if rx.search(err))
    if extra:
        print(f"[{a.name}] {extra} more uninterrupted runs for the expected "
              f"cases", flush=True)
    for e in a.expect:
        if e not in seen:
            print(f"[{a.name}] FAIL: no run's stderr matched {e!r}: the case "
                  f"it stands for never occurred", flush=True)
            failures += 1
    if not failures and not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
