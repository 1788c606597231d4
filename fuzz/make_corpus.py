#!/usr/bin/env python3
"""Seed corpus of the reader fuzzers: real checkpoints of fuzz/seedprog.c.

usage: make_corpus.py OUT [--ckpt-cc PATH]

Builds seedprog.c with ckpt-cc (default: $CCC_PREFIX/bin/ckpt-cc, else the
one on PATH) and runs it under settings that give images of every codec
(raw, zstd, shuffle8, diff8+shuffle8, shuffleR, per-block) and kind (full,
incremental on chunks of 4 KiB), then writes
  OUT/image/*  one seed per image: the image followed by every older image
               it refers to (newest first; image_fuzzer splits them at
               their headers' FileSize)
  OUT/store/*  one seed per commit or completion record (store_fuzzer's
               input: kind byte, then the file's bytes)
Prints the codecs and kinds it got; a few tens of KiB in all.
"""
import os, shutil, struct, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# (name, seedprog flags, checkpoints, environment)
RUNS = [
    ("auto", [], 4, {"CCC_CHUNK_SIZE": "4096"}),
    ("raw", [], 3, {"CCC_COMPRESS": "0", "CCC_CHUNK_SIZE": "4096"}),
    ("always", [], 3, {"CCC_SHUFFLE": "always", "CCC_CHUNK_SIZE": "4096"}),
    ("never", [], 3, {"CCC_SHUFFLE": "never", "CCC_CHUNK_SIZE": "4096"}),
    ("full", [], 2, {"CCC_FULL_EVERY": "1"}),
    ("large", ["-DLARGE"], 2, {"CCC_CHUNK_SIZE": "65536"}),
    ("recs", ["-DRECS"], 1, {}),
]
# Runs whose full images are large (raw): only their incremental images go
# in, alone (the reference path is covered by the other runs).
ALONE = {"raw"}
CODECS = {0: "raw", 1: "zstd", 2: "shuffle8", 3: "diff8+shuffle8",
          4: "shuffleR", 5: "per-block"}


def header(data):
    # ImageHeader (rt/image/ImageFormat.h): Version at 16, SectionCount at 36,
    # ChainBase at 56, FileSize at 208, Sections (48 bytes each) at 216.
    ver, = struct.unpack_from("<Q", data, 16)
    nsec, = struct.unpack_from("<I", data, 36)
    base, = struct.unpack_from("<Q", data, 56)
    codecs = [struct.unpack_from("<I", data, 216 + 48 * i + 4)[0]
              for i in range(min(nsec, 16))]
    return ver, base, codecs


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    out = args[0]
    cc = None
    if "--ckpt-cc" in args:
        cc = args[args.index("--ckpt-cc") + 1]
    elif os.environ.get("CCC_PREFIX"):
        cc = os.path.join(os.environ["CCC_PREFIX"], "bin", "ckpt-cc")
    else:
        cc = shutil.which("ckpt-cc")
    if not cc or not os.path.exists(cc):
        sys.exit("make_corpus: no ckpt-cc (give --ckpt-cc or CCC_PREFIX)")
    for sub in ("image", "store"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    seen_codecs, kinds, total = set(), {"full": 0, "incremental": 0}, 0
    with tempfile.TemporaryDirectory(prefix="ccc-corpus-") as tmp:
        for name, flags, k, env in RUNS:
            exe = os.path.join(tmp, "seed" + "".join(flags))
            if not os.path.exists(exe):
                subprocess.run([cc, "-O1", *flags, "-o", exe,
                                os.path.join(HERE, "seedprog.c")], check=True)
            d = os.path.join(tmp, name)
            e = dict(os.environ, CCC_DIR=d, CCC_NAME="seed", CCC_KEEP="100",
                     **env)
            subprocess.run([exe, str(k)], env=e, check=True,
                           stdout=subprocess.DEVNULL)
            imgs = {}
            for f in sorted(os.listdir(d)):
                p = os.path.join(d, f)
                if f.endswith(".ccc"):
                    data = open(p, "rb").read()
                    imgs[header(data)[0]] = data
                elif f.endswith(".commit") or f.endswith(".completed"):
                    kind = b"c" if f.endswith(".commit") else b"d"
                    with open(os.path.join(out, "store", f"{name}-{f}"),
                              "wb") as o:
                        o.write(kind + open(p, "rb").read())
            for v, data in sorted(imgs.items()):
                _, base, codecs = header(data)
                if name in ALONE and base == v:
                    continue
                seen_codecs.update(c & 0xff for c in codecs)
                kinds["full" if base == v else "incremental"] += 1
                seed = data
                if name not in ALONE:
                    seed += b"".join(imgs[o] for o in sorted(imgs, reverse=True)
                                     if base <= o < v)
                total += len(seed)
                with open(os.path.join(out, "image", f"{name}-v{v}"), "wb") as o:
                    o.write(seed)
    print("corpus: %d bytes; codecs %s; %d full, %d incremental images" %
          (total, ", ".join(CODECS[c] for c in sorted(seen_codecs)),
           kinds["full"], kinds["incremental"]))
    missing = set(CODECS) - seen_codecs
    if missing:
        print("corpus: no image of codec %s" %
              ", ".join(CODECS[c] for c in sorted(missing)))


if __name__ == "__main__":
    main()
