#!/usr/bin/env python3
"""A private single-host Slurm cluster that a test starts and stops itself.

    with SlurmCluster(tmpdir) as c:
        jid = c.sbatch(script, "--requeue", "--signal=B:TERM@30")
        c.requeue(jid, start_now=True)
        info = c.wait_done(jid, 120)  # ["JobState"], ["Restarts"], ...

Its own munged, slurmctld and slurmd, all files under workdir; __exit__ (or
stop()) cancels the jobs, stops the daemons and SIGKILLs every process left,
also when the test failed half-way. missing() says why none can run here
(tests skip). test/slurm/cluster_selftest.py checks what is claimed below.

Findings, Debian 12 (slurm-wlm 22.05.8, munge 0.5.15, Open MPI 4.1.4, MPICH
4.0.2), as root in a container (no cgroups: proctrack/linuxproc, task/none):

Setup
- munged runs with its own key (1024 random bytes, mode 0600) and socket,
  pid, log and seed files (--socket, --key-file, ... and -F -f). Slurm finds
  it by AuthInfo=socket=PATH in slurm.conf, which the clients read too
  (sbatch, scontrol, srun inside a job): no MUNGE_SOCKET variable is needed;
  strace shows the clients connect to that socket and open nothing in
  /etc/slurm. Daemons get -f CONF, clients SLURM_CONF (self.env, without an
  enclosing job's SLURM_* variables); PlugStackConfig names an empty file so
  /etc/slurm/plugstack.conf is not read. Nothing under /etc, /run or /var.
- Up (node idle) in about 1 s; a job starts 1-2 s after sbatch. Clusters
  can run side by side (free ports, own directories). A socket path holds at
  most 107 bytes: a workdir longer than 60 is used through a short symlink.

MPI in an sbatch job (default allocation: 1 CPU on the one node)
- Open MPI: mpirun.openmpi --oversubscribe -np 2 ./prog works (as root with
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1). It takes the
  allocation as its slots: without --oversubscribe, -np 2 fails "not enough
  slots" unless sbatch -n 2. All ranks are local, so it starts no srun step
  and needs no OMPI_MCA_plm setting (OMPI_MCA_plm=isolated also works). The
  ranks are mpirun's children, each in a process group of its own.
- MPICH: mpiexec.mpich -n 2 ./prog works: hydra sees Slurm and starts its
  proxy with srun, as job step 0 (its own slurmstepd). HYDRA_LAUNCHER=fork
  (or -launcher fork) starts it without srun or step; works as well.

Signals (proctrack/linuxproc: slurmd finds a job's processes by parentage)
(a) scontrol requeue JOBID of a running job: slurmd sends SIGCONT and SIGTERM
    at once to every process of the job: the batch shell, its children (a bash
    subshell's own trap runs; bash passes nothing on), mpirun and its ranks,
    every step (MPICH's proxy and ranks). Open MPI's mpirun also forwards a
    TERM to its ranks about 1 s later, then exits 1. SIGKILL follows
    max(KillWait, ~5) s after the TERM (4.7-4.8 s measured at KillWait 2 and
    5, 7.6 s at 8). The job goes COMPLETING, then PENDING with
    Reason=BeginTime: it may run again cred_expire s after it ended (AuthInfo
    cred_expire, default 120; 5 is the least accepted, 1 is "invalid" and
    gives 120): 8-15 s after the requeue with 5, 125 s with the default.
    start_now() (StartTime=now+2) cuts that to ~3 s; now+0 is too soon: slurmd
    revokes the job's credential when it ends (1-s resolution) and kills a run
    launched within that second ("Job credential revoked"; the job ends FAILED
    1:0; seen once in 5). The next run has SLURM_RESTART_COUNT=1 (unset in the
    first) and Restarts=1. slurmd signals the processes one by one: a batch
    shell that exits at once on its TERM can leave a child that was not yet
    signaled, which is then never signaled (see Leftovers; seen once in 5
    selftests), and a backgrounded child killed by the TERM first ends the
    shell's "wait" before the shell's own TERM arrives (once in 5).
(b) sbatch --signal=B:TERM@T -t 1: SIGCONT and SIGTERM go to the batch shell
    process alone (not its children, mpirun or ranks): the script must exec
    the program meant to get it (or trap and forward). slurmctld looks every
    30 s and signals once the time left is <= T+30 (man sbatch: up to 60 s
    early); with -t 1 and T >= 30 that is its first look: 25-28 s into the job
    in 4 runs of 4, always once. The time limit itself is enforced at the
    first look after it (84-87 s into the job, state TIMEOUT), and a TIMEOUT
    job is not requeued, --requeue or not. A job requeues itself by exiting
    with a RequeueExit status (requeue_exit="75"): Restarts+1, same BeginTime
    delay. Verified with --signal=B:TERM@50 -t 1 and "exec mpiexec.mpich ...
    ./prog" whose ranks exit 75 on TERM: mpiexec exits 75, the job runs again.
    mpirun.openmpi in its place exits 1 (FAILED, no requeue): after forwarding
    a signal it does not return its ranks' status.
(c) scancel --batch --signal=TERM JOBID (signal(jid, "TERM")): at once, to the
    batch shell alone (no SIGCONT); its children, mpirun and the ranks get
    nothing. A shell without a trap dies of it: the job ends FAILED 0:15 at
    once, while mpirun and its ranks, orphaned (see Leftovers), get no signal
    and run on to their end outside Slurm. With "exec mpirun ..." as the
    script, mpirun gets the TERM and passes it to the ranks (both MPIs).
    --full signals the shell, its children and the steps (man scancel; not
    measured here).
Over a namespace cluster (hosts=NetnsCluster; test/cluster/slurm_node_loss.py)
- One munged, in this namespace, serves every host: its socket is a path in
  workdir (path-named Unix sockets are not bound to a network namespace).
  slurmctld runs on h1 (SlurmctldHost=h1(10.77.0.1)), one slurmd per host
  (NodeName=hN NodeAddr=10.77.0.N, spool and pid file in the host's own
  /tmp), clients on h1: nothing in this namespace reaches the hosts' network.
  4 nodes are idle about 1 s after the start. sbatch -N 3 runs the batch
  script on the first node; srun reaches the others.
- MPI over the nodes: mpirun.openmpi --host h1,h2,h3 -np 3 (plm slurm: it
  starts its daemons with one srun step; the environment goes with it, no
  -x needed) with btl_tcp_if_include/oob_tcp_if_include 10.77.0.0/24, and
  mpiexec.mpich -hosts h1,h2,h3 -n 3 -iface eth0 (hydra's srun launcher).
- A node lost in a job (kill_host): mpirun exits 205 (mpiexec 255) within
  3 s. With SlurmdTimeout=10, slurmctld logs "Removing failed node h3 from
  JobId=..." and sets it DOWN about 30 s after the loss (man sbatch: a
  job without --no-kill is then ended; not measured here). With sbatch
  --no-kill the job goes on: a second mpirun on h1,h2,h4 (h4 a spare of
  the allocation) runs at once -- but only with SLURM_OVERLAP=1 (srun
  --overlap): otherwise its srun waits (97 s and more) because the dead
  step still holds its CPUs on h2.
Leftovers: a process whose parent exits (a script's background child once the
script ended, mpirun once its shell died) is reparented to init and escapes
slurmd: no signal, no SIGKILL at the end of the job (cgroup tracking would
catch it; a container has none). stop() finds every process whose environment
holds this cluster's SLURM_CONF (/proc/PID/environ) and SIGKILLs it.
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time

# States in which a job will not run again without someone acting on it.
DONE_STATES = frozenset({
    "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
    "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY", "SPECIAL_EXIT", "REVOKED"})

# Unix socket paths (sun_path) hold at most 107 bytes; munged's socket and
# slurmd's per-step sockets (SPOOL/NODE_JOB.STEP) live in the workdir.
_MAX_DIR = 60


class SlurmError(RuntimeError):
    pass


def _which(name):
    """A program from PATH or the sbin directories (the daemons live in
    /usr/sbin, often not on a user's PATH)."""
    path = os.environ.get("PATH", "") + ":/usr/local/sbin:/usr/sbin:/sbin"
    return shutil.which(name, path=path)


DAEMONS = ("munged", "slurmctld", "slurmd")
CLIENTS = ("sbatch", "scontrol", "scancel", "squeue", "sinfo")


def missing():
    """Why no cluster can run here (a program is missing, not root), or
    None. Tests skip on it."""
    gone = [p for p in DAEMONS + CLIENTS if not _which(p)]
    if gone:
        return "not installed: " + " ".join(gone)
    if os.geteuid() != 0:
        return "slurmd must run as root to start jobs"
    return None


def _free_ports(n):
    """n distinct TCP ports free on this host now (the kernel picks them)."""
    socks, ports = [], []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    return ports


def _tail(path, lines=30):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError as e:
        return "(%s)\n" % e


class SlurmCluster:
    """Context manager: one slurmctld, one slurmd and one munged, private to
    workdir. Every client command gets SLURM_CONF through self.env."""

    def __init__(self, workdir, start_timeout=30.0, kill_wait=5,
                 cred_expire=5, requeue_exit=None, extra_conf="",
                 hosts=None, slurmd_timeout=300):
        """kill_wait: KillWait, seconds from SIGTERM to SIGKILL when slurmd
        ends a job (below 5 it does not shorten a requeue's or a scancel's,
        which take about 5 s anyway). cred_expire: seconds a requeued job waits before it may
        start again (5 is the least slurmctld accepts). requeue_exit:
        RequeueExit, exit statuses (e.g. "75") that requeue a batch job.
        extra_conf: more slurm.conf lines. hosts: a started NetnsCluster
        (test/harness/netns_cluster.py): one slurmd on each of its hosts
        (node hN at its address), slurmctld on the first, and the clients
        run there too (see "Over a namespace cluster" above).
        slurmd_timeout: SlurmdTimeout, seconds before slurmctld sets a
        silent node DOWN."""
        self.hosts = hosts
        self.slurmd_timeout = slurmd_timeout
        self.workdir = self.root = os.path.abspath(workdir)
        self.start_timeout = start_timeout
        self.kill_wait = kill_wait
        self.cred_expire = cred_expire
        self.requeue_exit = requeue_exit
        self.extra_conf = extra_conf
        self.procs = {}  # name -> Popen
        self._link = None
        self.env = None
        self.conf = None

    # ---------------------------------------------------------------- setup
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

    def _path(self, *parts):
        return os.path.join(self.root, *parts)

    def start(self):
        why = missing()
        if why:
            raise SlurmError(why)
        os.makedirs(self.workdir, exist_ok=True)
        self.root = self.workdir
        if len(self.root) > _MAX_DIR:
            # A short name for a long workdir keeps socket paths legal; not
            # in /tmp when the namespace hosts each have their own.
            self._link = os.path.join(tempfile.mkdtemp(
                prefix="ccc-slurm-", dir="/var/tmp" if self.hosts else "/tmp"),
                "w")
            os.symlink(self.workdir, self._link)
            self.root = self._link
        for d in ("munge", "state", "spool", "log", "run"):
            # A fresh cluster: slurmctld would otherwise recover the jobs
            # of a previous one from its state files.
            shutil.rmtree(self._path(d), ignore_errors=True)
            os.makedirs(self._path(d))
        # munged wants its socket's directory searchable by all and
        # writable by its owner alone.
        os.chmod(self._path("munge"), 0o755)
        if self.hosts:
            self.nodes = [h for h in self.hosts.names if self.hosts.alive(h)]
            self.host = self.nodes[0]  # slurmctld's and the clients' host
        else:
            self.host = socket.gethostname().split(".")[0]  # hostname -s
            self.nodes = [self.host]
        self.conf = self._path("slurm.conf")
        # Every daemon, slurmstepd and job process inherits SLURM_CONF,
        # which is how stop() finds whatever a job left behind.
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith("SLURM_")}  # an enclosing job's
        self.env["SLURM_CONF"] = self.conf
        self._start_munge()
        for attempt in range(3):
            self._write_conf()
            self._spawn("slurmctld", [_which("slurmctld"), "-D", "-f",
                                      self.conf], self.host)
            for n in self.nodes:
                self.start_slurmd(n)
            try:
                self._wait_idle()
                return
            except SlurmError as e:
                # The free ports were taken again before the daemons bound
                # them: new ones.
                if attempt == 2 or "Address already in use" not in str(e):
                    raise
                self._stop_daemons([self._slurmd(n) for n in self.nodes] +
                                   ["slurmctld"])

    def _slurmd(self, node):
        return "slurmd" if not self.hosts else "slurmd-" + node

    def start_slurmd(self, node):
        """Starts node's slurmd (again, on a namespace host brought back
        with start_host: the node returns to service by itself,
        ReturnToService=2)."""
        self._spawn(self._slurmd(node), [_which("slurmd"), "-D", "-f",
                                         self.conf, "-N", node], node)

    def _start_munge(self):
        key = self._path("munge", "munge.key")
        with open(os.open(key, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
                  "wb") as f:
            f.write(os.urandom(1024))
        self.munge_socket = self._path("munge", "munge.socket")
        self._spawn("munged", [
            _which("munged"), "-F", "-f", "--socket=" + self.munge_socket,
            "--key-file=" + key,
            "--pid-file=" + self._path("munge", "munged.pid"),
            "--log-file=" + self._path("log", "munged.log"),
            "--seed-file=" + self._path("munge", "munged.seed")])
        deadline = time.monotonic() + 10
        while not os.path.exists(self.munge_socket):
            if self.procs["munged"].poll() is not None or \
                    time.monotonic() > deadline:
                raise SlurmError("munged did not start:\n" + self.logs())
            time.sleep(0.05)

    def _write_conf(self):
        # The node as slurmd sees this machine; a topology differing from
        # the hardware's only earns a "reconfigured" notice, but why have it.
        out = subprocess.run([_which("slurmd"), "-C"],
                             check=True, capture_output=True,
                             text=True).stdout
        node = " ".join(re.findall(
            r"\b(?:CPUs|Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore|"
            r"RealMemory)=\d+", out))
        # Namespace hosts have their own ports: the usual ones will do.
        ctld_port, d_port = (6817, 6818) if self.hosts else _free_ports(2)
        auth = "socket=%s,cred_expire=%d" % (self.munge_socket,
                                             self.cred_expire)
        extra = self.extra_conf
        if self.requeue_exit is not None:
            extra = "RequeueExit=%s\n%s" % (self.requeue_exit, extra)
        plugstack = self._path("plugstack.conf")
        open(plugstack, "w").close()
        p = self._path
        if self.hosts:
            # Each host's /tmp is its own: the spool and pid file of its
            # slurmd are node-local, as on a real cluster; %n names logs.
            ctld_addr = self.hosts.addr(self.host)
            spool, d_pid = "/tmp/slurmd", "/tmp/slurmd.pid"
            d_log = p("log", "slurmd-%n.log")
            nodes = "\n".join("NodeName=%s NodeAddr=%s %s State=UNKNOWN"
                              % (n, self.hosts.addr(n), node)
                              for n in self.hosts.names)
            names = ",".join(self.hosts.names)
        else:
            ctld_addr = "127.0.0.1"
            spool, d_pid = p("spool"), p("run", "slurmd.pid")
            d_log = p("log", "slurmd.log")
            nodes = "NodeName=%s NodeAddr=127.0.0.1 %s State=UNKNOWN" % (
                self.host, node)
            names = self.host
        conf = f"""\
# Written by test/harness/slurm_cluster.py; private to this directory.
ClusterName=ccc
SlurmctldHost={self.host}({ctld_addr})
SlurmctldPort={ctld_port}
SlurmdPort={d_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo={auth}
StateSaveLocation={p("state")}
SlurmdSpoolDir={spool}
SlurmctldPidFile={p("run", "slurmctld.pid")}
SlurmdPidFile={d_pid}
SlurmctldLogFile={p("log", "slurmctld.log")}
SlurmdLogFile={d_log}
SlurmctldDebug=info
SlurmdDebug=info
MailProg=/bin/true
PlugStackConfig={plugstack}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1,batch_sched_delay=0
MpiDefault=none
ReturnToService=2
JobRequeue=1
KillWait={self.kill_wait}
MinJobAge=60
InactiveLimit=0
SlurmdTimeout={self.slurmd_timeout}
{nodes}
PartitionName=ccc Nodes={names} Default=YES MaxTime=INFINITE State=UP
{extra}
"""
        with open(self.conf, "w") as f:
            f.write(conf)

    def _spawn(self, name, argv, host=None):
        log = open(self._path("log", name + ".out"), "wb")
        if self.hosts and host:
            argv = self.hosts.cmd(host, argv)  # nsenter execs: same pid
        # A new session: a test's Ctrl-C reaches only the test; stop() ends
        # the daemons itself.
        self.procs[name] = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
            env=self.env, start_new_session=True)
        log.close()

    def _wait_idle(self):
        deadline = time.monotonic() + self.start_timeout
        last = ""
        while time.monotonic() < deadline:
            for name, p in self.procs.items():
                if p.poll() is not None:
                    raise SlurmError("%s exited with %s while starting:\n%s"
                                     % (name, p.returncode, self.logs()))
            r = self.run(["sinfo", "-h", "-N", "-o", "%T"], check=False)
            last = (r.stdout + r.stderr).strip()
            if r.returncode == 0 and last.split() == ["idle"] * len(
                    self.nodes):
                return
            time.sleep(0.2)
        raise SlurmError("the nodes are not idle after %.0f s (sinfo: %s):\n%s"
                         % (self.start_timeout, last, self.logs()))

    def logs(self, lines=30):
        """The tails of the daemons' logs, for error messages. A daemon's
        stderr (NAME.out) repeats its log file, so it is shown only when the
        daemon wrote no log file (it failed before opening it)."""
        out = []
        d = self._path("log")
        for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            path = os.path.join(d, f)
            stem, ext = os.path.splitext(path)
            if ext == ".out" and (not os.path.getsize(path) or (
                    os.path.exists(stem + ".log") and
                    os.path.getsize(stem + ".log"))):
                continue
            out.append("==> %s <==\n%s" % (f, _tail(path, lines)))
        return "".join(out)

    # ------------------------------------------------------------- teardown
    def stop(self):
        """Cancels every job, stops slurmd, slurmctld and munged (SIGTERM,
        then SIGKILL after 10 s) and SIGKILLs whatever is left of the jobs.
        Safe to call more than once and after a failed start."""
        ctld = self.procs.get("slurmctld")
        if ctld is not None and ctld.poll() is None:
            try:
                self._cancel_all()
            except (SlurmError, subprocess.TimeoutExpired):
                pass  # the daemons go anyway; leftovers are killed below
        self._stop_daemons([n for n in self.procs if n.startswith("slurmd")]
                           + ["slurmctld", "munged"])
        # proctrack/linuxproc loses a job's process once its parent exits
        # (it is reparented to init): e.g. a batch script's background
        # child outlives the job. Such processes still carry SLURM_CONF.
        deadline = time.monotonic() + 10
        while True:
            left = self.leftovers()
            if not left or time.monotonic() > deadline:
                break
            for pid, _ in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.1)
        if self._link:
            os.unlink(self._link)
            os.rmdir(os.path.dirname(self._link))
            self._link = None
        if left:
            raise SlurmError("processes of the cluster survive SIGKILL: %s"
                             % left)

    def _stop_daemons(self, names):
        for name in names:
            p = self.procs.pop(name, None)
            if p is None:
                continue
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()

    def _cancel_all(self):
        r = self.run(["squeue", "-h", "-o", "%i"])
        ids = r.stdout.split()
        if not ids:
            return
        self.run(["scancel", *ids], check=False)
        # slurmd SIGKILLs a job KillWait s after its SIGTERM.
        deadline = time.monotonic() + self.kill_wait + 10
        while time.monotonic() < deadline:
            r = self.run(["squeue", "-h", "-t", "R,CG,S", "-o", "%i"],
                         check=False)
            if r.returncode == 0 and not r.stdout.strip():
                return
            time.sleep(0.2)

    def leftovers(self):
        """(pid, command line) of every process whose environment holds this
        cluster's SLURM_CONF (daemons, slurmstepd, jobs), except this process
        and its ancestors."""
        if not self.conf:
            return []
        mine = set()
        pid = os.getpid()
        while pid > 1:
            mine.add(pid)
            try:
                with open("/proc/%d/stat" % pid) as f:
                    pid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                break
        needle = ("SLURM_CONF=%s\0" % self.conf).encode()
        found = []
        for d in os.listdir("/proc"):
            if not d.isdigit() or int(d) in mine:
                continue
            try:
                with open("/proc/%s/stat" % d) as f:
                    if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                        continue  # dead, waiting for its parent
                with open("/proc/%s/environ" % d, "rb") as f:
                    if needle not in f.read():
                        continue
                with open("/proc/%s/cmdline" % d, "rb") as f:
                    cmd = f.read().replace(b"\0", b" ").decode(
                        errors="replace")
            except (OSError, IndexError):
                continue
            found.append((int(d), cmd.strip()))
        return found

    # -------------------------------------------------------------- clients
    def _client(self, argv):
        """argv as run on the clients' host (this one, or the first of the
        namespace hosts: only they reach slurmctld)."""
        # In workdir there (a job starts in sbatch's directory; nsenter's
        # would be /).
        return (self.hosts.cmd(self.host, argv, cwd=self.workdir)
                if self.hosts else argv)

    def run(self, argv, check=True, timeout=30):
        """Runs a Slurm client command against this cluster."""
        r = subprocess.run(self._client(argv), env=self.env,
                           capture_output=True, text=True, timeout=timeout)
        if check and r.returncode != 0:
            raise SlurmError("%s failed (%d): %s" % (
                " ".join(argv), r.returncode, (r.stderr + r.stdout).strip()))
        return r

    def sbatch(self, script, *args, script_args=(), env=None):
        """Submits script with sbatch options args, script_args for the
        script and env added to the job's environment; returns the job id.
        Output goes to WORKDIR/job-ID.out unless args say otherwise."""
        if not any(a == "-o" or a.startswith("--output") for a in args):
            args = ("--output=" + os.path.join(self.workdir, "job-%j.out"),
                    *args)
        e = dict(self.env, **(env or {}))
        r = subprocess.run(self._client(["sbatch", "--parsable", *args,
                                         script, *script_args]),
                           env=e, capture_output=True, text=True, timeout=30)
        if r.returncode != 0:
            raise SlurmError("sbatch %s failed (%d): %s" % (
                " ".join(args), r.returncode, r.stderr.strip()))
        return int(r.stdout.strip().split(";")[0])

    def output(self, jobid):
        """The text of the job's stdout file so far."""
        with open(self.job_info(jobid)["StdOut"], errors="replace") as f:
            return f.read()

    def job_info(self, jobid):
        """scontrol show job -o as a dict (JobState, Restarts, ExitCode,
        ...), or None once slurmctld has forgotten the job."""
        r = self.run(["scontrol", "show", "job", "-o", str(jobid)],
                     check=False)
        if r.returncode != 0:
            if "Invalid job id" in r.stderr:
                return None
            raise SlurmError("scontrol show job %s: %s" % (jobid,
                                                           r.stderr.strip()))
        info = {}
        for m in re.finditer(r"(\w[\w:/]*)=(.*?)(?= \w[\w:/]*=|$)",
                             r.stdout.strip()):
            info[m.group(1)] = m.group(2)
        return info

    def wait_state(self, jobid, states, timeout):
        if isinstance(states, str):
            states = {states}
        deadline = time.monotonic() + timeout
        info = None
        while True:
            info = self.job_info(jobid)
            if info is None:
                raise SlurmError("job %s vanished waiting for %s"
                                 % (jobid, "/".join(sorted(states))))
            if info["JobState"] in states:
                return info
            if time.monotonic() > deadline:
                raise SlurmError("job %s is %s after %.0f s, not %s:\n%s"
                                 % (jobid, info["JobState"], timeout,
                                    "/".join(sorted(states)), self.logs()))
            time.sleep(0.2)

    def wait_done(self, jobid, timeout):
        """Waits until the job ended for good (COMPLETED, FAILED, TIMEOUT,
        ...; a requeued job passes through PENDING, which is not an end)."""
        return self.wait_state(jobid, DONE_STATES, timeout)

    def requeue(self, jobid, start_now=False):
        """scontrol requeue of a running (or ended) job; with start_now, also lifts the BeginTime delay
        slurmctld puts on the requeued job (see start_now)."""
        self.run(["scontrol", "requeue", str(jobid)])
        if start_now:
            self.start_now(jobid)

    def start_now(self, jobid, timeout=None):
        """Waits until the (requeued) job is PENDING and makes it eligible 2 s
        later rather than cred_expire s after it ended (reason BeginTime).
        Not sooner: slurmd revokes the job's credentials when it ends, with
        1-s resolution, and kills a run started in that same second ("Job
        credential revoked", the job FAILS with exit code 1)."""
        self.wait_state(jobid, "PENDING", timeout or self.kill_wait + 30)
        self.run(["scontrol", "update", "JobId=%s" % jobid,
                  "StartTime=now+2"])

    def signal(self, jobid, sig, batch=True, full=False):
        """scancel --signal: to the batch shell only (batch, the default),
        to the batch shell and all its descendants and steps (full), or to
        the job steps only (neither)."""
        sig = sig.name[3:] if isinstance(sig, signal.Signals) else str(sig)
        opt = ["--full"] if full else ["--batch"] if batch else []
        self.run(["scancel", "--signal=" + sig, *opt, str(jobid)])

    def cancel(self, jobid):
        self.run(["scancel", str(jobid)])
