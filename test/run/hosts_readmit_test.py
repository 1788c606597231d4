#!/usr/bin/env python3
"""`ckpt run --hosts`: a lost host that answers again is used again.

  hosts_readmit_test.py CKPT

The probe is a script that fails for the hosts listed in the file `down`;
the job is a shell that records the hosts it was given and fails twice:
its first attempt puts h2 in `down`, its second takes it out. So `ckpt
run` must launch on h1,h2,h3,h4, then without h2 (lost), then with h2
again after the others (a spare now), and finish with status 0, saying
what it did.
"""
import os
import shutil
import subprocess
import sys
import tempfile


def main():
    ckpt = sys.argv[1]
    top = tempfile.mkdtemp(prefix="ckpt_run_readmit_", dir=os.getcwd())
    open(os.path.join(top, "down"), "w").close()
    job = ('echo "{hosts}" >> hosts.log; n=$(wc -l < hosts.log); '
           'case $n in 1) echo h2 > down; exit 1;; 2) : > down; exit 1;; '
           'esac; exit 0')
    r = subprocess.run([ckpt, "run", "--backoff", "0.1", "--run-dir", "run",
                        "--hosts", "h1,h2:2,h3,h4",
                        "--probe", "grep -qx {} down && exit 7; exit 0",
                        "--", "sh", "-c", job], cwd=top,
                       stderr=subprocess.PIPE, universal_newlines=True,
                       timeout=120)
    print(r.stderr)
    with open(os.path.join(top, "hosts.log")) as f:
        launched = f.read().split()
    want = ["h1,h2:2,h3,h4", "h1,h3,h4", "h1,h3,h4,h2:2"]
    failures = []
    if r.returncode != 0:
        failures.append("ckpt run exited %d, not 0" % r.returncode)
    if launched != want:
        failures.append("hosts per attempt %s, not %s" % (launched, want))
    for said in ("host h2 is lost (the probe exited 7): the job goes on "
                 "without it", "host h2 answers again: taken back, after "
                 "the others", "the job goes on on h1,h3,h4,h2:2"):
        if said not in r.stderr:
            failures.append("it does not say '%s'" % said)
    for f in failures:
        print("FAIL " + f)
    if failures:
        sys.exit(1)
    print("PASS: h2 dropped, then taken back as a spare")
    shutil.rmtree(top)


if __name__ == "__main__":
    main()
