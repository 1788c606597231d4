#!/usr/bin/env python3
"""A private multi-host cluster made of Linux namespaces on this one machine.

    with NetnsCluster(workdir, hosts=4) as c:
        c.run("h1", ["hostname"])                  # CompletedProcess
        c.run("h1", ["mpirun.openmpi", "--host", "h1,h2", "-np", "2",
                     "--mca", "plm_rsh_agent", c.agent, prog],
              env=MPI_ROOT_ENV, cwd=c.shared)  # a job across 2 hosts
        c.kill_host("h2"); c.remove_local("h2")    # a node is lost
        c.start_host("h2")                         # back, as a spare

The findings at the end are measured; test/cluster/cluster_selftest.py
checks them.

Layout
- Each host hN (h1..hN) is a long-lived holder process (holder.py, written
  into workdir) started by `unshare --net --uts --mount`: its own network
  namespace (lo up, eth0 = 10.77.0.N/24), hostname hN (set inside) and
  mount namespace (private propagation: nothing it mounts is seen outside).
  Processes share the machine's pid namespace, users and file systems.
- A router namespace (one more holder, network namespace only) holds the
  bridge br0 and one veth per host (its end named hN, the host's end eth0).
  Nothing is configured in the root namespace: no bridge, no veth, no
  address, no route; the subnet and the interface names are private to the
  cluster's namespaces, so clusters coexist with the same subnet. The hosts
  reach each other only (no route to the outside, none needed).
- Mounts inside each host (none outside it):
    /etc/hosts            <- workdir/etc-hosts (localhost, h1..hN)
    /tmp                  <- workdir/hN/tmp   (per host: Open MPI's session
                             directories and PMIx sockets, MPICH's files)
    /dev/shm              <- a fresh tmpfs    (per host: vader / nemesis
                             shared-memory segments)
    /var/tmp/ccc-node-local (LOCAL_DIR) <- workdir/hN/local: node-local disk
  LOCAL_DIR is created (empty) in the root file system when missing: a
  mountpoint must exist; nothing is mounted on it outside the hosts.
  When workdir lies under /tmp, the per-host /tmp would hide it: the holder
  binds workdir back at its own path inside the new /tmp (from a file
  descriptor opened before), so workdir/shared -- the parallel file system
  -- has the same path on every host, and in the root namespace.
- run(host, argv) = nsenter -t HOLDER --net --uts --mount (cwd given with
  --wd; nsenter --mount otherwise starts in /).
- rsh agent (workdir/rsh-agent, self.agent): `rsh-agent [-opts] HOST CMD...`
  skips leading options (with ssh's argument-taking ones: -l -p -o -i ...),
  enters HOST like run() and runs CMD with sh -c in a clean environment
  (PATH, HOME, USER, LANG only: what ssh gives, so only what a launcher
  passes on itself reaches remote ranks). Open MPI: -mca plm_rsh_agent
  AGENT; MPICH: -launcher ssh -launcher-exec AGENT.
- kill_host(h): the agent refuses h from then on (its pid file is gone),
  then SIGKILL to every process whose network namespace is h's (ranks,
  orted / hydra_pmi_proxy, anything started with run()), then to the
  holder: the namespace, its eth0 and its veth peer in the router vanish.
  The host stays dead: run() on it fails. start_host(h) brings a dead host
  back as a fresh node (same name and address, its workdir/hN/local kept
  unless remove_local(h) deleted it) -- a spare with that name.
  remove_local(h): empties workdir/hN/local (the node's disk is gone); the
  directory itself stays: removed and made anew, the host's bind mount
  would still show the deleted one, where creating a file fails (ENOENT).
- __exit__ (and stop()): SIGKILL to every process in any of the cluster's
  network namespaces, then the holders; waits until no such process is
  left and raises if one survives; removes nothing from the root
  namespace's network (it holds nothing). leftovers() lists what is left.
  A holder dies with its parent (PR_SET_PDEATHSIG): a test SIGKILLed with
  its cluster up leaves no holder (measured), but the other processes of
  its hosts remain (a `sleep` started on h2 did), in namespaces nobody
  knows any more. A process started with popen() whose Popen is never
  waited stays a zombie child of the test (not alive for leftovers()).
- kill_jobs(h): SIGKILL to every process on h but its holder (a resource
  manager's cleanup after a job); h stays up.
- missing(): why no cluster can be made here (not root, unshare/nsenter/ip
  missing, namespaces or veth/bridge refused by the kernel); tests skip.

Findings, Debian 12 (kernel 6.18, util-linux 2.38, iproute2 6.1, Open MPI
4.1.4, MPICH 4.0.2), as root in a container on 2 cores; checked by
test/cluster/cluster_selftest.py:

Setup
- 4 hosts and the router are up in 0.5-0.6 s (1.5 s the first time).
  Root's `ip -o link` is the same before, during and after; no mount of the
  cluster appears in the root namespace; a second cluster (same subnet)
  runs beside the first. Killing the holders (last) frees the namespaces
  with their veths and the bridge: nothing to delete.
- /tmp per host: Open MPI puts its session directory in /tmp/ompi.HOST.UID
  (the host name keeps hosts apart even in a shared /tmp, but a killed
  host's stale files then stay among the others'), PMIx its sockets beside
  it; start_host() empties a host's /tmp (a reboot). /dev/shm per host:
  vader's and nemesis's segments of one host are not another's.
- Not done: a pid namespace per host (processes are found by network
  namespace, /proc/PID/ns/net, instead), cgroups, a cut in the network
  before the kill (the killed processes' sockets are closed by the kernel
  while the veth is still up: peers see FIN/RST, as after a crash of the
  processes rather than a power loss).

Open MPI 4.1.4 (mpirun.openmpi run on h1, as a cluster's first node does)
- Enough: mpirun.openmpi --host h1,h2,h3 -np 3 --mca plm_rsh_agent AGENT
  (or OMPI_MCA_plm_rsh_agent=AGENT). Each host has only lo and eth0 and the
  TCP BTL leaves lo out by default, so no interface option is needed;
  --mca btl tcp,self,vader (or tcp,self) with btl_tcp_if_include and
  oob_tcp_if_include = 10.77.0.0/24 work too (test/cluster/node_loss.py
  passes them). --host h3,h3,h4,h4 gives 2 slots per host (2 ranks each,
  over vader within a host). A hostfile "hN slots=1" x 3 with -np 4 fails at
  once: not enough slots (no --oversubscribe).
- The agent is called from h1 as `AGENT HOST  orted -mca ess "env" ...
  -mca orte_hnp_uri "...;tcp://10.77.0.1:PORT" ... --tree-spawn ...`, no
  option before HOST, quoted words: it needs sh -c. No orted on h1 (mpirun
  is that host's daemon); with 4 hosts all 3 daemons are started from h1.
- The remote daemons run as root in the agent's clean environment without
  OMPI_ALLOW_RUN_AS_ROOT (only mpirun asks). Remote ranks see only what -x
  names: FOO set for mpirun is unset on h2..h4 without -x FOO (h1's rank
  has it); with -x FOO all have it. Ranks start in mpirun's working
  directory on every host.
- 3 ranks over 3 hosts: 0.5-1.5 s for a hello job. kill_host(h2) during a
  job: mpirun prints "ORTE has lost communication with a remote daemon",
  kills the ranks on the other hosts and exits 205 or 9, 2.0-4.1 s after
  the loss; nothing of the job is left on h1 or h3.

MPICH 4.0.2 (mpiexec.mpich run on h1)
- Enough: mpiexec.mpich -hosts h1,h2,h3 -n 3 -launcher ssh -launcher-exec
  AGENT (or -launcher rsh), or -f FILE with "HOST:N" lines; -hosts
  h1:2,h3:2 puts 2 ranks per host; -iface eth0 works (not needed).
- The agent is called as `AGENT -x HOST "/usr/bin/hydra_pmi_proxy"
  --control-port h1:PORT ...` (ssh launcher: -x first) or `AGENT HOST ...`
  (rsh). The proxy of mpiexec's own host is forked, not launched through the
  agent; -hosts h2,h3 run from h1 puts no rank on h1.
- Hydra passes mpiexec's whole environment to every rank (FOO visible on
  all hosts without an option). Ranks start in mpiexec's directory.
- 3 ranks over 3 hosts: 0.1-0.3 s for a hello job. kill_host(h2) during a
  job: mpiexec prints "control_cb ... assert (!closed) failed" and exits
  255 within 0.05 s; nothing of the job is left on h1 or h3.
"""
import os
import shutil
import signal
import subprocess
import sys
import time

LOCAL_DIR = "/var/tmp/ccc-node-local"
SUBNET = "10.77.0"          # hosts are SUBNET.1 .. SUBNET.N, /24
CIDR = SUBNET + ".0/24"
CLEAN_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

MPI_ROOT_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1",
                "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}

# The holder: sets up a host's namespaces (entered by unshare before this
# runs), prints "ready", then sleeps until killed or its parent dies.
HOLDER = r'''
import ctypes, os, signal, socket, subprocess, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: die with the test
if os.getppid() == 1:
    sys.exit(1)
MS_BIND, MS_REC = 4096, 16384
def mount(src, dst, fstype=None, flags=0, data=None):
    if libc.mount(src.encode(), dst.encode(),
                  fstype.encode() if fstype else None, flags,
                  data.encode() if data else None) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "mount %s on %s: %s" % (src, dst, os.strerror(e)))
role, name, hostdir, workdir, hosts, local = sys.argv[1:7]
if role == "host":
    socket.sethostname(name)
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    mount(hosts, "/etc/hosts", flags=MS_BIND)
    # A per-host /tmp; workdir, when under /tmp, bound back at its path.
    keep = os.open(workdir, os.O_PATH) if (workdir + "/").startswith("/tmp/") else None
    mount(os.path.join(hostdir, "tmp"), "/tmp", flags=MS_BIND)
    if keep is not None:
        os.makedirs(workdir, exist_ok=True)
        mount("/proc/self/fd/%d" % keep, workdir, flags=MS_BIND | MS_REC)
        os.close(keep)
    mount("tmpfs", "/dev/shm", "tmpfs", 0, "mode=1777,size=256m")
    mount(os.path.join(hostdir, "local"), local, flags=MS_BIND)
print("ready", flush=True)
while True:
    signal.pause()
'''

AGENT = r'''#!/bin/sh
# rsh/ssh stand-in for the namespace cluster in %(workdir)s:
#   rsh-agent [options] HOST COMMAND...
# enters HOST's namespaces and runs COMMAND with sh -c in a clean
# environment, as ssh would. Written by test/harness/netns_cluster.py.
[ -n "$CCC_CLUSTER_AGENT_LOG" ] && echo "argv: $*" >> "$CCC_CLUSTER_AGENT_LOG"
while [ $# -gt 0 ]; do
  case "$1" in
    -[lpoiFEJLRDWbcemSw]) shift 2 ;;
    --) shift; break ;;
    -*) shift ;;
    *) break ;;
  esac
done
host=$1
shift
pid=$(cat "%(workdir)s/run/$host.pid" 2>/dev/null) ||
  { echo "rsh-agent: no host $host" >&2; exit 255; }
[ -n "$CCC_CLUSTER_AGENT_LOG" ] && echo "$host $*" >> "$CCC_CLUSTER_AGENT_LOG"
exec nsenter -t "$pid" --net --uts --mount -- env -i PATH="%(path)s" \
  HOME="${HOME:-/root}" USER="${USER:-root}" LANG=C.UTF-8 \
  ${CCC_CLUSTER_AGENT_LOG:+CCC_CLUSTER_AGENT_LOG="$CCC_CLUSTER_AGENT_LOG"} \
  sh -c "$*"
'''


class ClusterError(RuntimeError):
    pass


def missing():
    """Why no namespace cluster can be made here, or None. Tests skip."""
    if os.geteuid() != 0:
        return "namespaces, veths and bridges need root"
    gone = [p for p in ("unshare", "nsenter", "ip")
            if not shutil.which(p, path=os.environ.get("PATH", "") +
                                ":/usr/sbin:/sbin")]
    if gone:
        return "not installed: " + " ".join(gone)
    # A network namespace with a bridge and a veth in it, and a mount
    # namespace that can bind-mount: everything the cluster does.
    probe = ("ip link add ccc-br type bridge && "
             "ip link add ccc-a type veth peer name ccc-b && "
             "ip link set ccc-a master ccc-br && ip link set lo up && "
             "mount -t tmpfs tmpfs /dev/shm && hostname ccc-probe")
    try:
        r = subprocess.run(["unshare", "--net", "--uts", "--mount", "sh",
                            "-c", probe], capture_output=True, text=True,
                           timeout=20)
    except (OSError, subprocess.TimeoutExpired) as e:
        return "cannot probe namespaces: %s" % e
    if r.returncode != 0:
        return ("cannot make network/mount/UTS namespaces with a bridge: "
                + (r.stderr or r.stdout).strip())
    return None


def _ns(pid, kind="net"):
    try:
        return os.readlink("/proc/%d/ns/%s" % (pid, kind))
    except OSError:
        return None


def _alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        return False


class NetnsCluster:
    """Context manager: hosts h1..hN, each its own network, UTS and mount
    namespace, on one bridge. See the module docstring."""

    def __init__(self, workdir, hosts=4, subnet=SUBNET, local_dir=LOCAL_DIR):
        self.workdir = os.path.abspath(workdir)
        self.names = ["h%d" % i for i in range(1, hosts + 1)]
        self.subnet = subnet
        self.cidr = subnet + ".0/24"
        self.local_dir = local_dir
        self.shared = os.path.join(self.workdir, "shared")
        self.agent = os.path.join(self.workdir, "rsh-agent")
        self.holders = {}        # name -> Popen (router included)
        self.netns = {}          # name -> "net:[inode]" of live hosts
        self._known_ns = set()   # every namespace this cluster made

    # ------------------------------------------------------------- helpers
    def addr(self, host):
        return "%s.%d" % (self.subnet, self.names.index(host) + 1)

    def local(self, host):
        """The directory outside that is host's node-local disk."""
        return os.path.join(self.workdir, host, "local")

    def pid(self, host):
        p = self.holders.get(host)
        if p is None or p.poll() is not None:
            raise ClusterError("host %s is down" % host)
        return p.pid

    def alive(self, host):
        p = self.holders.get(host)
        return p is not None and p.poll() is None

    # --------------------------------------------------------------- setup
    def __enter__(self):
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def start(self):
        why = missing()
        if why:
            raise ClusterError(why)
        os.makedirs(os.path.join(self.workdir, "run"), exist_ok=True)
        os.makedirs(self.shared, exist_ok=True)
        os.makedirs(self.local_dir, exist_ok=True)
        with open(os.path.join(self.workdir, "holder.py"), "w") as f:
            f.write(HOLDER)
        with open(os.path.join(self.workdir, "etc-hosts"), "w") as f:
            f.write("127.0.0.1\tlocalhost\n")
            for h in self.names:
                f.write("%s\t%s\n" % (self.addr(h), h))
        with open(self.agent, "w") as f:
            f.write(AGENT % {"workdir": self.workdir, "path": CLEAN_PATH})
        os.chmod(self.agent, 0o755)
        self._spawn("router", "router", ["--net"])
        self._ip("router", "link", "add", "br0", "type", "bridge")
        self._ip("router", "link", "set", "br0", "up")
        self._ip("router", "link", "set", "lo", "up")
        for h in self.names:
            self.start_host(h)

    def _spawn(self, name, role, ns):
        hostdir = os.path.join(self.workdir, name)
        if role == "host":
            # A node boots with an empty /tmp; its local disk survives.
            shutil.rmtree(os.path.join(hostdir, "tmp"), ignore_errors=True)
            for d in ("tmp", "local"):
                os.makedirs(os.path.join(hostdir, d), exist_ok=True)
            os.chmod(os.path.join(hostdir, "tmp"), 0o1777)
        p = subprocess.Popen(
            ["unshare", *ns, sys.executable,
             os.path.join(self.workdir, "holder.py"), role, name,
             hostdir, self.workdir, os.path.join(self.workdir, "etc-hosts"),
             self.local_dir],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, start_new_session=True)
        self.holders[name] = p
        line = p.stdout.readline()
        if line.strip() != "ready":
            p.kill()
            err = p.stderr.read()
            p.wait()
            raise ClusterError("host %s did not start: %s%s"
                               % (name, line, err))
        ns_id = _ns(p.pid)
        self.netns[name] = ns_id
        self._known_ns.add(ns_id)
        with open(os.path.join(self.workdir, "run", name + ".pid"), "w") as f:
            f.write("%d\n" % p.pid)

    def _ip(self, host, *args):
        r = subprocess.run(["nsenter", "-t", str(self.pid(host)), "--net",
                            "ip", *args], capture_output=True, text=True)
        if r.returncode != 0:
            raise ClusterError("ip %s in %s: %s" % (" ".join(args), host,
                                                    r.stderr.strip()))
        return r.stdout

    def start_host(self, host):
        """(Re)starts host as a fresh node: namespaces, hostname, eth0 on
        the bridge, mounts. Its node-local directory is kept."""
        if self.alive(host):
            raise ClusterError("host %s is up" % host)
        self._spawn(host, "host", ["--net", "--uts", "--mount"])
        self._ip("router", "link", "add", host, "type", "veth", "peer",
                 "name", "eth0", "netns", str(self.pid(host)))
        self._ip("router", "link", "set", host, "master", "br0", "up")
        self._ip(host, "addr", "add", self.addr(host) + "/24", "dev", "eth0")
        self._ip(host, "link", "set", "eth0", "up")

    # ----------------------------------------------------------- commands
    def cmd(self, host, argv, cwd=None):
        """The argv that runs argv on host (for Popen by the caller)."""
        wd = ["--wd=" + cwd] if cwd else []
        return ["nsenter", "-t", str(self.pid(host)), "--net", "--uts",
                "--mount", *wd, "--", *argv]

    def popen(self, host, argv, env=None, cwd=None, **kw):
        """Starts argv on host; env is added to this process's
        environment."""
        e = dict(os.environ, **(env or {}))
        kw.setdefault("start_new_session", True)
        return subprocess.Popen(self.cmd(host, argv, cwd), env=e, **kw)

    def run(self, host, argv, env=None, cwd=None, timeout=120, check=False,
            **kw):
        """Runs argv on host to its end (output captured as text unless kw
        says otherwise); returns the CompletedProcess."""
        e = dict(os.environ, **(env or {}))
        if "stdout" not in kw and "stderr" not in kw:
            kw["capture_output"] = True
        kw.setdefault("text", True)
        return subprocess.run(self.cmd(host, argv, cwd), env=e,
                              timeout=timeout, check=check, **kw)

    # ------------------------------------------------------------ failures
    def processes(self, host=None):
        """Pids of the live processes in host's network namespace (any of
        the cluster's, host None), holders included."""
        want = ({self.netns[host]} if host else set(self._known_ns)) - {None}
        out = []
        for d in os.listdir("/proc"):
            if d.isdigit() and _ns(int(d)) in want and _alive(int(d)):
                out.append(int(d))
        return out

    def _kill_ns(self, want, timeout=30):
        """SIGKILLs every process in the namespaces want, holders last (the
        namespaces must stay findable until the rest are gone); returns the
        pids still alive after timeout s."""
        holders = {p.pid for p in self.holders.values()}
        deadline = time.monotonic() + timeout
        while True:
            left = [int(d) for d in os.listdir("/proc")
                    if d.isdigit() and _ns(int(d)) in want and _alive(int(d))]
            if not left or time.monotonic() > deadline:
                return left
            for pid in [p for p in left if p not in holders] or left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.02)

    def kill_jobs(self, host):
        """SIGKILL to every process on host but its holder (what a resource
        manager's cleanup does to a job's leftovers); the host stays up."""
        ns_id = self.netns.get(host)
        holders = {p.pid for p in self.holders.values()}
        deadline = time.monotonic() + 30
        while ns_id:
            left = [p for p in self.processes(host) if p not in holders]
            if not left:
                return
            if time.monotonic() > deadline:
                raise ClusterError("processes of %s survive SIGKILL: %s"
                                   % (host, left))
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.02)

    def kill_host(self, host):
        """The node dies: SIGKILL to every process in its namespaces, then
        its holder. It stays dead until start_host(host)."""
        ns_id = self.netns.get(host)
        if ns_id is None:
            return
        # A node dies at once: nothing may enter it from the first SIGKILL
        # on. Otherwise the launcher, failing as soon as its ranks there
        # die, could have its supervisor's probe of the host answered by
        # the holder before it too is killed (a dead node taken for a live
        # one, the next attempt sent to it).
        try:
            os.unlink(os.path.join(self.workdir, "run", host + ".pid"))
        except FileNotFoundError:
            pass
        left = self._kill_ns({ns_id})
        p = self.holders.get(host)
        if p is not None:
            p.wait()
        if left:
            raise ClusterError("processes of %s survive SIGKILL: %s"
                               % (host, left))

    def remove_local(self, host):
        """The node's disk is gone: its node-local directory is emptied."""
        # Its contents only: the directory is the source of the host's bind
        # mount, which would keep showing a deleted directory (creating a
        # file in it: ENOENT) if it were removed and made anew.
        d = self.local(host)
        for e in os.listdir(d):
            p = os.path.join(d, e)
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p, ignore_errors=True)
            else:
                os.unlink(p)

    # ------------------------------------------------------------ teardown
    def leftovers(self):
        """(pid, command line) of every live process in one of the
        cluster's namespaces."""
        out = []
        for pid in self.processes():
            try:
                with open("/proc/%d/cmdline" % pid, "rb") as f:
                    cmd = f.read().replace(b"\0", b" ").decode(
                        errors="replace")
            except OSError:
                cmd = "?"
            out.append((pid, cmd.strip()))
        return out

    def stop(self):
        """Kills everything of the cluster. Safe to call twice."""
        left = self._kill_ns(set(self._known_ns) - {None})
        for p in self.holders.values():
            if p.poll() is None:
                p.kill()
            p.wait()
            for s in (p.stdout, p.stderr):
                if s:
                    s.close()
        self.holders = {}
        self.netns = {}
        if left:
            raise ClusterError("processes of the cluster survive SIGKILL: %s"
                               % left)

    # -------------------------------------------------------- MPI launching
    def hostfile(self, hosts, slots=1, name="hostfile"):
        """A hostfile in workdir/shared naming hosts (a host twice = two
        slots' worth more); Open MPI's "slots=" and MPICH's "host:n"
        syntaxes, returns (openmpi_path, mpich_path)."""
        counts = {}
        for h in hosts:
            counts[h] = counts.get(h, 0) + slots
        o = os.path.join(self.shared, name + ".openmpi")
        m = os.path.join(self.shared, name + ".mpich")
        with open(o, "w") as f:
            f.writelines("%s slots=%d\n" % kv for kv in counts.items())
        with open(m, "w") as f:
            f.writelines("%s:%d\n" % kv for kv in counts.items())
        return o, m
