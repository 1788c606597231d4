#!/usr/bin/env python3
"""Bad supervision settings and bad `ckpt run` usage get clear errors.

  bad_input_test.py PROG CKPT   (PROG: a serial program built with ccc)

Runtime: CCC_INTERVAL=auto without CCC_MTBF, CCC_INJECT, CCC_ON_TERM,
CCC_HEARTBEAT, CCC_PARTNER_PORTS and CCC_FLUSH_EVERY with bad values, an
unwritable CCC_RUN_DIR, CCC_STDOUT and CCC_LOCAL_DIR: each stops the
program at start with a `ccc:` line naming the variable and exit status 3,
and leaves an earlier committed checkpoint in place. Then
CCC_INTERVAL=auto with a CCC_MTBF: the interval it chose is reported.
`ckpt run`: unknown options and fault specs (status 2), no command (2), a
command that cannot be executed (127, not retried), bad host lists and
hostfiles, hosts without {hosts} in the command and the reverse (2); in a
Slurm job, the allocation's node list expanded into {hosts} (with the task
counts) and malformed SLURM_JOB_NODELIST values refused (2).
"""
import os
import subprocess
import sys
import tempfile

PROG, CKPT = sys.argv[1], sys.argv[2]
failures = []


def check(cond, what, detail=""):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        print("     " + detail.strip().replace("\n", "\n     ")[-1500:])
        failures.append(what)


def run(argv, d, timeout=120, **env):
    # Not an enclosing Slurm job's: {hosts} would be taken from it.
    e = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
    e["CCC_DIR"] = os.path.join(d, "ckpt")
    e.update(env)
    return subprocess.run(argv, cwd=d, env=e, capture_output=True, text=True,
                          timeout=timeout)


d = tempfile.mkdtemp(prefix="run_bad_input_", dir=os.getcwd())
# An earlier committed checkpoint that every refusal must leave alone.
r = run([PROG, "50000", "2000"], d, CCC_INTERVAL="0.05", CCC_KEEP="100")
commits = sorted(f for f in os.listdir(os.path.join(d, "ckpt"))
                 if f.endswith(".commit"))
check(r.returncode == 0 and commits, "a first run commits checkpoints",
      r.stderr)

cases = [
    ({"CCC_INTERVAL": "auto"}, "CCC_INTERVAL=auto needs CCC_MTBF"),
    ({"CCC_INTERVAL": "auto", "CCC_MTBF": "-5"},
     "CCC_INTERVAL=auto needs CCC_MTBF"),
    ({"CCC_INJECT": "explode:1"}, "CCC_INJECT=explode:1: expected"),
    ({"CCC_INJECT": "write:0:0"}, "CCC_INJECT=write:0:0: expected"),
    ({"CCC_ON_TERM": "ignore"}, "CCC_ON_TERM=ignore: expected"),
    ({"CCC_HEARTBEAT": "soon"}, "CCC_HEARTBEAT=soon: expected"),
    ({"CCC_RUN_DIR": "/nonexistent/run"}, "CCC_RUN_DIR=/nonexistent/run"),
    # A file where the node-local directory should be (mkdir -p fails
    # even as root).
    ({"CCC_LOCAL_DIR": "/etc/hostname/ccc"},
     "CCC_LOCAL_DIR=/etc/hostname/ccc is not a writable directory"),
    ({"CCC_STDOUT": "/nonexistent/out.txt"},
     "cannot open /nonexistent/out.txt"),
    ({"CCC_FLUSH_EVERY": "-1"}, "CCC_FLUSH_EVERY=-1: expected an integer"),
    ({"CCC_FLUSH_EVERY": "often"},
     "CCC_FLUSH_EVERY=often: expected an integer"),
    ({"CCC_ASYNC": "yes"}, "CCC_ASYNC=yes: expected an integer"),
    ({"CCC_ASYNC_MEMORY": "12X"}, "CCC_ASYNC_MEMORY=12X: expected bytes"),
    ({"CCC_ASYNC_MEMORY": "0"}, "CCC_ASYNC_MEMORY=0: expected bytes"),
]
for ports in ("abc", "70000", "5000-4000", "0-10", "40000-", "-4"):
    cases.append(({"CCC_PARTNER_PORTS": ports},
                  "CCC_PARTNER_PORTS=%s: expected a port or a range" % ports))
for env, msg in cases:
    r = run([PROG, "2000", "200"], d, CCC_RESTART="never", **env)
    what = " ".join("%s=%s" % kv for kv in env.items())
    check(r.returncode == 3 and ("ccc: " + msg) in r.stderr,
          "%s: exit 3 and 'ccc: %s'" % (what, msg),
          "exit %d: %s" % (r.returncode, r.stderr))
left = sorted(f for f in os.listdir(os.path.join(d, "ckpt"))
              if f.endswith(".commit"))
check(left == commits, "the committed checkpoints are all still there")

r = run([PROG, "300000", "2000"], d, CCC_RESTART="never",
        CCC_INTERVAL="auto", CCC_MTBF="0.2")
check(r.returncode == 0 and "CCC_INTERVAL=auto: a checkpoint costs" in
      r.stderr, "CCC_INTERVAL=auto reports the interval it chose", r.stderr)

hostfile = os.path.join(d, "hosts")
with open(hostfile, "w") as f:
    f.write("# nodes\nn1 slots=4\nn2 max=4\n")
for argv, rc, msg in [
        ([CKPT, "run", "--retries", "x", "--", PROG], 2, "not understood"),
        ([CKPT, "run", "--inject", "kill:rank=0", "--", PROG], 2,
         "--inject kill:rank=0: not understood"),
        ([CKPT, "run", "--inject", "random:count=3", "--", PROG], 2,
         "--inject random:count=3: not understood"),
        ([CKPT, "run", "--hang-timeout"], 2, "usage: ckpt run"),
        ([CKPT, "run", "--"], 2, "usage: ckpt run"),
        ([CKPT, "run", "--", "/nonexistent/prog"], 127,
         "cannot run /nonexistent/prog"),
        ([CKPT, "run", "--hosts", "n1,n;2", "--", "echo", "{hosts}"], 2,
         "--hosts n1,n;2: 'n;2' is not a host name"),
        ([CKPT, "run", "--hosts", "n1,n1", "--", "echo", "{hosts}"], 2,
         "host n1 is named twice"),
        ([CKPT, "run", "--hosts", "n1:0", "--", "echo", "{hosts}"], 2,
         "the slots after ':' must be a count above 0"),
        ([CKPT, "run", "--hosts", "n1", "--", PROG], 2,
         "the command has no {hosts} to put them in"),
        ([CKPT, "run", "--", "echo", "{hosts}"], 2,
         "give them with --hosts or --hostfile, or run in a Slurm "
         "allocation"),
        ([CKPT, "run", "--hostfile", hostfile, "--", "echo", "{hosts}"], 2,
         "hosts:3: expected NAME, NAME:SLOTS or NAME slots=SLOTS"),
        ([CKPT, "run", "--hostfile", os.path.join(d, "none"), "--", "echo",
          "{hosts}"], 2, "none: No such file or directory"),
        ([CKPT, "run", "--hosts", "n1", "--hostfile", hostfile, "--", "echo",
          "{hosts}"], 2, "name the hosts once"),
        ([CKPT, "run", "--probe-timeout", "0", "--", PROG], 2,
         "not understood")]:
    r = run(argv, d, timeout=30)
    check(r.returncode == rc and msg in r.stderr,
          "%s: exit %d and '%s'" % (" ".join(argv[1:]), rc, msg),
          "exit %d: %s" % (r.returncode, r.stderr))

# Inside a Slurm allocation {hosts} needs no --hosts: its node list,
# expanded, with the task counts when they say more than one.
for nodes, tasks, want in [
        ("n[01-03,7],x", "1(x5)", "n01,n02,n03,n7,x"),
        ("h[1-4]", "2(x2),1,3", "h1:2,h2:2,h3,h4:3"),
        ("r[1-2]n[08-10]", "1(x6)", "r1n08,r1n09,r1n10,r2n08,r2n09,r2n10"),
        ("h[1-3]", "2(x2)", "h1,h2,h3")]:  # counts that do not fit: unused
    r = run([CKPT, "run", "--", "echo", "{hosts}"], d, timeout=30,
            SLURM_JOB_ID="42", SLURM_JOB_NODELIST=nodes,
            SLURM_TASKS_PER_NODE=tasks)
    check(r.returncode == 0 and r.stdout == want + "\n" and
          "ckpt run: the hosts of Slurm job 42: " + want in r.stderr,
          "SLURM_JOB_NODELIST=%s SLURM_TASKS_PER_NODE=%s: {hosts} is %s"
          % (nodes, tasks, want),
          "exit %d: %s%s" % (r.returncode, r.stdout, r.stderr))
for nodes, msg in [
        ("n[3-1]", "'[3-1]': '3-1' is not N or N-M with N <= M"),
        ("n[1-3", "'[' without ']'"),
        ("n1],n2", "']' without '['"),
        ("n[1-[2]]", "brackets inside brackets"),
        ("n1,,n2", "an empty name"),
        ("n[1-2],n2", "host n2 is named twice"),
        ("n[x]", "'[x]': 'x' is not N or N-M"),
        ("n;[1-2]", "'n;1' is not a host name")]:
    r = run([CKPT, "run", "--", "echo", "{hosts}"], d, timeout=30,
            SLURM_JOB_NODELIST=nodes)
    msg = "the hosts of the Slurm allocation: SLURM_JOB_NODELIST=%s: %s" % (
        nodes, msg)
    check(r.returncode == 2 and msg in r.stderr,
          "SLURM_JOB_NODELIST=%s: exit 2 and '%s'" % (nodes, msg),
          "exit %d: %s" % (r.returncode, r.stderr))

if failures:
    print("%d case(s) failed" % len(failures))
    sys.exit(1)
print("PASS")
