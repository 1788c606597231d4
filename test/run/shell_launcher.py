"""What the launcher tests of `ckpt run` share (launcher_outlives_test.py,
launch_hang_test.py): a job whose launcher is a shell script, run under
`ckpt run` in a directory of its own."""
import os
import subprocess
import tempfile
import time


def run(ckpt, prefix, options, launcher, argv):
    """Runs `ckpt run OPTIONS --stdout TOP/out -- sh -c LAUNCHER ARGV...` in
    a new directory TOP (named after prefix, in the current directory),
    with CCC_DIR in it and a checkpoint every 0.3 s; prints what ckpt run
    said. Returns (TOP, its standard error, its exit status or "timeout"
    after 150 s)."""
    top = tempfile.mkdtemp(prefix=prefix, dir=os.getcwd())
    env = dict(os.environ, CCC_DIR=os.path.join(top, "ckpt"),
               CCC_INTERVAL="0.3")
    t0 = time.monotonic()
    try:
        r = subprocess.run(
            [ckpt, "run", *options, "--stdout", os.path.join(top, "out"),
             "--", "sh", "-c", launcher, *argv], cwd=top, env=env,
            stderr=subprocess.PIPE, universal_newlines=True, timeout=150)
        err, rc = r.stderr, r.returncode
    except subprocess.TimeoutExpired as e:
        err, rc = (e.stderr or b"").decode(errors="replace"), "timeout"
    print("--- %s (%.1f s)\n%s" % (os.path.basename(top),
                                   time.monotonic() - t0, err), flush=True)
    return top, err, rc
