#!/usr/bin/env python3
"""CCC_PARTNER_PORTS: where a rank receives its partner's copies (node-local
storage), for hosts whose firewalls leave only some ports open.

 1. A bad value ends the job with `ccc: CCC_PARTNER_PORTS=...: expected a
    port or a range` (the others are in test/run/bad_input_test.py).
 2. With a range of 4 free ports, both ranks of this host listen on ports
    of the range, different ones (CCC_VERBOSE=2 says which), and the job
    prints what the plain program prints.
 3. One port for two ranks of one host: the job ends, without hanging, with
    a message that the range is taken and needs a port per rank.

(Command line: restart_case.py.)
"""
import os
import re
import socket
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from restart_case import Checks, finish, finished, mpi_env, parse  # noqa: E402
from restart_case import plain_reference  # noqa: E402

a, launch, cmd = parse()
check = Checks()


T0 = time.monotonic()


def say(what):
    print("%5.1f s  %s" % (time.monotonic() - T0, what), flush=True)


def free_range(n):
    """The first port P above 20000 (from this process's pid on) with P ..
    P+n-1 all free now."""
    base = 20000 + (os.getpid() * 7) % 30000
    for p in range(base, 65000 - n, n):
        socks = []
        try:
            for q in range(p, p + n):
                s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
                socks.append(s)
                s.bind(("::", q))
            return p
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
    sys.exit("no 4 free ports in a row")


work = tempfile.mkdtemp(prefix="ccc-partner-ports-")
env = dict(os.environ, CCC_DIR=os.path.join(work, "ckpt"),
           CCC_LOCAL_DIR=os.path.join(work, "local"), CCC_INTERVAL="0.2",
           **mpi_env())
ref = plain_reference(a.ref, env, work)
check(ref.returncode == 0 and ref.stdout, "the plain reference runs")
say("plain reference")

for bad in ("5000-4000",):
    rc, r = finished(launch + cmd, dict(env, CCC_PARTNER_PORTS=bad),
                     os.path.join(work, "bad"), 60)
    check(rc not in (None, 0) and "ccc: CCC_PARTNER_PORTS=%s: expected a port "
          "or a range" % bad in r.stderr(), "%s is refused (%s)" % (bad, rc))

say("bad value")
low = free_range(4)
rc, r = finished(launch + cmd, dict(env, CCC_VERBOSE="2",
                                    CCC_PARTNER_PORTS="%d-%d" % (low, low + 3)),
                 os.path.join(work, "range"), 120)
ports = [int(p) for p in re.findall(r"CCC_LOCAL_DIR: \d+ hosts; rank \d+ on "
                                    r"\S+ \(port (\d+)\)", r.stderr())]
check(rc == 0, "a range of 4 ports: the job runs (%s)" % rc)
check(len(ports) == 2 and len(set(ports)) == 2 and
      all(low <= p <= low + 3 for p in ports),
      "both ranks listen on different ports of %d-%d (%s)"
      % (low, low + 3, ports))
check(r.stdout() == ref.stdout, "result identical to the plain run")
say("range")

rc, r = finished(launch + cmd, dict(env, CCC_PARTNER_PORTS=str(low)),
                 os.path.join(work, "one"), 60)
check(rc is not None, "one port for two ranks: the job ends (no hang)")
check(rc not in (None, 0) and "every port of the range is taken: it needs "
      "one per rank of this host" in r.stderr(),
      "one port for two ranks: ccc: error says so (%s)" % rc)
say("one port")

finish(check, work, ("bad", "range", "one"))
