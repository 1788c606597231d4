#!/usr/bin/env python3
"""A node of a multi-host MPI job is lost; the job restarts on the others.

Usage: node_loss.py --mpi openmpi|mpich (--install-from BUILD | --prefix P)
                    [--mode shared|local] [--trials N] [--steps S] ...

On a namespace cluster of 4 hosts (test/harness/netns_cluster.py):
 1. builds SOURCE (default test/mpi/programs/p2p/ring.c; rank_logs.c: every rank writes
    its own log file, open across checkpoints, rank 0 prints a sum) with the
    installed ckpt-cc --mpi=MPI, and without ccc (the MPI's mpicc and
    pkg-config ccc's runtime: ccc_checkpoint() does nothing) as reference;
 2. runs the reference uninterrupted on h1,h2,h3 (3 ranks, one per host,
    launched from h1 as a cluster's mpirun is), keeps its stdout and
    log.R.txt files;
 3. per trial: the ccc build with the same placement, CCC_DIR on the shared
    directory (mode shared), or also CCC_LOCAL_DIR on each host's
    node-local disk (mode local); once a checkpoint is committed
    (*.commit in CCC_DIR) and after a random delay, host h2 dies
    (kill_host: every process on it SIGKILLed, its network gone) and its
    node-local disk is lost (remove_local); the launcher on h1 sees the
    lost node and ends the job (what is left on h1 and h3 is killed, as a
    resource manager would); then the same command runs on h1,h3,h4 (h4 a
    spare: ranks 1 and 2 move to other hosts) and must say it restarts,
    exit 0 and leave stdout and every log file byte-identical to the
    reference's. A trial whose job ends before the loss is redone (up to
    4 times, kill moments ever earlier).
--lose h2,h3 loses two hosts at once, partners of each other (mode local:
rank 1's image and its partner copy both gone); with --flush-every N
(CCC_FLUSH_EVERY) the loss waits for a commit of a version that is a
multiple of N, and the restart (--restart-on h1,h4,h4) must find that
version's files in CCC_DIR.
Exit 0 if every trial passed, 77 (skip) when no cluster can be made here or
the MPI is missing, 1 otherwise.
"""
import argparse
import glob
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "harness"))
import netns_cluster  # noqa: E402

SKIP = 77
LAUNCHER = {"openmpi": "mpirun.openmpi", "mpich": "mpiexec.mpich"}
MPICC = {"openmpi": "mpicc.openmpi", "mpich": "mpicc.mpich"}
FIRST = ["h1", "h2", "h3"]      # where the job runs first
AGAIN = ["h1", "h3", "h4"]      # where it restarts: h2 lost, h4 the spare
LOST = "h2"
CCC_VARS = ("CCC_DIR", "CCC_INTERVAL", "CCC_VERBOSE", "CCC_RESTART",
            "CCC_LOCAL_DIR", "CCC_PROTOCOL", "CCC_FLUSH_EVERY")


def launch(c, mpi, hosts, prog, args, env=None):
    """The command, run on h1, that starts prog on hosts (a host named n
    times runs n ranks); env: the variables the job is given."""
    if mpi == "openmpi":
        # The agent gives remote daemons a clean environment, as ssh does:
        # ccc's variables must be named with -x (a name not set draws a
        # warning).
        xs = [w for v in CCC_VARS if v in (env or {}) for w in ("-x", v)]
        return [LAUNCHER[mpi], "--host", ",".join(hosts), "-np",
                str(len(hosts)), "--mca", "plm_rsh_agent", c.agent,
                "--mca", "btl", "tcp,self,vader",
                "--mca", "btl_tcp_if_include", c.cidr,
                "--mca", "oob_tcp_if_include", c.cidr, *xs, prog, *args]
    # Hydra passes mpiexec's whole environment to the ranks.
    return [LAUNCHER[mpi], "-hosts", ",".join(hosts), "-n", str(len(hosts)),
            "-launcher", "ssh", "-launcher-exec", c.agent, "-iface", "eth0",
            prog, *args]


def committed(d, every=0):
    """Commit records in d; of versions that are multiples of every (if
    not 0)."""
    found = glob.glob(os.path.join(d, "*.commit"))
    if every:
        found = [f for f in found
                 if int(f.rsplit(".v", 1)[1].split(".")[0]) % every == 0]
    return found


def cannot_run(ap, a):
    """Why this test cannot run here (it is skipped), or None; a usage error
    without an installed ccc."""
    if not (a.install_from or a.prefix):
        ap.error("--install-from or --prefix")
    why = netns_cluster.missing()
    if not why and not shutil.which(LAUNCHER[a.mpi]):
        why = LAUNCHER[a.mpi] + " not installed"
    return why


def await_loss(p, t0, ckpt_dir, ref_time, frac, timeout, every=0):
    """The moment to lose a host: once a version is committed in ckpt_dir,
    after frac of what is left of a reference-long run (p started at t0).
    Returns when it has come, p ended, or timeout s passed (a loss with no
    commit fails the trial); whether a commit was seen."""
    armed = None
    while p.poll() is None:
        now = time.monotonic()
        if armed is None and committed(ckpt_dir, every):
            armed = now
            delay = frac * max(ref_time - (now - t0), 0.2)
        if armed is not None and now - armed >= delay:
            break
        if now - t0 > timeout:
            break
        time.sleep(0.005)
    return armed is not None


def outputs(cwd, stdout):
    """stdout and every file the job left in its working directory."""
    files = {f: open(os.path.join(cwd, f), "rb").read()
             for f in sorted(os.listdir(cwd))}
    return stdout, files


def differs(want, got):
    wo, wf = want
    go, gf = got
    if wo != go:
        return "stdout differs:\n--- reference\n%s--- got\n%s" % (
            wo.decode(errors="replace")[:1000],
            go.decode(errors="replace")[:1000])
    if sorted(wf) != sorted(gf):
        return "files differ: reference %s, got %s" % (sorted(wf), sorted(gf))
    for f in wf:
        if wf[f] != gf[f]:
            a, b = wf[f], gf[f]
            at = next((i for i in range(min(len(a), len(b)))
                       if a[i] != b[i]), min(len(a), len(b)))
            return "%s: %d bytes, reference %d, first difference at byte %d" \
                % (f, len(b), len(a), at)
    return None


def build(a, work):
    """The ccc and the plain executables, in the shared directory."""
    prefix = a.prefix
    if a.install_from:
        prefix = os.path.join(work, "prefix")
        subprocess.run(["cmake", "--install", a.install_from, "--prefix",
                        prefix], check=True, stdout=subprocess.DEVNULL)
    ckpt_cc = os.path.join(prefix, "bin", "ckpt-cc")
    exe = os.path.join(work, "shared", "prog")
    plain = exe + ".plain"
    subprocess.run([ckpt_cc, "--mpi=" + a.mpi, "-O2", "-o", exe, a.source,
                    "-lm"], check=True)
    env = dict(os.environ,
               PKG_CONFIG_PATH=os.path.join(prefix, "lib", "pkgconfig"),
               OMPI_CC="clang-19", MPICH_CC="clang-19")
    libs = subprocess.run(["pkg-config", "--libs", "ccc"], env=env,
                          check=True, capture_output=True,
                          text=True).stdout.split()
    subprocess.run([MPICC[a.mpi], "-O2", "-I", os.path.join(prefix,
                    "include"), "-o", plain, a.source, *libs, "-lm"],
                   env=env, check=True)
    return exe, plain


# ---- shared by the tests that lose a host under ckpt run
# (supervised_node_loss.py, slurm_node_loss.py)

def supervised_parser(doc, trials):
    """Their command line."""
    ap = argparse.ArgumentParser(
        description=doc,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mpi", required=True, choices=sorted(LAUNCHER))
    ap.add_argument("--install-from")
    ap.add_argument("--prefix")
    ap.add_argument("--mode", choices=("shared", "local"), default="local")
    ap.add_argument("--trials", type=int, default=trials)
    ap.add_argument("--source", default=os.path.join(
        HERE, "..", "mpi", "programs", "p2p", "ring.c"))
    ap.add_argument("--steps", default="3000")
    ap.add_argument("--interval", default="0.3")
    ap.add_argument("--seed", type=int)
    ap.add_argument("--timeout", type=float, default=150)
    ap.add_argument("--keep", action="store_true")
    return ap


def run_reference(c, a, name, hosts, plain):
    """The plain build, uninterrupted, launched from h1 on hosts: (outputs,
    seconds), or None after saying why it failed."""
    ref_cwd = os.path.join(c.shared, "ref")
    os.makedirs(ref_cwd)
    t0 = time.monotonic()
    r = c.run("h1", launch(c, a.mpi, hosts, plain, [a.steps]),
              env=dict(netns_cluster.MPI_ROOT_ENV, CCC_RESTART="never",
                       CCC_INTERVAL="0"),
              cwd=ref_cwd, timeout=a.timeout)
    ref_time = time.monotonic() - t0
    if r.returncode != 0 or not r.stdout.strip():
        print("[%s] FAIL: reference exited %d:\n%s" % (
            name, r.returncode, r.stderr[-2000:]))
        return None
    print("[%s] reference: %.2f s" % (name, ref_time), flush=True)
    return outputs(ref_cwd, r.stdout.encode()), ref_time


def judge_supervised(text, lost, cwd, ref):
    """Why a job that ckpt run finished after losing host lost is wrong
    (text: ckpt run's log; cwd: the job's directory, its stdout in
    cwd/stdout), or None."""
    if "host %s is lost" % lost not in text:
        return "ckpt run did not report %s lost:\n%s" % (lost, text[-3000:])
    if "ccc: restarting from" not in text:
        return "the job did not restart:\n%s" % text[-3000:]
    with open(os.path.join(cwd, "stdout"), "rb") as f:
        out = f.read()
    os.unlink(os.path.join(cwd, "stdout"))
    shutil.rmtree(os.path.join(cwd, "ccc-ckpt"), ignore_errors=True)
    return differs(ref, outputs(cwd, out))


def report_trial(name, trial, problem, d, text, lost, kill_at):
    if problem:
        print("[%s] trial %d: FAIL: %s\n  (files in %s)" % (
            name, trial, problem, d), flush=True)
        return
    summary = [l for l in text.splitlines()
               if l.startswith("ckpt run: finished")]
    print("[%s] trial %d: ok: %s lost %.2f s into the run; %s"
          % (name, trial, lost, kill_at, summary[-1] if summary else ""),
          flush=True)


def finish(c, a, name, failures, seed, work):
    """The end of a series: processes left count as a failure; the files
    are kept if asked or something failed. Returns the exit status."""
    left = c.leftovers()
    if left:
        print("[%s] FAIL: processes left: %s" % (name, left))
        failures += 1
    print("[%s] %d/%d trials identical (seed %d)" % (
        name, a.trials - failures, a.trials, seed), flush=True)
    if a.keep or failures:
        print("[%s] files kept in %s" % (name, work))
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mpi", required=True, choices=sorted(LAUNCHER))
    ap.add_argument("--install-from", help="a build tree: cmake --install "
                    "it into a private prefix and use that")
    ap.add_argument("--prefix", help="an installed ccc (bin/ckpt-cc)")
    ap.add_argument("--mode", choices=("shared", "local"), default="shared")
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--source", default=os.path.join(
        HERE, "..", "mpi", "programs", "p2p", "ring.c"))
    ap.add_argument("--steps", default="3000",
                    help="the program's argument (run length)")
    ap.add_argument("--interval", default="0.3", help="CCC_INTERVAL")
    ap.add_argument("--protocol", help="CCC_PROTOCOL (default: ccc's)")
    ap.add_argument("--restart-on", default=",".join(AGAIN),
                    help="hosts of the restarted job (default %(default)s;"
                    " h1,h2,h3 restarts in place, for comparison)")
    ap.add_argument("--lose", default=LOST,
                    help="hosts lost together (default %(default)s)")
    ap.add_argument("--flush-every", type=int, default=0,
                    help="CCC_FLUSH_EVERY (0: unset)")
    ap.add_argument("--seed", type=int)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    why = cannot_run(ap, a)
    if why:
        print("SKIP: " + why)
        return SKIP
    seed = a.seed if a.seed is not None else int.from_bytes(os.urandom(4),
                                                            "little")
    rng = random.Random(seed)
    again = a.restart_on.split(",")
    lost = a.lose.split(",")
    name = "%s.%s" % (a.mpi, a.mode)
    if a.flush_every:
        name += ".flush"
    print("[%s] seed %d (rerun with --seed %d)" % (name, seed, seed),
          flush=True)
    work = tempfile.mkdtemp(prefix="ccc-nodeloss-")
    failures = 0
    t_all = time.monotonic()
    with netns_cluster.NetnsCluster(work, hosts=4) as c:
        exe, plain = build(a, work)
        base = dict(netns_cluster.MPI_ROOT_ENV)

        def start(hosts, prog, cwd, env, log):
            """Launches prog from h1 on hosts; stdout and stderr to
            log.out and log.err."""
            os.makedirs(cwd, exist_ok=True)
            out = open(log + ".out", "wb")
            err = open(log + ".err", "wb")
            p = c.popen("h1", launch(c, a.mpi, hosts, prog, [a.steps], env),
                        env=dict(base, **env), cwd=cwd, stdout=out,
                        stderr=err)
            out.close()
            err.close()
            p.log = log
            p.t0 = time.monotonic()
            return p

        def result(p):
            with open(p.log + ".out", "rb") as f:
                out = f.read()
            with open(p.log + ".err", "rb") as f:
                err = f.read().decode(errors="replace")
            return out, err

        ref_cwd = os.path.join(c.shared, "ref")
        t0 = time.monotonic()
        p = start(FIRST, plain, ref_cwd, {
            "CCC_DIR": os.path.join(c.shared, "ref.ckpt"),
            "CCC_RESTART": "never", "CCC_INTERVAL": "0"}, ref_cwd)
        try:
            p.wait(a.timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        out, err = result(p)
        ref_time = time.monotonic() - t0
        if p.returncode != 0 or not out.strip():
            print("[%s] FAIL: reference exited %d:\n%s" % (
                name, p.returncode, err[-2000:]))
            return 1
        ref = outputs(ref_cwd, out)
        print("[%s] reference on %s: %.2f s" % (name, ",".join(FIRST),
                                               ref_time), flush=True)

        def trial_env(d):
            env = {"CCC_DIR": os.path.join(d, "ckpt"),
                   "CCC_INTERVAL": a.interval, "CCC_VERBOSE": "1"}
            if a.protocol:
                env["CCC_PROTOCOL"] = a.protocol
            if a.mode == "local":
                env["CCC_LOCAL_DIR"] = c.local_dir
            if a.flush_every:
                env["CCC_FLUSH_EVERY"] = str(a.flush_every)
            return env

        for trial in range(a.trials):
            t_trial = time.monotonic()
            problem = None
            for attempt in range(4):
                d = os.path.join(c.shared, "t%d.%d" % (trial, attempt))
                env = trial_env(d)
                for h in c.names:
                    if not c.alive(h):
                        c.start_host(h)
                    c.remove_local(h)
                cwd = os.path.join(d, "cwd")
                p = start(FIRST, exe, cwd, env, os.path.join(d, "run1"))
                # Waits for a commit, then kills h2 within the part of the
                # run that is left (a reference-long run), earlier on each
                # attempt.
                armed = await_loss(p, p.t0, env["CCC_DIR"], ref_time,
                                   rng.uniform(0, 0.6) * 0.5 ** attempt,
                                   a.timeout, a.flush_every)
                if p.poll() is not None:
                    out, err = result(p)
                    if p.returncode == 0 and not armed:
                        problem = ("the job finished and no commit was "
                                   "seen:\n%s" % err[-2000:])
                        break
                    if p.returncode == 0:
                        print("[%s] trial %d: the job ended before the loss;"
                              " again, earlier" % (name, trial), flush=True)
                        continue
                    problem = "first run exited %d before the loss:\n%s" % (
                        p.returncode, err[-2000:])
                    break
                t_kill = time.monotonic()
                kill_at = t_kill - p.t0
                commits = len(committed(env["CCC_DIR"]))
                local_files = {h: len(os.listdir(c.local(h))) for h in FIRST}
                if a.mode == "local" and not all(local_files.values()):
                    # Images must be on the hosts' disks, or the mode
                    # proves nothing (a runtime without CCC_LOCAL_DIR).
                    problem = ("node-local directories without files at "
                               "the loss: %s" % local_files)
                    break
                for h in lost:
                    c.kill_host(h)
                    c.remove_local(h)
                try:
                    p.wait(60)
                    ended = "launcher exited %d %.2f s after the loss" % (
                        p.returncode, time.monotonic() - t_kill)
                except subprocess.TimeoutExpired:
                    ended = "launcher still running 60 s after the loss"
                    p.kill()
                    p.wait()
                for h in c.names:
                    if c.alive(h):
                        c.kill_jobs(h)
                if not committed(env["CCC_DIR"], a.flush_every):
                    problem = "no commit left after the loss"
                    break
                # The same command on the hosts left and the spare.
                t_re = time.monotonic()
                for h in again:
                    if not c.alive(h):
                        c.start_host(h)
                p = start(again, exe, cwd, env, os.path.join(d, "run2"))
                try:
                    p.wait(a.timeout)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
                    problem = "the restarted job timed out"
                    break
                out, err = result(p)
                re_time = time.monotonic() - t_re
                if p.returncode != 0:
                    problem = "the restarted job exited %d:\n%s" % (
                        p.returncode, err[-2000:])
                elif "ccc: restarting from" not in err:
                    problem = "the restarted job did not restart:\n%s" % (
                        err[-2000:])
                elif len(lost) > 1 and a.flush_every and \
                        "taken from CCC_DIR" not in err:
                    problem = "the restart took no flushed file:\n%s" % (
                        err[-2000:])
                else:
                    problem = differs(ref, outputs(cwd, out))
                break
            else:
                problem = "the job ended before the loss 4 times: make it " \
                          "longer (--steps)"
            if problem:
                failures += 1
                print("[%s] trial %d: FAIL: %s\n  (files in %s)" % (
                    name, trial, problem, d), flush=True)
                a.keep = True
            else:
                print("[%s] trial %d: ok: %s lost %.2f s into the run after "
                      "%d commits, %s; restart on %s %.2f s; trial %.1f s"
                      % (name, trial, a.lose, kill_at, commits, ended,
                         ",".join(again), re_time,
                         time.monotonic() - t_trial), flush=True)
    left = c.leftovers()
    print("[%s] %d/%d trials identical (%.1f s in all, seed %d)" % (
        name, a.trials - failures, a.trials, time.monotonic() - t_all, seed),
        flush=True)
    if left:
        print("[%s] FAIL: processes left: %s" % (name, left))
        failures += 1
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("[%s] files kept in %s" % (name, work))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
