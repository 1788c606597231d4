#!/usr/bin/env python3
"""The heap section's codec is chosen by measurement and recorded.

usage: codec_choice_test.py DOUBLES_PROGRAM RANDOM_PROGRAM CKPT MIXED_PROGRAM
                           RECORDS_PROGRAM KINDS_PROGRAM ARRAYS_PROGRAM

DOUBLES_PROGRAM (large_state: 160 MiB of sin() doubles) must get
zstd+diff8+shuffle8 (a smooth field: neighbours differ in low bits; for the
section or, per block, for its arrays), an image at least 1.3x smaller than with CCC_SHUFFLE=never and smaller than
with CCC_SHUFFLE=always (zstd+shuffle8 alone), and a restart from it must
give the uninterrupted result; RANDOM_PROGRAM (mostly_unchanged_state: xorshift words,
which shuffling does not help) must keep plain zstd. Both images verify.
MIXED_PROGRAM (changing_doubles_beside_random: 32 MiB of random words
written once, 2 MiB of doubles rewritten every step) must get plain zstd in
its full image and a shuffled codec in its incremental ones, which store
only the doubles; they verify too. RECORDS_PROGRAM (particle_records: an
array of 64-byte structs) must get zstd+shuffle64 (for the section or, per
block, for the array), an image at least 1.1x smaller than plain zstd and
smaller than zstd+shuffle8 (which only the records' shuffle reaches), and a restart from
it must give the uninterrupted result. KINDS_PROGRAM (field_beside_table: a
smooth field and a table of 16 values, 8 MiB each) must get zstd+per-block
in its full image, at most 3/4 of the image with plain zstd (the best single
codec there) and smaller than with zstd+shuffle8, verify (ckpt verify
counting blocks of both codecs), and restart with the uninterrupted result.
ARRAYS_PROGRAM (arrays_among_tables: a 16 MiB smooth field and four 272 KiB
smooth arrays among 2 MiB of small tables) must code every array block
under differences+shuffle, the ones its samples missed too (272 blocks or
more), and the tables plain (32 blocks or more).
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

doubles, random_words, ckpt, mixed, records, kinds, arrays = sys.argv[1:8]
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


def restart_same(prog, args, d):
    """Runs PROG again in D: it must restart from its newest image and print
    what a run without ccc prints."""
    again = subprocess.run([prog, *args], capture_output=True, text=True,
                           timeout=300,
                           env=dict(os.environ, CCC_DIR=d, CCC_INTERVAL="0",
                                    CCC_RESTART="require"))
    plain = subprocess.run([prog, *args], capture_output=True, text=True,
                           timeout=300, env=dict(os.environ, CCC_DISABLE="1"))
    return (again.returncode == 0 and again.stdout == plain.stdout and
            plain.stdout.strip() != "", again.stdout.strip())


def blocks_per_codec(img):
    """ckpt verify's count of a per-block heap's blocks, per codec."""
    out = subprocess.run([ckpt, "verify", img], capture_output=True,
                         text=True).stdout
    m = re.search(r"^heap: blocks of \d+ bytes coded (.*)$", out, re.M)
    pairs = re.findall(r"(\d+) (\S+)", m.group(1)) if m else []
    return {codec: int(n) for n, codec in pairs}


def heap_codec(img):
    out = subprocess.run([ckpt, "info", img], capture_output=True,
                         text=True).stdout
    m = re.search(r"^heap\s+(\S+)", out, re.M)
    return m.group(1) if m else None


def incremental(img):
    out = subprocess.run([ckpt, "info", img], capture_output=True,
                         text=True).stdout
    return re.search(r"^image kind:\s+incremental", out, re.M) is not None


def three_ways(name, prog, args, codecs, ratio, **env):
    """Runs PROG ARGS with the codec measured and with CCC_SHUFFLE=never and
    =always: the measured image's heap must be coded with one of CODECS,
    the image be RATIO times smaller than never's (plain zstd) and smaller
    than always's (zstd+shuffle8), verify, and a restart from it must give
    the uninterrupted result."""
    d = os.path.join(top, name)
    auto = first_image(prog, args, d, **env)
    never = first_image(prog, args, d + "-never", CCC_SHUFFLE="never", **env)
    always = first_image(prog, args, d + "-always", CCC_SHUFFLE="always",
                         **env)
    if not (auto and never and always):
        return
    check(heap_codec(auto) in codecs, "%s: heap stored as %s (%s)" %
          (name, " or ".join(codecs), heap_codec(auto)))
    check(heap_codec(never) == "zstd", "%s: CCC_SHUFFLE=never: plain zstd" %
          name)
    check(heap_codec(always) == "zstd+shuffle8",
          "%s: CCC_SHUFFLE=always: zstd+shuffle8" % name)
    a, n = os.path.getsize(auto), os.path.getsize(never)
    w = os.path.getsize(always)
    check(a * ratio <= n and a < w, "%s: image %d bytes, %gx smaller than "
          "%d (never), smaller than %d (shuffle8)" % (name, a, ratio, n, w))
    v = subprocess.run([ckpt, "verify", auto], capture_output=True)
    check(v.returncode == 0, "%s: image verifies" % name)
    # Run again: it restarts from its newest image, coded the same way.
    ok, out = restart_same(prog, args, d)
    check(ok, "%s: restart, same result (%s)" % (name, out))


top = tempfile.mkdtemp(prefix="ccc-codec-")
try:
    # The codec for the section, or per block for the arrays (the rest of
    # the heap, allocator pages, coded as its own samples measure); the
    # size checks require the arrays' codec.
    three_ways("doubles", doubles, ["40"],
               ("zstd+diff8+shuffle8", "zstd+per-block"), 1.3)
    three_ways("records", records, ["200"],
               ("zstd+shuffle64", "zstd+per-block"), 1.1)
    # Every image kept: the first is the full one.
    three_ways("two kinds", kinds, ["200"], ("zstd+per-block",), 4 / 3,
               CCC_KEEP="1000")
    img = first_image(kinds, ["200"], os.path.join(top, "kinds-blocks"),
                      CCC_KEEP="1000")
    if img:
        b = blocks_per_codec(img)
        check(b.get("zstd", 0) >= 128 and
              b.get("zstd+diff8+shuffle8", 0) >= 128,
              "two kinds: the table's 128 blocks plain, the field's 128 "
              "under differences+shuffle (%s)" % b)
    img = first_image(arrays, ["60"], os.path.join(top, "arrays"),
                      CCC_KEEP="1000")
    if img:
        b = blocks_per_codec(img)
        check(b.get("zstd+diff8+shuffle8", 0) >= 272 and
              b.get("zstd", 0) >= 32,
              "arrays among tables: 272 array blocks under "
              "differences+shuffle, sampled or not, 32 table blocks plain "
              "(%s)" % b)
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
    shuffled = ("zstd+shuffle8", "zstd+diff8+shuffle8")
    check(bool(incr) and all(heap_codec(i) in shuffled for i in incr),
          "mixed heap: incremental images shuffled (%s)" %
          ", ".join(sorted(set(heap_codec(i) for i in incr))))
    for i in incr[:2]:
        v = subprocess.run([ckpt, "verify", i], capture_output=True)
        check(v.returncode == 0, "%s verifies" % os.path.basename(i))
finally:
    shutil.rmtree(top, ignore_errors=True)
print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
