#!/usr/bin/env python3
"""The heap section's codec is chosen by measurement and recorded.

usage: codec_choice_test.py DOUBLES_PROGRAM RANDOM_PROGRAM CKPT MIXED_PROGRAM
                           RECORDS_PROGRAM KINDS_PROGRAM

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
codec there) and smaller than with zstd+shuffle8, verify, and restart with
the uninterrupted result.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

doubles, random_words, ckpt, mixed, records, kinds = sys.argv[1:7]
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
    always = first_image(doubles, ["40"], os.path.join(top, "always"),
                         CCC_SHUFFLE="always")
    if auto and never and always:
        # For the section, or per block for the arrays (the rest of the
        # heap, allocator pages, coded as its own samples measure).
        check(heap_codec(auto) in ("zstd+diff8+shuffle8", "zstd+per-block"),
              "doubles: heap stored as zstd+diff8+shuffle8 or per block (%s)"
              % heap_codec(auto))
        check(heap_codec(never) == "zstd", "CCC_SHUFFLE=never: plain zstd")
        check(heap_codec(always) == "zstd+shuffle8",
              "CCC_SHUFFLE=always: zstd+shuffle8")
        a, n = os.path.getsize(auto), os.path.getsize(never)
        w = os.path.getsize(always)
        check(a * 1.3 < n and a < w, "image %d bytes: 1.3x smaller than "
              "%d (never), smaller than %d (shuffle alone)" % (a, n, w))
        v = subprocess.run([ckpt, "verify", auto], capture_output=True)
        check(v.returncode == 0, "diff+shuffle image verifies")
        # Run again: it restarts from its newest image (diff+shuffle coded).
        ok, out = restart_same(doubles, ["40"], os.path.dirname(auto))
        check(ok, "restart from the diff+shuffle image: same result (%s)" %
              out)
    auto = first_image(records, ["200"], os.path.join(top, "rec"))
    never = first_image(records, ["200"], os.path.join(top, "rec-never"),
                        CCC_SHUFFLE="never")
    always = first_image(records, ["200"], os.path.join(top, "rec-always"),
                         CCC_SHUFFLE="always")
    if auto and never and always:
        # The array's blocks as 64-byte records: the section's codec, or
        # theirs under the per-block codec (the rest of the heap plain).
        check(heap_codec(auto) in ("zstd+shuffle64", "zstd+per-block"),
              "records: heap stored as zstd+shuffle64 or per block (%s)" %
              heap_codec(auto))
        a, n = os.path.getsize(auto), os.path.getsize(never)
        w = os.path.getsize(always)
        check(a * 1.1 < n and a < w, "records image %d bytes: 1.1x smaller "
              "than %d (never), smaller than %d (shuffle8)" % (a, n, w))
        v = subprocess.run([ckpt, "verify", auto], capture_output=True)
        check(v.returncode == 0, "records image verifies")
        ok, out = restart_same(records, ["200"], os.path.dirname(auto))
        check(ok, "restart from the records image: same result (%s)" % out)
    # Every image kept: the first is the full one.
    auto = first_image(kinds, ["200"], os.path.join(top, "kinds"),
                       CCC_KEEP="1000")
    never = first_image(kinds, ["200"], os.path.join(top, "kinds-never"),
                        CCC_SHUFFLE="never", CCC_KEEP="1000")
    always = first_image(kinds, ["200"], os.path.join(top, "kinds-always"),
                         CCC_SHUFFLE="always", CCC_KEEP="1000")
    if auto and never and always:
        check(heap_codec(auto) == "zstd+per-block",
              "two kinds: heap stored as zstd+per-block (%s)" %
              heap_codec(auto))
        a, n = os.path.getsize(auto), os.path.getsize(never)
        w = os.path.getsize(always)
        check(a * 4 <= n * 3 and a < w, "two kinds image %d bytes: at most "
              "3/4 of %d (never), smaller than %d (shuffle8)" % (a, n, w))
        v = subprocess.run([ckpt, "verify", auto], capture_output=True)
        check(v.returncode == 0, "per-block image verifies")
        ok, out = restart_same(kinds, ["200"], os.path.dirname(auto))
        check(ok, "restart from the per-block image: same result (%s)" % out)
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
