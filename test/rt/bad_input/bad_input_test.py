#!/usr/bin/env python3
"""Bad input gets a clear `ccc:` error and loses nothing.

Cases: a corrupt byte in the newest image, a truncated newest image (both:
refused, the previous version is used, the result is right); images of a
rebuilt binary and a changed library layout (refused, nothing deleted,
exit 3); an unwritable CCC_DIR
(stops at start); a full disk while checkpointing (checkpoint not taken,
previous one kept, result right); `ckpt verify` on each bad image.
"""
import glob
import os
import resource
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

PROG, REBUILT, CKPT = sys.argv[1], sys.argv[2], sys.argv[3]
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def run(prog, d, **kw):
    env = dict(os.environ, CCC_DIR=d, CCC_VERBOSE="1", CCC_KEEP="10")
    env.update(kw.pop("env", {}))
    return subprocess.run([prog], env=env, capture_output=True, text=True,
                          timeout=120, **kw)


def run_until_commits(d, n):
    """Starts PROG, SIGKILLs it once n versions are committed."""
    env = dict(os.environ, CCC_DIR=d, CCC_VERBOSE="1", CCC_KEEP="10")
    p = subprocess.Popen([PROG], env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    while len(glob.glob(os.path.join(d, "*.commit"))) < n:
        if p.poll() is not None:
            raise SystemExit("program ended before %d commits" % n)
        time.sleep(0.002)
    p.send_signal(signal.SIGKILL)
    p.wait()


def images(d):
    """Committed images, oldest first."""
    return sorted(c[:-len(".commit")] + ".r0.ccc"
                  for c in glob.glob(os.path.join(d, "*.commit")))


work = tempfile.mkdtemp(prefix="ccc-bad-")
reference = run(PROG, os.path.join(work, "ref"), env={"CCC_RESTART": "never"}).stdout
check(reference.startswith("total "), "reference run prints its result")


def damaged(label, damage, reason):
    d = os.path.join(work, label)
    run_until_commits(d, 2)
    newest = images(d)[-1]
    damage(newest)
    v = subprocess.run([CKPT, "verify", newest], capture_output=True, text=True)
    check(v.returncode == 1 and "ccc:" in v.stderr,
          f"{label}: ckpt verify rejects it ({v.stderr.strip()})")
    r = run(PROG, d)
    check(f"ccc: cannot restart from {newest}" in r.stderr and reason in r.stderr,
          f"{label}: restart names the image and the reason '{reason}'")
    check("trying the previous checkpoint" in r.stderr and
          "restarting from" in r.stderr, f"{label}: falls back to the previous version")
    check(r.returncode == 0 and r.stdout == reference,
          f"{label}: result identical to the uninterrupted run")


def flip_byte(path):
    size = os.path.getsize(path)
    with open(path, "r+b") as f:
        f.seek(size - size // 3)  # inside the heap section's payload
        b = f.read(1)
        f.seek(size - size // 3)
        f.write(bytes([b[0] ^ 0x40]))


def truncate(path):
    os.truncate(path, os.path.getsize(path) // 2)


def flip_map_byte(path):
    """A byte of the map section (type 9, read by `ckpt info` only)."""
    with open(path, "r+b") as f:
        head = f.read(216 + 48 * 16)
        count = struct.unpack_from("<I", head, 36)[0]
        for i in range(count):
            kind, _, off, stored = struct.unpack_from("<IIQQ", head, 216 + 48 * i)
            if kind == 9:
                f.seek(off + stored // 2)
                b = f.read(1)
                f.seek(off + stored // 2)
                f.write(bytes([b[0] ^ 0x40]))
                return
    raise SystemExit("no map section in " + path)


damaged("corrupt-byte", flip_byte, "corrupt")
# The map section only tells `ckpt info` where the bytes go: its damage is
# reported, and the image still restarts (nothing it needs is damaged).
d = os.path.join(work, "corrupt-map")
run_until_commits(d, 2)
newest = images(d)[-1]
flip_map_byte(newest)
v = subprocess.run([CKPT, "verify", newest], capture_output=True, text=True)
check(v.returncode == 1 and "ccc:" in v.stderr and "map section" in v.stderr,
      f"corrupt-map: ckpt verify rejects it ({v.stderr.strip()})")
i = subprocess.run([CKPT, "info", newest], capture_output=True, text=True)
check(i.returncode == 1 and "ccc:" in i.stderr and "map section" in i.stderr
      and "heap" in i.stdout,
      f"corrupt-map: ckpt info names the damage, shows the rest ({i.stderr.strip()})")
i = subprocess.run([CKPT, "diff", images(d)[-2], newest], capture_output=True,
                   text=True)
check(i.returncode == 1 and "ccc:" in i.stderr and "map section" in i.stderr
      and "heap" in i.stdout,
      f"corrupt-map: ckpt diff names the damage, shows the rest ({i.stderr.strip()})")
r = run(PROG, d)
check(f"restarting from {newest}" in r.stderr and r.returncode == 0 and
      r.stdout == reference, "corrupt-map: restarts from that image, same result")
damaged("truncated", truncate, "truncated")

# Images written by another build of the program.
d = os.path.join(work, "rebuilt")
run_until_commits(d, 2)
before = sorted(os.listdir(d))
# Same program name, so the rebuilt binary looks for these images.
same_name = {"CCC_NAME": os.path.basename(PROG)}
r = run(REBUILT, d, env=same_name)
check(r.returncode == 3 and "another build" in r.stderr and
      "no usable checkpoint" in r.stderr,
      "rebuilt binary: refused with 'another build', exits 3")
check(sorted(os.listdir(d)) == before, "rebuilt binary: no file deleted or changed")
r = run(REBUILT, d, env=dict(same_name, CCC_RESTART="never"))
check(r.returncode == 0, "rebuilt binary: CCC_RESTART=never starts afresh")

# A changed library layout: a preloaded library moves the others.
d = os.path.join(work, "layout")
run_until_commits(d, 1)
before = sorted(os.listdir(d))
libz = next((p for p in ("/lib/x86_64-linux-gnu/libz.so.1",
                         "/usr/lib/x86_64-linux-gnu/libz.so.1")
             if os.path.exists(p)), None)
if libz:
    r = run(PROG, d, env={"LD_PRELOAD": libz})
    check(r.returncode == 3 and "the image expects 0x" in r.stderr and
          "is mapped at 0x" in r.stderr,
          "changed library layout: refused, naming the library that moved")
    check(sorted(os.listdir(d)) == before, "changed library layout: nothing deleted")
    r = run(PROG, d)
    check(r.returncode == 0 and r.stdout == reference and "restarting from" in r.stderr,
          "changed library layout: the same images restart in the original layout")

# Unwritable CCC_DIR.
blocker = os.path.join(work, "a-file")
open(blocker, "w").close()
r = run(PROG, os.path.join(blocker, "ckpt"))
check(r.returncode == 3 and "is not a writable directory" in r.stderr and
      r.stdout == "", "unwritable CCC_DIR: clear error before the program runs")
if os.geteuid() != 0:
    ro = os.path.join(work, "readonly")
    os.makedirs(ro)
    os.chmod(ro, 0o555)
    r = run(PROG, ro)
    check(r.returncode == 3 and "is not a writable directory" in r.stderr,
          "read-only CCC_DIR: clear error")

# Full disk while checkpointing: a file-size limit makes every write fail.
d = os.path.join(work, "full")
run_until_commits(d, 1)
kept = images(d)


def small_fsize():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))


r = run(PROG, d, preexec_fn=small_fsize)
check(r.returncode == 0 and r.stdout == reference,
      "full disk: the program goes on and its result is right")
check("not taken" in r.stderr and "previous committed checkpoint is kept" in r.stderr,
      "full disk: each failed checkpoint is reported")
check(images(d) == kept and not glob.glob(os.path.join(d, "*.tmp")),
      "full disk: the committed image survives and no partial file remains")
v = subprocess.run([CKPT, "verify", kept[-1]], capture_output=True)
check(v.returncode == 0, "full disk: the surviving image verifies")

if failures:
    print(f"{len(failures)} failure(s); files in {work}")
    sys.exit(1)
shutil.rmtree(work, ignore_errors=True)
