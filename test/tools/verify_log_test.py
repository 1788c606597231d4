#!/usr/bin/env python3
"""`ckpt verify` on message logs: it reads them with the restart's reader
(rt/store/MessageLog.cpp), so every damage a restart must refuse is refused here
with its reason, and a sound log is counted by kind. The damaged logs keep
a valid checksum where the damage is inside the records: the reader must
check the records themselves, not trust the checksum to have caught it.

usage: verify_log_test.py CKPT
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "fuzz"))
from logfile import (COLL, EVENT, LATE, MAGIC, WILD, block, fnv,  # noqa: E402
                     log_file, record, sound_records)

CKPT = sys.argv[1]
failures = []


def verify(work, name, content):
    path = os.path.join(work, name)
    if content is not None:
        with open(path, "wb") as f:
            f.write(content)
    return subprocess.run([CKPT, "verify", path], capture_output=True,
                          text=True, timeout=60)


def expect_ok(work, name, content, want):
    r = verify(work, name, content)
    if r.returncode != 0 or want not in r.stdout:
        failures.append(name)
        print(f"FAIL {name}: status {r.returncode}, want {want!r}\n"
              f"  out: {r.stdout.strip()}\n  err: {r.stderr.strip()}")
    else:
        print(f"ok   {name}: {r.stdout.strip()}")


def expect_refused(work, name, content, why):
    r = verify(work, name, content)
    err = r.stderr.strip()
    good = (r.returncode == 1 and err.startswith("ccc: message log ") and
            why in err)
    if not good:
        failures.append(name)
        print(f"FAIL {name}: status {r.returncode}, want {why!r}\n"
              f"  out: {r.stdout.strip()}\n  err: {err}")
    else:
        print(f"ok   {name}: {err}")


with tempfile.TemporaryDirectory(prefix="ccc-verify-log-") as work:
    sound = sound_records()
    expect_ok(work, "job.v000002.r1.log", log_file(sound),
              "version 2, rank 1 of 2: 1 late messages, 1 wildcard matches, "
              "1 events, 1 collective results, %d bytes" % len(sound))
    expect_ok(work, "empty.v000002.r1.log", log_file(b""),
              "0 late messages, 0 wildcard matches, 0 events")
    # A log copied under another name: its header is believed only as far
    # as the name agrees.
    expect_refused(work, "job.v000003.r1.log", log_file(sound),
                   "written for version 2, not 3")
    expect_refused(work, "job.v000002.r0.log", log_file(sound),
                   "written by rank 1, not 0")
    expect_refused(work, "magic.v000002.r1.log",
                   log_file(sound, magic=MAGIC ^ 1), "not a ccc message log")
    expect_refused(work, "cut.v000002.r1.log", log_file(sound)[:-3],
                   "truncated or extended")
    expect_refused(work, "header.v000002.r1.log", log_file(sound)[:20],
                   "shorter than its header")
    expect_refused(work, "huge.v000002.r1.log",
                   log_file(sound, nbytes=0x3030303030303030),
                   "truncated or extended")
    expect_refused(work, "sum.v000002.r1.log",
                   log_file(sound, checksum=fnv(sound) ^ 1),
                   "checksum does not match")
    expect_refused(work, "ranks.v000002.r1.log", log_file(sound, ranks=1),
                   "names rank 1 of 1")
    # Damage inside the records, behind a valid checksum.
    expect_refused(work, "kind.v000002.r1.log",
                   log_file(sound + record(9)), "record 4 has unknown kind 9")
    expect_refused(work, "claims.v000002.r1.log",
                   log_file(sound + record(LATE, b"abc", nbytes=1 << 40)),
                   "record 4 claims 1099511627776 bytes where 3 are left")
    expect_refused(work, "wrap.v000002.r1.log",
                   log_file(record(LATE, b"abc", nbytes=(1 << 64) - 8)),
                   "record 0 claims")
    expect_refused(work, "event.v000002.r1.log",
                   log_file(record(EVENT, b"12345678", nvals=3)),
                   "event record 0: 3 values in 8 bytes")
    expect_refused(work, "block.v000002.r1.log",
                   log_file(record(COLL, block(b"xy", claimed=1000))),
                   "collective record 0: a block of 1000 bytes where 2 are "
                   "left")
    expect_refused(work, "blocklen.v000002.r1.log",
                   log_file(record(COLL, b"\x01\x02\x03")),
                   "collective record 0: a block's length is cut short")
    expect_refused(work, "source.v000002.r1.log",
                   log_file(record(LATE, b"x", src=2)),
                   "record 0: source rank 2 in a job of 2")
    expect_refused(work, "negative.v000002.r1.log",
                   log_file(record(WILD, src=-1)),
                   "record 0: source rank -1 in a job of 2")
    expect_refused(work, "tail.v000002.r1.log", log_file(sound + b"\0" * 12),
                   "record 4 is cut short (12 bytes of 40)")
    expect_refused(work, "missing.v000002.r1.log", None,
                   "No such file or directory")

if failures:
    print(f"{len(failures)} failed: {' '.join(failures)}")
    sys.exit(1)
