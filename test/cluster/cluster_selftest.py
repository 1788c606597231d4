#!/usr/bin/env python3
"""Self-test of test/harness/netns_cluster.py: the namespace cluster.

Usage: cluster_selftest.py [--mpi openmpi] [--mpi mpich] [--keep]

Checks what the harness's docstring claims:
 1. 4 hosts: hostnames h1..h4, eth0 = 10.77.0.N/24, h1..h4 resolve through
    the per-host /etc/hosts, TCP from h1 to a listener on h3 works; the root
    namespace's network links are the same before, during and after;
 2. isolation: a file in the node-local directory (LOCAL_DIR) or in /tmp
    of h1 is not seen on h2 nor in the root namespace, lands in
    workdir/h1/local resp. workdir/h1/tmp; workdir/shared is one directory
    on every host; a second cluster runs beside the first;
 3. per MPI (compiled here with its mpicc from mpi_hostname.c): 3 ranks on
    h1,h2,h3 launched from h1 (through the rsh agent), each rank on its
    host and the allreduce right; 4 ranks two per host on h3,h4 (shared
    memory within a host);
 4. kill_host(h2) during a 3-host MPI job: the launcher on h1 exits non-zero
    by itself (timed), h2 has no process, its veth is gone, run() on it
    fails; kill_jobs cleans h1 and h3; start_host(h2) brings it back with
    its node-local file, remove_local empties it;
 5. after the cluster's end: no process in any of its namespaces, no holder,
    no mount of it in the root namespace, root links unchanged.
Exit status 0 when all hold, 77 (skip) when no cluster can be made here.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "harness"))
import netns_cluster  # noqa: E402
from node_loss import launch  # noqa: E402

MPICC = {"openmpi": "mpicc.openmpi", "mpich": "mpicc.mpich"}
LAUNCHER = {"openmpi": "mpirun.openmpi", "mpich": "mpiexec.mpich"}

failures = []


def check(ok, what):
    print("%s: %s" % ("ok" if ok else "FAIL", what), flush=True)
    if not ok:
        failures.append(what)
    return ok


def root_links():
    return subprocess.run(["ip", "-o", "link"], capture_output=True,
                          text=True).stdout.count("\n")


def mounts_of(path):
    with open("/proc/self/mountinfo") as f:
        return [l for l in f if path in l]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpi", action="append", default=[],
                    choices=sorted(MPICC))
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    why = netns_cluster.missing()
    if why:
        print("SKIP: " + why)
        return 77
    mpis = [m for m in a.mpi or sorted(MPICC)
            if shutil.which(MPICC[m]) and shutil.which(LAUNCHER[m])]
    work = tempfile.mkdtemp(prefix="ccc-cluster-")
    links0 = root_links()
    t_start = time.monotonic()
    with netns_cluster.NetnsCluster(os.path.join(work, "c")) as c:
        t_up = time.monotonic() - t_start
        print("cluster of 4 hosts up in %.2f s" % t_up, flush=True)
        # 1. names, addresses, resolution, TCP
        for i, h in enumerate(c.names, 1):
            r = c.run(h, ["sh", "-c", "hostname; ip -4 -o addr show eth0"])
            words = r.stdout.split()
            got = words[:1] + words[4:5]
            check(got == [h, "10.77.0.%d/24" % i],
                  "%s: hostname and address %s" % (h, " ".join(got)))
        r = c.run("h1", ["getent", "hosts", "h3"])
        check(r.stdout.split()[:2] == ["10.77.0.3", "h3"],
              "h1 resolves h3: %r" % r.stdout.strip())
        srv = c.popen("h3", [sys.executable, "-c",
                             "import socket; s=socket.create_server(("
                             "'0.0.0.0', 5555)); print('up', flush=True); "
                             "c,_=s.accept(); c.sendall(b'hello from h3')"],
                      stdout=subprocess.PIPE, text=True)
        srv.stdout.readline()
        r = c.run("h1", [sys.executable, "-c",
                         "import socket; s=socket.create_connection(("
                         "'h3', 5555), 5); print(s.recv(100).decode())"])
        srv.wait(10)
        check(r.stdout.strip() == "hello from h3",
              "TCP from h1 to h3: %r %s" % (r.stdout.strip(), r.stderr[-200:]))
        check(root_links() == links0, "no link added to the root namespace")
        # 2. isolation
        c.run("h1", ["sh", "-c", "echo one > %s/f && echo t > /tmp/f"
                     % c.local_dir])
        r2 = c.run("h2", ["sh", "-c", "ls %s /tmp" % c.local_dir])
        check("f" not in r2.stdout.split(),
              "h1's node-local and /tmp files not on h2 (%s)"
              % r2.stdout.split())
        check(os.path.exists(os.path.join(c.local("h1"), "f")) and
              os.path.exists(os.path.join(c.workdir, "h1", "tmp", "f")),
              "h1's files in workdir/h1/local and workdir/h1/tmp")
        check(not os.path.exists(os.path.join(c.local_dir, "f")),
              "the root namespace's %s does not show them" % c.local_dir)
        c.run("h2", ["sh", "-c", "hostname > %s/from-h2" % c.shared])
        r = c.run("h4", ["cat", os.path.join(c.shared, "from-h2")])
        check(r.stdout.strip() == "h2", "shared directory on h2 and h4")
        with netns_cluster.NetnsCluster(os.path.join(work, "c2"),
                                        hosts=2) as c2:
            r = c2.run("h2", ["hostname"])
            check(r.stdout.strip() == "h2" and
                  c.run("h2", ["hostname"]).stdout.strip() == "h2",
                  "a second cluster beside the first")
        check(c.alive("h1") and not c2.leftovers(),
              "the second cluster's end leaves the first")
        # 3. MPI across hosts
        for mpi in mpis:
            exe = os.path.join(c.shared, "mpi_hostname." + mpi)
            subprocess.run([MPICC[mpi], "-O2", "-o", exe,
                            os.path.join(HERE, "mpi_hostname.c")], check=True)
            for hosts, placement in (
                    (["h1", "h2", "h3"], ["h1", "h2", "h3"]),
                    (["h3", "h3", "h4", "h4"], ["h3", "h3", "h4", "h4"])):
                n = len(hosts)
                argv = launch(c, mpi, hosts, exe, [])
                t0 = time.monotonic()
                r = c.run("h1", argv, env=netns_cluster.MPI_ROOT_ENV,
                          cwd=c.shared, timeout=60)
                took = time.monotonic() - t0
                want = sorted("rank %d of %d on %s sum %d" % (
                    i, n, placement[i], n * (n - 1) // 2) for i in range(n))
                check(r.returncode == 0 and
                      sorted(r.stdout.splitlines()) == want,
                      "%s: %d ranks on %s in %.2f s%s" % (
                          mpi, n, ",".join(hosts), took,
                          "" if r.returncode == 0 else ": exit %d %s" % (
                              r.returncode, r.stderr[-1500:])))
        # 4. a host dies during a job
        c.run("h2", ["sh", "-c", "echo two > %s/g" % c.local_dir])
        for mpi in mpis:
            exe = os.path.join(c.shared, "mpi_hostname." + mpi)
            p = c.popen("h1", launch(c, mpi, ["h1", "h2", "h3"], exe, ["60"]),
                        env=netns_cluster.MPI_ROOT_ENV, cwd=c.shared,
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not all(
                    len(c.processes(h)) >= 3 for h in ("h2", "h3")):
                time.sleep(0.1)
            time.sleep(1)
            t0 = time.monotonic()
            c.kill_host("h2")
            try:
                p.communicate(timeout=60)
                check(p.returncode != 0, "%s: the launcher ends by itself %.2f"
                      " s after h2's loss (exit %d)" % (
                          mpi, time.monotonic() - t0, p.returncode))
            except subprocess.TimeoutExpired:
                check(False, "%s: the launcher still runs 60 s after h2's "
                      "loss" % mpi)
                p.kill()
                p.communicate()
            left = {h: len(c.processes(h)) - 1 for h in ("h1", "h3")}
            print("  left of the job after the launcher: %s" % left)
            check(not c.processes("h2") and not c.alive("h2"),
                  "%s: nothing left on h2" % mpi)
            links = subprocess.run(
                ["nsenter", "-t", str(c.pid("router")), "--net", "ip", "-o",
                 "link"], capture_output=True, text=True).stdout
            check(" h2@" not in links, "h2's veth gone from the router")
            try:
                c.run("h2", ["true"])
                check(False, "run() on a dead host fails")
            except netns_cluster.ClusterError:
                check(True, "run() on a dead host fails")
            for h in ("h1", "h3"):
                c.kill_jobs(h)
            check(all(len(c.processes(h)) == 1 for h in ("h1", "h3")),
                  "kill_jobs leaves only the holders of h1 and h3")
            c.start_host("h2")
            r = c.run("h2", ["sh", "-c", "hostname; cat %s/g" % c.local_dir])
            check(r.stdout.split() == ["h2", "two"],
                  "h2 back as a spare, its node-local file kept: %s"
                  % r.stdout.split())
        c.remove_local("h2")
        r = c.run("h2", ["sh", "-c", "ls %s; echo new > %s/h && cat %s/h"
                         % ((c.local_dir,) * 3)])
        check(r.stdout.split() == ["new"],
              "remove_local empties h2's disk, which takes new files: %r %s"
              % (r.stdout, r.stderr))
        holders = [p.pid for p in c.holders.values()]
    # 5. nothing left
    check(not c.leftovers(), "no process of the cluster left: %s"
          % c.leftovers())
    check(not any(netns_cluster._alive(p) for p in holders),
          "no holder left")
    check(root_links() == links0, "root namespace's links as before")
    check(not mounts_of(work) and not mounts_of(c.local_dir),
          "no mount of the cluster in the root namespace")
    print("selftest took %.1f s" % (time.monotonic() - t_start))
    if failures:
        print("%d checks failed; files in %s" % (len(failures), work))
        return 1
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
