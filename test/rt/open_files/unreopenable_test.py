#!/usr/bin/env python3
"""Files a restart cannot reopen get a `ccc:` message, never a crash.

Cases (unreopenable.c): a pipe, and a file deleted while open, at a
checkpoint: the checkpoint is not taken, the message names the descriptor
and the file, the previous checkpoint stays committed, and a restart after
SIGKILL resumes from it with the log cut back to its size then. At restart:
a file open at the checkpoint that is gone since makes that checkpoint
unusable with a message naming it (exit status, not a signal).
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

PROG = sys.argv[1]
failures = []


def check(cond, what, detail=""):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)
        if detail:
            print(detail[-3000:], flush=True)


def run(cwd, *args):
    env = dict(os.environ, CCC_DIR=os.path.join(cwd, "ckpt"), CCC_VERBOSE="1",
               CCC_INTERVAL="0")
    return subprocess.run([PROG, *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=60)


def commits(cwd):
    return sorted(os.path.basename(c) for c in
                  glob.glob(os.path.join(cwd, "ckpt", "*.commit")))


def log(cwd):
    with open(os.path.join(cwd, "log.txt")) as f:
        return f.read()


work = tempfile.mkdtemp(prefix="ccc-unreopenable-")
kinds = {"pipe": r"descriptor (\d+) \(pipe:\[\d+\]\) is a pipe",
         "deleted": r"descriptor (\d+) \(/\S*/scratch\.tmp \(deleted\)\) is a "
                    r"deleted file"}
for kind, what in kinds.items():
    d = os.path.join(work, kind)
    os.makedirs(d)
    first = run(d, kind, "die")
    refused = re.search(r"ccc: checkpoint 2 not taken: " + what +
                        r", which a restart cannot reopen; close it before "
                        r"the checkpoint site; the previous committed "
                        r"checkpoint is kept", first.stderr)
    check(first.returncode == -9, f"{kind}: first run killed itself "
          f"(exit {first.returncode}, no crash before)", first.stderr)
    check(refused is not None, f"{kind}: second checkpoint refused, naming "
          f"the descriptor and the file", first.stderr)
    check(commits(d) == ["unreopenable.v000001.commit"],
          f"{kind}: only the first checkpoint committed: {commits(d)}")
    check(log(d) == "before\nfirst run\n", f"{kind}: the killed run's log")
    second = run(d, kind)
    check(second.returncode == 0 and
          "ccc: restarting from" in second.stderr and
          "(checkpoint 1)" in second.stderr,
          f"{kind}: restart from checkpoint 1 completes "
          f"(exit {second.returncode})", second.stderr)
    check(second.stdout == "second checkpoint not taken\n",
          f"{kind}: still refused after the restart: {second.stdout!r}")
    check(log(d) == "before\nrestarted\nafter\n",
          f"{kind}: log cut back to the checkpoint, then continued: "
          f"{log(d)!r}")

# At restart: the log open at checkpoint 1 was deleted since.
d = os.path.join(work, "gone")
os.makedirs(d)
first = run(d, "pipe", "die")
check(commits(d) == ["unreopenable.v000001.commit"], "gone: one commit")
os.unlink(os.path.join(d, "log.txt"))
second = run(d, "pipe")
check(second.returncode > 0, f"gone: restart stops with an exit status "
      f"(exit {second.returncode}), not a signal", second.stderr)
check(re.search(r"ccc: cannot restart from \S+v000001\.r0\.ccc: descriptor "
                r"\d+ \(/\S+/gone/log\.txt\) cannot be reopened: No such "
                r"file or directory", second.stderr) is not None,
      "gone: the message names the descriptor and the file", second.stderr)
check(commits(d) == ["unreopenable.v000001.commit"],
      "gone: the checkpoint is kept")

if failures:
    print(f"{len(failures)} failed; files in {work}")
    sys.exit(1)
subprocess.run(["rm", "-rf", work])
