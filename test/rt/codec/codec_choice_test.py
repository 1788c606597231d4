#!/usr/bin/env python3
"""The heap section's codec is chosen by measurement and recorded.

usage: codec_choice_test.py DOUBLES_PROGRAM RANDOM_PROGRAM CKPT MIXED_PROGRAM

DOUBLES_PROGRAM (large_state: 160 MiB of sin() doubles) must get
zstd+shuffle8, and its image must be at least 1.3x smaller than with
CCC_SHUFFLE=never; RANDOM_PROGRAM (mostly_unchanged_state: xorshift words,
which shuffling does not help) must keep plain zstd. Both images verify.
MIXED_PROGRAM (changing_doubles_beside_random: 32 MiB of random words
written once, 2 MiB of doubles rewritten every step) must get plain zstd in
its full image and zstd+shuffle8 in its incremental ones, which store only
the doubles; they verify too.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

doubles, random_words, ckpt, mixed = sys.argv[1:5]
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def first_image(prog, args, d, **env):
    e = dict(os.environ, CCC_DIR=d, CCC_INTERVAL="0.05", **env)
    r = subprocess.run([prog, *args], env=e, capture_output=True, text=True,
                       timeout=300)
    images = sorted(glob.glob(os.path.join(d, "*.ccc")))
    check(r.returncode == 0 and images, "%s ran and left an image" % prog)
    return images[0] if images else None


def heap_codec(img):
    out = subprocess.run([ckpt, "info", img], capture_output=True,
                         text=True).stdout
    m = re.search(r"^heap\s+(\S+)", out, re.M)
    return m.group(1) if m else None


def incremental(img):
    out = subprocess.run([ckpt, "info", img], capture_output=True,
                         text=True).stdout
    return re.search(r"^image kind:\s+incremental", out, re.M) is not None


top = tempfile.mkdtemp(prefix="ccc-codec-")
try:
    auto = first_image(doubles, ["40"], os.path.join(top, "auto"))
    never = first_image(doubles, ["40"], os.path.join(top, "never"),
                        CCC_SHUFFLE="never")
    if auto and never:
        check(heap_codec(auto) == "zstd+shuffle8",
              "doubles: heap stored as zstd+shuffle8 (%s)" % heap_codec(auto))
        check(heap_codec(never) == "zstd", "CCC_SHUFFLE=never: plain zstd")
        a, n = os.path.getsize(auto), os.path.getsize(never)
        check(a * 1.3 < n, "shuffled image %d bytes, 1.3x smaller than %d"
              % (a, n))
        v = subprocess.run([ckpt, "verify", auto], capture_output=True)
        check(v.returncode == 0, "shuffled image verifies")
    rnd = first_image(random_words, ["300"], os.path.join(top, "random"))
    if rnd:
        check(heap_codec(rnd) == "zstd",
              "random words: heap stays plain zstd (%s)" % heap_codec(rnd))
    d = os.path.join(top, "mixed")
    r = subprocess.run([mixed, "3000"], capture_output=True, text=True,
                       timeout=300, env=dict(os.environ, CCC_DIR=d,
                                             CCC_INTERVAL="0.05",
                                             CCC_KEEP="100"))
    images = sorted(glob.glob(os.path.join(d, "*.ccc")))
    check(r.returncode == 0 and len(images) >= 2,
          "mixed heap: ran and left %d images" % len(images))
    full = [i for i in images if not incremental(i)]
    incr = [i for i in images if incremental(i)]
    check(bool(full) and heap_codec(full[0]) == "zstd",
          "mixed heap: full image plain zstd (%s)" %
          (heap_codec(full[0]) if full else "no full image"))
    check(bool(incr) and all(heap_codec(i) == "zstd+shuffle8" for i in incr),
          "mixed heap: incremental images zstd+shuffle8 (%s)" %
          ", ".join(sorted(set(heap_codec(i) for i in incr))))
    for i in incr[:2]:
        v = subprocess.run([ckpt, "verify", i], capture_output=True)
        check(v.returncode == 0, "%s verifies" % os.path.basename(i))
finally:
    shutil.rmtree(top, ignore_errors=True)
print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
