#!/usr/bin/env python3
"""`ckpt run` loses a host of its job and carries on with a spare by itself.

Usage: supervised_node_loss.py --mpi openmpi|mpich
                               (--install-from BUILD | --prefix P)
                               [--mode shared|local] [--trials N] ...

As node_loss.py (same cluster, program, reference and checks), but nobody
relaunches the job by hand: on h1,

    ckpt run --hosts h1,h2,h3,h4 --probe "AGENT {} true" --stdout stdout
             -- mpirun --host {hosts} -np 3 ... prog STEPS

runs 3 ranks on h1,h2,h3 (h4 is a spare). Once a checkpoint is committed
and after a random delay, h2 dies with its node-local disk. `ckpt run`
must see the attempt fail, find h2 lost by its probe, launch again on
h1,h3,h4 with no one's help, and finish with status 0 and stdout and every
file byte-identical to the plain build's uninterrupted run. A trial whose
job ends before the loss is redone, the loss earlier.

--late-probe: the probe is late to see the loss, as a real one can be (a
node that dies just after it answered): its first answer for h2 after the
loss is a yes. The next attempt is launched onto the dead h2, where the
launcher cannot start its rank; `ckpt run --hang-timeout` must find that
launch hung (MPICH's mpiexec waits for ever) or failed (Open MPI's mpirun
ends), probe again, leave h2 out and finish as above.
Exit 0 if every trial passed, 77 (skip) as node_loss.py, 1 otherwise.
"""
import os
import random
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "harness"))
sys.path.insert(0, HERE)
import netns_cluster  # noqa: E402
import node_loss  # noqa: E402

HOSTS = ["h1", "h2", "h3", "h4"]
NP = 3
LOST = "h2"


def job(c, mpi, prog, args, env):
    """mpirun's command with {hosts} for ckpt run to fill in, NP ranks;
    env: the variables the job is given."""
    cmd = node_loss.launch(c, mpi, ["{hosts}"], prog, args, env)
    n = cmd.index("-np" if mpi == "openmpi" else "-n")
    cmd[n + 1] = str(NP)
    if mpi == "openmpi":
        # Remote ranks get only what -x names (the agent is as clean as
        # ssh): the supervision's variables too.
        at = cmd.index(prog)
        cmd[at:at] = ["-x", "CCC_RUN_DIR", "-x", "CCC_STDOUT"]
    return cmd


def late_probe(work, agent):
    """(the probe command, the file whose existence makes its next answer
    for LOST a yes)."""
    lie = os.path.join(work, "probe-lies")
    probe = os.path.join(work, "probe")
    with open(probe, "w") as f:
        f.write('#!/bin/sh\n'
                '# Asks HOST ($1) to run true. Late to see %s die: while %s\n'
                '# exists, a question about %s gets a yes and removes it.\n'
                'if [ "$1" = %s ] && rm "%s" 2>/dev/null; then exit 0; fi\n'
                'exec "%s" "$1" true\n' % (LOST, lie, LOST, LOST, lie, agent))
    os.chmod(probe, 0o755)
    return probe, lie


def late_probe_problem(text, lie):
    """Why a late-probe trial did not test what it should, or None."""
    if os.path.exists(lie):
        return "the probe was never asked about %s after the loss" % LOST
    if text.count("host %s is lost" % LOST) != 1:
        return "ckpt run did not leave %s out exactly once:\n%s" % (
            LOST, text[-3000:])
    attempts = text.count("ckpt run: attempt ")
    if attempts < 2:
        return ("the launch onto the dead %s did not fail:\n%s" %
                (LOST, text[-3000:]))
    return None


def processes(c):
    """Each host's processes (ps), for a failure report."""
    out = []
    for h in HOSTS:
        pids = c.processes(h) if c.alive(h) else []
        if pids:
            out.append("%s:\n%s" % (h, subprocess.run(
                ["ps", "-o", "pid,ppid,stat,etime,args", "-p",
                 ",".join(map(str, pids))], stdout=subprocess.PIPE,
                universal_newlines=True).stdout))
    return "".join(out)


def main():
    ap = node_loss.supervised_parser(__doc__, trials=2)
    ap.add_argument("--late-probe", action="store_true")
    ap.set_defaults(mode="shared")
    a = ap.parse_args()
    why = node_loss.cannot_run(ap, a)
    if why:
        print("SKIP: " + why)
        return node_loss.SKIP
    seed = a.seed if a.seed is not None else int.from_bytes(os.urandom(4),
                                                            "little")
    rng = random.Random(seed)
    name = "%s.%s.supervised" % (a.mpi, a.mode)
    print("[%s] seed %d (rerun with --seed %d)" % (name, seed, seed),
          flush=True)
    work = tempfile.mkdtemp(prefix="ccc-supervised-")
    failures = 0
    with netns_cluster.NetnsCluster(work, hosts=len(HOSTS)) as c:
        a.prefix = a.prefix or os.path.join(work, "prefix")
        exe, plain = node_loss.build(a, work)
        ckpt = os.path.join(a.prefix, "bin", "ckpt")
        base = dict(netns_cluster.MPI_ROOT_ENV)
        probe, lie = late_probe(work, c.agent)
        got = node_loss.run_reference(c, a, name, HOSTS[:NP], plain)
        if not got:
            return 1
        ref, ref_time = got

        for trial in range(a.trials):
            problem, text = None, ""
            for attempt in range(4):
                d = os.path.join(c.shared, "t%d.%d" % (trial, attempt))
                cwd = os.path.join(d, "cwd")
                os.makedirs(cwd)
                for h in HOSTS:
                    if not c.alive(h):
                        c.start_host(h)
                    c.remove_local(h)
                env = dict(base, CCC_DIR=os.path.join(d, "ckpt"),
                           CCC_INTERVAL=a.interval, CCC_VERBOSE="1")
                if a.mode == "local":
                    env["CCC_LOCAL_DIR"] = c.local_dir
                sup = [ckpt, "run", "--hosts", ",".join(HOSTS),
                       "--probe", probe + " {}", "--probe-timeout",
                       "10", "--retries", "3", "--backoff", "0.5",
                       "--stdout", "stdout"]
                if a.late_probe:
                    sup += ["--hang-timeout", "8"]
                sup.append("--")
                errpath = os.path.join(d, "ckpt_run.err")
                with open(errpath, "wb") as err:
                    p = c.popen("h1", sup + job(c, a.mpi, exe, [a.steps], env),
                                env=env, cwd=cwd, stdout=err, stderr=err)
                t_start = time.monotonic()
                armed = node_loss.await_loss(
                    p, t_start, env["CCC_DIR"], ref_time,
                    rng.uniform(0, 0.6) * 0.5 ** attempt, a.timeout)
                with open(errpath, errors="replace") as f:
                    text = f.read()
                if p.poll() is not None:
                    if p.returncode == 0 and armed:
                        print("[%s] trial %d: the job ended before the "
                              "loss; again, earlier" % (name, trial),
                              flush=True)
                        continue
                    problem = "ckpt run ended (%d) before the loss:\n%s" % (
                        p.returncode, text[-3000:])
                    break
                kill_at = time.monotonic() - t_start
                if a.late_probe:
                    # Before the loss: the attempt fails, and ckpt run
                    # probes, as soon as h2's rank is gone.
                    open(lie, "w").close()
                c.kill_host(LOST)
                c.remove_local(LOST)
                try:
                    rc = p.wait(a.timeout)
                except subprocess.TimeoutExpired:
                    rc = None
                    with open(errpath, "a") as f:
                        f.write("---- processes at the timeout ----\n" +
                                processes(c))
                    p.kill()
                    p.wait()
                with open(errpath, errors="replace") as f:
                    text = f.read()
                if rc != 0:
                    problem = "ckpt run %s after the loss:\n%s" % (
                        "timed out" if rc is None else "exited %d" % rc,
                        text[-3000:])
                else:
                    problem = node_loss.judge_supervised(text, LOST, cwd,
                                                         ref)
                if not problem and a.late_probe:
                    problem = late_probe_problem(text, lie)
                break
            else:
                problem = "the job ended before the loss 4 times"
            for h in HOSTS:
                if c.alive(h):
                    c.kill_jobs(h)
            failures += bool(problem)
            node_loss.report_trial(name, trial, problem, d, text, LOST,
                                   kill_at if not problem else 0)
    return node_loss.finish(c, a, name, failures, seed, work)


if __name__ == "__main__":
    sys.exit(main())
