#!/usr/bin/env python3
"""A Slurm job loses a node; `ckpt run` carries on in the same allocation.

Usage: slurm_node_loss.py --mpi openmpi|mpich
                          (--install-from BUILD | --prefix P)
                          [--mode shared|local] [--trials N] ...

Slurm over the namespace cluster: 4 hosts (test/harness/netns_cluster.py),
one slurmd on each, slurmctld on h1 (test/harness/slurm_cluster.py, hosts=).
The plain build's uninterrupted run on h1,h2,h3 is the reference, as in
node_loss.py (same program, outputs and checks). Per trial a batch job

    sbatch -N 4 --no-kill job.sh
    job.sh: exec ckpt run --stdout stdout -- mpirun --host {hosts} -np 3 prog

gets all four nodes; `ckpt run` takes its hosts from the allocation
(SLURM_JOB_NODELIST; no --hosts, no --probe), so the ranks run on h1,h2,h3
and h4 is the allocation's spare. Once a checkpoint is committed and after
a random delay, h2 dies with its slurmd and its node-local disk. `ckpt run`
must see the attempt fail, find h2 lost by its srun probe, launch again on
h1,h3,h4 within the same allocation, and the job must end COMPLETED with
stdout and every file byte-identical to the reference's. Between trials h2
comes back with a fresh slurmd and returns to service by itself. A trial
whose job ends before the loss is redone, the loss earlier.
Exit 0 if every trial passed, 77 (skip) where no namespace cluster or no
Slurm can run, 1 otherwise.
"""
import os
import random
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "harness"))
sys.path.insert(0, HERE)
import netns_cluster  # noqa: E402
import node_loss  # noqa: E402
import slurm_cluster  # noqa: E402

HOSTS = ["h1", "h2", "h3", "h4"]
NP = 3
LOST = "h2"

JOB = """#!/bin/sh
# Written by test/cluster/slurm_node_loss.py.
echo "job $SLURM_JOB_ID on $SLURM_JOB_NODELIST, tasks $SLURM_TASKS_PER_NODE"
exec %s
"""


def launcher(c, mpi, prog, args):
    """The MPI command inside the allocation: {hosts} for ckpt run; both
    MPIs start their remote daemons with srun (the job's environment goes
    with them)."""
    if mpi == "openmpi":
        return [node_loss.LAUNCHER[mpi], "--host", "{hosts}", "-np", str(NP),
                "--mca", "btl", "tcp,self,vader",
                "--mca", "btl_tcp_if_include", c.cidr,
                "--mca", "oob_tcp_if_include", c.cidr, prog, *args]
    return [node_loss.LAUNCHER[mpi], "-hosts", "{hosts}", "-n", str(NP),
            "-iface", "eth0", prog, *args]


def node_states(s):
    r = s.run(["sinfo", "-h", "-N", "-o", "%N %T"], check=False)
    return dict(l.split() for l in r.stdout.splitlines() if len(l.split()) == 2)


def wait_all_idle(s, timeout):
    deadline = time.monotonic() + timeout
    while True:
        st = node_states(s)
        if all(st.get(h) == "idle" for h in HOSTS):
            return None
        if time.monotonic() > deadline:
            return "nodes not idle after %.0f s: %s" % (timeout, st)
        time.sleep(0.3)


def main():
    ap = node_loss.supervised_parser(__doc__, trials=1)
    a = ap.parse_args()
    why = node_loss.cannot_run(ap, a) or slurm_cluster.missing()
    if why:
        print("SKIP: " + why)
        return node_loss.SKIP
    seed = a.seed if a.seed is not None else int.from_bytes(os.urandom(4),
                                                            "little")
    rng = random.Random(seed)
    name = "%s.%s.slurm" % (a.mpi, a.mode)
    print("[%s] seed %d (rerun with --seed %d)" % (name, seed, seed),
          flush=True)
    # Short: slurmd's step sockets live under it (107-byte paths).
    work = tempfile.mkdtemp(prefix="ccc-sl-", dir="/var/tmp")
    os.chmod(work, 0o755)  # munged wants its socket's path searchable
    failures = 0
    with netns_cluster.NetnsCluster(work, hosts=len(HOSTS)) as c, \
            slurm_cluster.SlurmCluster(os.path.join(work, "slurm"), hosts=c,
                                       slurmd_timeout=10) as s:
        a.prefix = a.prefix or os.path.join(work, "prefix")
        exe, plain = node_loss.build(a, work)
        ckpt = os.path.join(a.prefix, "bin", "ckpt")
        base = dict(netns_cluster.MPI_ROOT_ENV)

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
                    c.remove_local(h)
                problem = wait_all_idle(s, 90)
                if problem:
                    break
                env = dict(base, CCC_DIR=os.path.join(d, "ckpt"),
                           CCC_INTERVAL=a.interval, CCC_VERBOSE="1")
                if a.mode == "local":
                    env["CCC_LOCAL_DIR"] = c.local_dir
                sup = [ckpt, "run", "--probe-timeout", "10", "--retries",
                       "3", "--backoff", "0.5", "--stdout", "stdout", "--"]
                script = os.path.join(d, "job.sh")
                with open(script, "w") as f:
                    f.write(JOB % " ".join(
                        sup + launcher(c, a.mpi, exe, [a.steps])))
                os.chmod(script, 0o755)
                out = os.path.join(d, "job.out")
                jid = s.sbatch(script, "-N", str(len(HOSTS)), "--no-kill",
                               "--chdir=" + cwd, "--output=" + out, env=env)
                s.wait_state(jid, {"RUNNING"} | slurm_cluster.DONE_STATES, 60)
                t_start = time.monotonic()
                armed = None
                frac = rng.uniform(0, 0.6) * 0.5 ** attempt
                info = s.job_info(jid)
                while info["JobState"] not in slurm_cluster.DONE_STATES:
                    now = time.monotonic()
                    if armed is None and node_loss.committed(env["CCC_DIR"]):
                        armed = now
                        delay = frac * max(ref_time - (now - t_start), 0.2)
                    if armed is not None and now >= armed + delay:
                        break
                    if now - t_start > a.timeout:
                        break
                    time.sleep(0.02)
                    info = s.job_info(jid)
                if info["JobState"] in slurm_cluster.DONE_STATES:
                    if info["JobState"] == "COMPLETED" and armed:
                        print("[%s] trial %d: the job ended before the "
                              "loss; again, earlier" % (name, trial),
                              flush=True)
                        continue
                    problem = "the job ended (%s) before the loss:\n%s" % (
                        info["JobState"], open(out, errors="replace").read()
                        [-3000:])
                    break
                if armed is None:
                    problem = "no commit in %.0f s" % a.timeout
                    break
                kill_at = time.monotonic() - t_start
                c.kill_host(LOST)
                c.remove_local(LOST)
                try:
                    info = s.wait_done(jid, a.timeout)
                except slurm_cluster.SlurmError as e:
                    info = {"JobState": str(e)}
                with open(out, errors="replace") as f:
                    text = f.read()
                if info["JobState"] != "COMPLETED":
                    problem = "the job is %s after the loss:\n%s" % (
                        info["JobState"], text[-3000:])
                elif "ckpt run: the hosts of Slurm job %d: %s" % (
                        jid, ",".join(HOSTS)) not in text:
                    problem = "ckpt run did not take the allocation's " \
                              "hosts:\n" + text[-3000:]
                else:
                    problem = node_loss.judge_supervised(text, LOST, cwd,
                                                         ref)
                break
            else:
                problem = "the job ended before the loss 4 times"
            # The node comes back for the next trial (or the end): a fresh
            # host, its slurmd registers, ReturnToService=2 puts it back.
            if not c.alive(LOST):
                c.start_host(LOST)
                s.start_slurmd(LOST)
            failures += bool(problem)
            node_loss.report_trial(name, trial, problem, d, text, LOST,
                                   kill_at if not problem else 0)
        s.stop()
    return node_loss.finish(c, a, name, failures, seed, work)


if __name__ == "__main__":
    sys.exit(main())
