#!/usr/bin/env python3
"""Pruning spread over the ranks keeps every committed version restorable
and leaves nothing older behind (CCC_KEEP=2, a checkpoint every 100 ms).

Each rank deletes its own images and logs; rank 0 only commit records.
For each protocol, and for node-local storage flushing every third version
to CCC_DIR, a job is run until version 3 is committed, SIGKILLed, and
restarted to its end. All along, the directories are sampled:

 - every version whose commit record is there before and after a listing
   of the images has, in that listing, every rank's image, the oldest
   image that one refers to (its header's chain base) and, under the
   non-blocking protocol, every rank's log;
 - there are never more than CCC_KEEP + 1 commit records (+1 for the
   newest flushed version).

At the end the restarted job printed what the plain build prints, CCC_KEEP
commit records are left (and the newest flushed one), and no rank has an
image older than the chain bases of its kept images or a log older than
the oldest kept version: the killed run's files, committed or not, are
gone.

(Command line: restart_case.py.)
"""
import glob
import os
import re
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from restart_case import (Checks, Run, finish, mpi_env, parse,  # noqa: E402
                          plain_reference)

a, launch, cmd = parse()
check = Checks()
NAME = "prunejob"
KEEP = 2
KILL_AT = 3  # the first run is killed once version 3 is committed
NP = int(a.np)
FILE = re.compile(re.escape(NAME) + r"\.v(\d+)\.(?:r(\d+)\.(ccc|log)|commit)$")


def listing(d):
    """{(kind, version, rank)} of d's files; kind 'ccc', 'log' or 'commit'
    (rank -1)."""
    out = set()
    for f in os.listdir(d) if os.path.isdir(d) else []:
        m = FILE.match(f)
        if m:
            out.add((m.group(3) or "commit", int(m.group(1)),
                     int(m.group(2)) if m.group(2) else -1))
    return out


def commits(d):
    return {v for k, v, _ in listing(d) if k == "commit"}


def chain_base(d, v, rank):
    """The chain base in the header of rank's image of v, or None."""
    p = os.path.join(d, "%s.v%06d.r%d.ccc" % (NAME, v, rank))
    try:
        with open(p, "rb") as f:
            head = f.read(64)
    except OSError:
        return None
    if len(head) < 64:
        return None
    version, = struct.unpack_from("<Q", head, 16)
    base, = struct.unpack_from("<Q", head, 56)
    return base if version == v and base <= v else None


def restorable(shared, images, v, logs):
    """Why version v cannot be restored from images (a directory) and
    shared (its commit records), or None."""
    files = listing(images)
    for r in range(NP):
        if ("ccc", v, r) not in files:
            return "rank %d has no image of version %d" % (r, v)
        if logs and ("log", v, r) not in files:
            return "rank %d has no log of version %d" % (r, v)
        base = chain_base(images, v, r)
        if base is None:
            return "rank %d's image of %d has no readable header" % (r, v)
        if ("ccc", base, r) not in files:
            return "rank %d's image of %d refers to %d, which is gone" % (
                r, v, base)
    return None


class Sampler:
    """Checks the directories each time sample() is called."""

    def __init__(self, shared, images, logs, flush_every):
        self.shared, self.images, self.logs = shared, images, logs
        self.flush_every = flush_every
        self.problems = []
        self.samples = 0

    def complete(self, files, v):
        return all(("ccc", v, r) in files and
                   (not self.logs or ("log", v, r) in files)
                   for r in range(NP))

    def sample(self):
        before = commits(self.shared)
        limit = KEEP + 1 + (1 if self.flush_every else 0)
        if len(before) > limit:
            self.problems.append("%d commit records: %s" % (
                len(before), sorted(before)))
        # A record there before and after the listings was there all
        # through them; then nothing of its version may be missing (a
        # flushed version's files may be in CCC_DIR only).
        files = listing(self.images)
        flushed = listing(self.shared) if self.flush_every else set()
        after = commits(self.shared)
        for v in sorted(before & after):
            if not self.complete(files, v) and not (
                    self.flush_every and v % self.flush_every == 0 and
                    self.complete(flushed, v)):
                self.problems.append("version %d committed, files missing"
                                     % v)
        self.samples += 1


def run_sampled(argv, env, log, sampler, kill_at=None, timeout=180):
    """Runs argv, sampling; SIGKILLs it once the newest commit is kill_at.
    (exit status or None if killed, Run)."""
    r = Run(argv, env, log)
    deadline = time.monotonic() + timeout
    while r.p.poll() is None and time.monotonic() < deadline:
        sampler.sample()
        if kill_at and max(commits(sampler.shared), default=0) >= kill_at:
            r.kill()
            return None, r
        time.sleep(0.005)
    if r.p.poll() is None:
        r.kill()
        return None, r
    return r.p.returncode, r


def left_over(shared, images, logs, flush_every):
    """What the end of a job must not leave behind, as a list of reasons."""
    bad = []
    kept = sorted(commits(shared), reverse=True)
    flushed = [v for v in kept if flush_every and v % flush_every == 0]
    window = kept[:KEEP]
    extra = set(kept) - set(window) - set(flushed[:1])
    if len(window) != KEEP or extra:
        bad.append("commit records %s, expected the %d newest%s" % (
            sorted(kept), KEEP, " and the newest flushed" if flush_every
            else ""))
    for v in window:
        why = restorable(shared, images, v, logs)
        if why:
            bad.append(why)
    files = listing(images)
    for r in range(NP):
        bases = [chain_base(images, v, r) for v in window]
        floor = min([b for b in bases if b is not None] + window)
        for kind, v, rank in sorted(files):
            if rank != r:
                continue
            if kind == "ccc" and v < floor:
                bad.append("rank %d's image of %d left (kept versions need "
                           "%d and newer)" % (r, v, floor))
            if kind == "log" and v < min(window):
                bad.append("rank %d's log of %d left" % (r, v))
            if v > max(window):
                bad.append("rank %d's %s of %d, newer than every commit, "
                           "left" % (r, kind, v))
    if flush_every and flushed:
        f = flushed[0]
        why = restorable(shared, shared, f, logs)
        if why:
            bad.append("flushed: " + why)
        have = listing(shared)
        for r in range(NP):
            base = chain_base(shared, f, r)
            for kind, v, rank in sorted(have):
                if rank == r and kind != "commit" and \
                        v < (base if kind == "ccc" and base else f):
                    bad.append("flushed %s of rank %d, version %d, left" % (
                        kind, r, v))
    return bad


work = tempfile.mkdtemp(prefix="ccc-pruning-")
base_env = dict(os.environ, CCC_NAME=NAME, CCC_KEEP=str(KEEP),
                CCC_INTERVAL="0.1", **mpi_env())
ref = plain_reference(a.ref, base_env, work)
check(ref.returncode == 0 and ref.stdout, "the plain reference runs")

cases = (("blocking", False), ("nonblocking", False), ("nonblocking", True))
for protocol, local in cases:
    tag = "%s%s: " % (protocol, ", CCC_LOCAL_DIR" if local else "")
    name = protocol + ("-local" if local else "")
    shared = os.path.join(work, name)
    env = dict(base_env, CCC_DIR=shared, CCC_PROTOCOL=protocol)
    images = shared
    flush_every = 0
    if local:
        images = os.path.join(work, name + "-host")
        flush_every = 3
        env.update(CCC_LOCAL_DIR=images, CCC_FLUSH_EVERY=str(flush_every))
    logs = protocol == "nonblocking"
    s = Sampler(shared, images, logs, flush_every)
    status, r = run_sampled(launch + cmd, env,
                            os.path.join(work, name + ".first"), s, kill_at=KILL_AT)
    check(status is None and max(commits(shared), default=0) >= KILL_AT,
          tag + "the first run was killed after version %d's commit" %
          KILL_AT)
    status, r = run_sampled(launch + cmd, env,
                            os.path.join(work, name + ".restart"), s)
    check(status == 0 and "restarting from" in r.stderr(),
          tag + "the second run restarts and ends (exit %s)" % status)
    check(r.stdout() == ref.stdout,
          tag + "it prints what the plain build prints")
    n = len(commits(shared))
    check(not s.problems,
          tag + "%d samples: every committed version's files there, at "
          "most %d commit records%s" % (s.samples, KEEP + 1 + local,
                                        "" if not s.problems else
                                        ": " + "; ".join(s.problems[:5])))
    bad = left_over(shared, images, logs, flush_every)
    check(not bad, tag + "at the end (%d records): only what the kept "
          "versions need%s" % (n, "" if not bad else ": " +
                               "; ".join(bad[:6])))
finish(check, work, [c[0] + ("-local" if c[1] else "") + s
                     for c in cases for s in (".first", ".restart")])
