"""The first image a program writes: runs it with timer checkpoints in a
fresh checkpoint directory and yields that image's path (or exits with a
FAIL message if the program failed or took no checkpoint)."""
import contextlib
import glob
import os
import shutil
import subprocess
import sys
import tempfile


@contextlib.contextmanager
def first_image(cmd, interval="0.05"):
    d = tempfile.mkdtemp(prefix="ccc-image-")
    try:
        r = subprocess.run(cmd, env=dict(os.environ, CCC_DIR=d,
                                         CCC_INTERVAL=interval),
                           capture_output=True, text=True, timeout=300)
        images = sorted(glob.glob(os.path.join(d, "*.ccc")))
        if r.returncode != 0 or not images:
            sys.exit("FAIL: the program failed or took no checkpoint:\n" +
                     r.stderr)
        yield images[0]
    finally:
        shutil.rmtree(d, ignore_errors=True)
