#!/usr/bin/env python3
"""Incremental images: what they store, what pruning keeps, what a restart
reads, and what happens when an image they refer to is damaged.

usage: incremental_test.py PROGRAM PLAIN_PROGRAM CKPT

PROGRAM is mostly_unchanged_state built with ccc (48 MiB written once, 1 MiB
rewritten every step), PLAIN_PROGRAM the same source without the pass. Runs
with a forced checkpoint at every step, CCC_FULL_EVERY=4 and CCC_KEEP=2, so
versions 9 (full), 10, 11, 12 (incremental) form the chain of the two kept
versions 11 and 12.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

prog, plain, ckpt = sys.argv[1:4]
STEPS = 12
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def run(d, *extra_env, args=(str(STEPS), "force")):
    env = dict(os.environ, CCC_DIR=d, CCC_NAME="inc", CCC_FULL_EVERY="4",
               CCC_KEEP="2", CCC_VERBOSE="1", CCC_INTERVAL="0")
    for e in extra_env:
        k, v = e.split("=", 1)
        env[k] = v
    return subprocess.run([prog, *args], env=env, capture_output=True,
                          text=True, timeout=300)


def versions(d, suffix):
    return sorted(int(re.search(r"\.v(\d+)\.", os.path.basename(p)).group(1))
                  for p in glob.glob(os.path.join(d, "inc.v*" + suffix)))


def image(d, v):
    return os.path.join(d, "inc.v%06d.r0.ccc" % v)


ref = subprocess.run([plain, str(STEPS)], capture_output=True, text=True,
                     timeout=300).stdout
top = tempfile.mkdtemp(prefix="ccc-inc-")
try:
    # 1. A run that checkpoints at every step.
    d = os.path.join(top, "a")
    r = run(d)
    check(r.returncode == 0 and r.stdout == ref,
          "checkpointed run completes with the plain build's output")
    check(versions(d, ".commit") == [11, 12],
          "commit records of the two kept versions remain: %s"
          % versions(d, ".commit"))
    check(versions(d, ".r0.ccc") == [9, 10, 11, 12],
          "images 9..12 remain (the chain of 11 and 12 starts at full image "
          "9): %s" % versions(d, ".r0.ccc"))
    info = {v: subprocess.run([ckpt, "info", image(d, v)], capture_output=True,
                              text=True).stdout
            for v in versions(d, ".r0.ccc")}
    check("image kind: full" in info.get(9, ""), "version 9 is a full image")
    check(re.search(r"image kind: incremental, 3 since the last full image.*"
                    r"taken from versions 9\.\.11", info.get(12, "")) is not None,
          "version 12 is the third incremental image after 9")
    full, inc = os.path.getsize(image(d, 9)), os.path.getsize(image(d, 12))
    check(inc * 5 < full,
          "incremental image %d bytes < 1/5 of the full image's %d" % (inc, full))
    m = re.findall(r"checkpoint 12 committed: .* (\d+) bytes of memory stored, "
                   r"(\d+) unchanged", r.stderr)
    check(bool(m) and int(m[0][1]) >= 48 << 20 and int(m[0][0]) < 4 << 20,
          "checkpoint 12 stored < 4 MiB of memory and took >= 48 MiB "
          "unchanged: %s" % (m,))
    v = subprocess.run([ckpt, "verify", image(d, 12)], capture_output=True,
                       text=True)
    check(v.returncode == 0 and "chunks it takes from versions 9..11 match"
          in v.stdout, "ckpt verify checks the chunks taken from 9..11")

    j = subprocess.run([ckpt, "info", "--json", image(d, 12)],
                       capture_output=True, text=True)
    info12 = json.loads(j.stdout) if j.returncode == 0 else {}
    check(info12.get("chain_base") == 9 and info12.get("chain_length") == 3
          and info12.get("chunk_bytes_referenced", 0) >= 48 << 20,
          "ckpt info --json: chain base 9, length 3, >= 48 MiB referenced")
    j = subprocess.run([ckpt, "diff", "--json", image(d, 11), image(d, 12)],
                       capture_output=True, text=True)
    diff = json.loads(j.stdout) if j.returncode == 0 else {}
    heap = diff.get("heap", {})
    same = heap.get("unchanged", {}).get("bytes", 0)
    changed = heap.get("changed", {}).get("bytes", 0)
    check(same >= 48 << 20 and (1 << 20) <= changed <= (5 << 20) // 4,
          "ckpt diff 11 12: the table unchanged (%d bytes), the 1 MiB state "
          "changed (%d bytes)" % (same, changed))
    pieces = diff.get("changed_pieces", [])
    # Bytes of changed chunks: the table's last chunk may hold the state's
    # first bytes, and the state's block ends with its page's slack.
    check(any(p["kind"] == "heap block" and
              1 << 20 <= p["bytes"] <= (1 << 20) + (64 << 10) for p in pieces)
          and all(p["bytes"] <= (1 << 20) + (64 << 10) for p in pieces),
          "ckpt diff 11 12 by piece: the 1 MiB state block changed whole, "
          "of the 48 MiB table at most the chunk it shares (%s)" % pieces)
    t = subprocess.run([ckpt, "diff", image(d, 11), image(d, 12)],
                       capture_output=True, text=True).stdout
    check(re.search(r"^heap\s+\d+ \(48\.\d MiB\)\s+1[67] \(1\.0 MiB\)", t, re.M)
          is not None, "ckpt diff prints the same per section")

    # 2. Restart from the incremental version 12.
    b = os.path.join(top, "b")
    shutil.copytree(d, b)
    r = run(b, "CCC_RESTART=require")
    check(r.returncode == 0 and r.stdout == ref and
          "restarting from" in r.stderr and "(checkpoint 12)" in r.stderr,
          "restart from incremental version 12 gives the plain output")

    # 3. A damaged image the chain refers to (9 holds the table both kept
    # versions take unchanged): the restart must refuse with a ccc: message
    # naming it and delete nothing.
    for how in ("corrupt", "truncate"):
        c = os.path.join(top, how)
        shutil.copytree(d, c)
        with open(image(c, 9), "r+b") as f:
            if how == "truncate":
                f.truncate(os.path.getsize(image(c, 9)) // 2)
            else:
                f.seek(os.path.getsize(image(c, 9)) // 2)
                b0 = f.read(1)
                f.seek(-1, 1)
                f.write(bytes([b0[0] ^ 0xFF]))
        before = sorted(os.listdir(c))
        r = run(c, "CCC_RESTART=require")
        check(r.returncode != 0 and "ccc: cannot restart from" in r.stderr and
              "inc.v000009.r0.ccc" in r.stderr and
              "no usable checkpoint" in r.stderr,
              "%s image 9: restart refused, naming it" % how)
        check(sorted(os.listdir(c)) == before,
              "%s image 9: nothing deleted" % how)
        v = subprocess.run([ckpt, "verify", image(c, 12)], capture_output=True,
                           text=True)
        check(v.returncode == 1 and "inc.v000009.r0.ccc" in v.stderr,
              "%s image 9: ckpt verify of 12 fails naming it" % how)

    # 4. CCC_FULL_EVERY=1: every image is full.
    e = os.path.join(top, "e")
    r = run(e, "CCC_FULL_EVERY=1")
    sizes = [os.path.getsize(image(e, v)) for v in versions(e, ".r0.ccc")]
    check(r.returncode == 0 and versions(e, ".r0.ccc") == [11, 12] and
          min(sizes) * 2 > max(sizes),
          "CCC_FULL_EVERY=1 keeps only 11 and 12, both full: %s" % sizes)
finally:
    shutil.rmtree(top, ignore_errors=True)

print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
