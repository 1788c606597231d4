//===- RunCommand.cpp - ckpt run: a job that recovers by itself -----------===//
//
// `ckpt run [options] -- COMMAND...` launches COMMAND (mpirun ... or a
// serial program built with ccc), watches it, and launches it again after a
// failure: the runtime then restarts from the newest committed checkpoint.
// It sees the job through CCC_RUN_DIR (rt/process/Supervision.cpp): each
// process's pid file, whose mtime is its heartbeat, and the events every
// process appends. A failure is a non-zero exit or a death by signal, or a hang
// (a process that reached no site for --hang-timeout seconds), after which
// every process of the job is killed. A launcher that goes on after every
// process of its job has ended is ended too; the job then counts as
// finished if every process exited with status 0. SIGTERM or SIGINT to `ckpt
// run` is passed to the job's processes (not to mpirun, which would kill them
// at once): they checkpoint and stop, and `ckpt run` exits with 75 without
// launching again. --inject kills processes on purpose, for tests and
// demos.
//
//===----------------------------------------------------------------------===//
#include "RunCommand.h"
#include "RunHosts.h"
#include "RunOptions.h"
#include "RunProcesses.h"
#include "SlurmHosts.h"

#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <map>
#include <random>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

constexpr int kExitStopped = 75; // the runtime's (include/ccc.h)

double now() {
  timespec T;
  clock_gettime(CLOCK_REALTIME, &T);
  return T.tv_sec + T.tv_nsec / 1e9;
}

volatile sig_atomic_t StopSignals;
void onStopSignal(int) { StopSignals = StopSignals + 1; }

bool makeDirs(const std::string &P) {
  for (size_t I = 1; I <= P.size(); ++I)
    if (I == P.size() || P[I] == '/') {
      std::string Sub = P.substr(0, I);
      if (mkdir(Sub.c_str(), 0755) != 0 && errno != EEXIST)
        return false;
    }
  return true;
}

const char *describeStatus(int St, char *Buf, size_t Cap) {
  if (WIFEXITED(St))
    snprintf(Buf, Cap, "exit status %d", WEXITSTATUS(St));
  else if (WIFSIGNALED(St))
    snprintf(Buf, Cap, "killed by signal %d (%s)", WTERMSIG(St),
             strsignal(WTERMSIG(St)));
  else
    snprintf(Buf, Cap, "status 0x%x", St);
  return Buf;
}

} // namespace

int cmdRun(int Argc, char **Argv) {
  Options O;
  bool ProbeGiven = false;
  int I = 2;
  for (; I < Argc; ++I) {
    std::string A = Argv[I];
    auto Value = [&](const char **Out) {
      if (I + 1 >= Argc)
        return false;
      *Out = Argv[++I];
      return true;
    };
    const char *V;
    double X;
    if (A == "--") {
      ++I;
      break;
    }
    if (A == "--retries" && Value(&V) && parseSeconds(V, &X) && X == floor(X))
      O.Retries = (int)X;
    else if (A == "--backoff" && Value(&V) && parseSeconds(V, &X))
      O.Backoff = X;
    else if (A == "--hang-timeout" && Value(&V) && parseSeconds(V, &X))
      O.HangTimeout = X;
    else if (A == "--launcher-grace" && Value(&V) && parseSeconds(V, &X))
      O.LauncherGrace = X;
    else if (A == "--stdout" && Value(&V))
      O.Stdout = V;
    else if (A == "--stderr" && Value(&V))
      O.Stderr = V;
    else if (A == "--run-dir" && Value(&V))
      O.RunDir = V;
    else if ((A == "--hosts" || A == "--hostfile") && Value(&V)) {
      std::string Err;
      if (O.Hosts.given()) {
        fprintf(stderr, "ckpt run: --hosts and --hostfile name the hosts "
                        "once, together\n");
        return runUsage();
      }
      if (A == "--hosts" ? !parseHostList(V, O.Hosts, Err)
                         : !readHostfile(V, O.Hosts, Err)) {
        fprintf(stderr, "ckpt run: %s %s: %s\n", A.c_str(), V, Err.c_str());
        return 2;
      }
    } else if (A == "--probe" && Value(&V) && *V) {
      O.Hosts.Probe = V;
      ProbeGiven = true;
    } else if (A == "--probe-timeout" && Value(&V) && parseSeconds(V, &X) &&
               X > 0)
      O.Hosts.ProbeTimeout = X;
    else if (A == "--inject" && Value(&V)) {
      if (!parseInject(V, O)) {
        fprintf(stderr, "ckpt run: --inject %s: not understood\n", V);
        return runUsage();
      }
    } else {
      fprintf(stderr, "ckpt run: %s: not understood\n", A.c_str());
      return runUsage();
    }
  }
  if (I >= Argc)
    return runUsage();
  O.Command = Argv + I;
  if (O.Hosts.given() && !mentionsHosts(O.Command)) {
    fprintf(stderr,
            "ckpt run: hosts are given but the command has no {hosts} to "
            "put them in (mpirun --host {hosts}, mpiexec -hosts {hosts})\n");
    return 2;
  }
  if (!O.Hosts.given() && mentionsHosts(O.Command)) {
    std::string Err;
    if (!hostsFromSlurm(O.Hosts, ProbeGiven, Err)) {
      if (!Err.empty())
        fprintf(stderr, "ckpt run: the hosts of the Slurm allocation: %s\n",
                Err.c_str());
      else
        fprintf(stderr, "ckpt run: the command names {hosts}: give them with "
                        "--hosts or --hostfile, or run in a Slurm "
                        "allocation\n");
      return 2;
    }
    fprintf(stderr, "ckpt run: the hosts of Slurm job %s: %s\n",
            getenv("SLURM_JOB_ID") ? getenv("SLURM_JOB_ID") : "?",
            O.Hosts.live().c_str());
    // The step of an attempt that lost a node holds its CPUs on the others
    // until slurmctld has given up on the node (SlurmdTimeout, minutes on
    // real clusters): the next attempt's steps (mpirun's srun) share them.
    setenv("SLURM_OVERLAP", "1", 0);
  }
  if (O.RunDir.empty()) {
    const char *D = getenv("CCC_DIR");
    O.RunDir = std::string(D && *D ? D : "./ccc-ckpt") + "/run";
  }
  if (!makeDirs(O.RunDir)) {
    fprintf(stderr, "ckpt run: cannot create %s: %s\n", O.RunDir.c_str(),
            strerror(errno));
    return 2;
  }
  // Absolute: the job's processes are recognised by this value in their
  // environment, whatever their working directory.
  if (char *Abs = realpath(O.RunDir.c_str(), nullptr)) {
    O.RunDir = Abs;
    free(Abs);
  }
  clearProcs(O.RunDir);
  unlink((O.RunDir + "/events").c_str());
  for (const std::string *F : {&O.Stdout, &O.Stderr})
    if (!F->empty()) {
      // Not cut here: a job that restarts keeps what it printed before its
      // checkpoint (the runtime cuts the rest; a fresh start empties it).
      int Fd = open(F->c_str(), O_WRONLY | O_CREAT, 0644);
      if (Fd < 0) {
        fprintf(stderr, "ckpt run: cannot write %s: %s\n", F->c_str(),
                strerror(errno));
        return 2;
      }
      close(Fd);
    }
  if (!O.SeedGiven)
    O.Seed = (unsigned long)now() ^ getpid();
  std::mt19937_64 Rng(O.Seed);
  if (O.Mtbf > 0) {
    // Random faults: most are kills at a random time, some land in an
    // image write or a commit.
    std::exponential_distribution<double> Gap(1 / O.Mtbf);
    std::uniform_int_distribution<int> Kind(0, 9);
    for (int K = 0; K < O.RandomCount; ++K) {
      Fault F;
      int Draw = Kind(Rng);
      F.K = Draw < 6 ? Fault::Kill : Draw < 8 ? Fault::Write : Fault::Commit;
      F.After = Gap(Rng);
      F.Rank = (unsigned)(Rng() >> 33);
      F.AnyRank = true;
      O.Faults.push_back(F);
    }
    // Three or more: at least one kill, one in a write and one before a
    // commit (the faults a job is least likely to meet by chance).
    size_t First = O.Faults.size() - O.RandomCount;
    for (Fault::Kind K : {Fault::Kill, Fault::Write, Fault::Commit}) {
      if (O.RandomCount < 3)
        break;
      int Count[3] = {0, 0, 0};
      for (size_t J = First; J < O.Faults.size(); ++J)
        Count[O.Faults[J].K]++;
      if (Count[K])
        continue;
      for (size_t J = First; J < O.Faults.size(); ++J)
        if (Count[O.Faults[J].K] > 1) {
          O.Faults[J].K = K;
          break;
        }
    }
  }

  struct sigaction SA = {};
  SA.sa_handler = onStopSignal;
  sigemptyset(&SA.sa_mask);
  sigaction(SIGTERM, &SA, nullptr);
  sigaction(SIGINT, &SA, nullptr);

  off_t EventsAt = 0;
  double Start = now(), ImageSeconds = 0, LostSeconds = 0;
  int Attempts = 0, Failures = 0, Injected = 0, Commits = 0, Restores = 0;
  std::map<unsigned long long, double> StateTime; // version -> when taken
  std::map<unsigned long long, double> VersionCost;
  // CCC_ASYNC: per version, the longest a process waited at its site.
  std::map<unsigned long long, double> VersionStall;
  size_t NextFault = 0;
  size_t JobSize = 1;   // processes: the most an attempt has started
  double Interval = -1; // CCC_INTERVAL=auto's last choice
  double Backoff = O.Backoff;
  int Result = 1;
  for (;;) {
    ++Attempts;
    clearProcs(O.RunDir);
    const Fault *F =
        NextFault < O.Faults.size() ? &O.Faults[NextFault] : nullptr;
    double AttemptStart = now();
    // This attempt's command: the hosts still in use in place of {hosts}.
    std::vector<std::string> Args =
        withHosts(O.Command, O.Hosts.given() ? O.Hosts.live() : "");
    std::vector<char *> ArgPtrs;
    for (std::string &A : Args)
      ArgPtrs.push_back(&A[0]);
    ArgPtrs.push_back(nullptr);
    // The child reports a failed exec through this pipe (closed on a
    // successful one): a command that cannot run is not retried.
    int ExecPipe[2];
    if (pipe2(ExecPipe, O_CLOEXEC) != 0) {
      fprintf(stderr, "ckpt run: pipe: %s\n", strerror(errno));
      return 1;
    }
    pid_t Child = fork();
    if (Child < 0) {
      fprintf(stderr, "ckpt run: fork: %s\n", strerror(errno));
      return 1;
    }
    if (Child == 0) {
      setpgid(0, 0);
      signal(SIGTERM, SIG_DFL);
      signal(SIGINT, SIG_DFL);
      setenv("CCC_RUN_DIR", O.RunDir.c_str(), 1);
      if (O.HangTimeout > 0) {
        char B[64];
        snprintf(B, sizeof(B), "%g", O.HangTimeout / 4);
        setenv("CCC_HEARTBEAT", B, 1);
      }
      if (!O.Stdout.empty())
        setenv("CCC_STDOUT", O.Stdout.c_str(), 1);
      if (!O.Stderr.empty())
        setenv("CCC_STDERR", O.Stderr.c_str(), 1);
      unsetenv("CCC_INJECT");
      if (F && F->K != Fault::Kill) {
        char B[64];
        if (F->K == Fault::Write)
          snprintf(B, sizeof(B), "write:%u:1",
                   F->AnyRank ? F->Rank % (unsigned)JobSize : F->Rank);
        else
          snprintf(B, sizeof(B), "commit:1");
        setenv("CCC_INJECT", B, 1);
      }
      execvp(ArgPtrs[0], ArgPtrs.data());
      int Err = errno;
      ssize_t W = write(ExecPipe[1], &Err, sizeof(Err));
      (void)W;
      _exit(127);
    }
    setpgid(Child, Child);
    close(ExecPipe[1]);
    int ExecErr = 0;
    ssize_t Got = read(ExecPipe[0], &ExecErr, sizeof(ExecErr));
    close(ExecPipe[0]);
    if (Got == (ssize_t)sizeof(ExecErr)) {
      waitpid(Child, nullptr, 0);
      fprintf(stderr, "ckpt run: cannot run %s: %s\n", O.Command[0],
              strerror(ExecErr));
      return 127;
    }
    int Status = 0;
    bool Hung = false, KillDone = false, Forwarded = false, Stopped = false,
         InjectedHere = false, Orphaned = false;
    unsigned long long LastCommit = 0;
    std::map<unsigned, Proc> Procs;
    std::map<unsigned, int> ExitStatus; // rank -> status given to exit()
    double EndedSince = -1; // when every process of the job had ended
    for (;;) {
      pid_t W = waitpid(Child, &Status, WNOHANG);
      for (const Event &E : readEvents(O.RunDir, &EventsAt)) {
        if (E.What == "image" && E.Figure >= 0) {
          double Taken = E.T - E.Figure;
          if (!StateTime.count(E.Version) || Taken < StateTime[E.Version])
            StateTime[E.Version] = Taken;
          VersionCost[E.Version] = std::max(VersionCost[E.Version], E.Figure);
        } else if (E.What == "stall" && E.Figure >= 0) {
          VersionStall[E.Version] = std::max(VersionStall[E.Version], E.Figure);
        } else if (E.What == "commit") {
          ++Commits;
          LastCommit = E.Version;
        } else if (E.What == "stopped") {
          Stopped = true;
        } else if (E.What == "interval" && E.Rank == 0) {
          Interval = E.Figure;
        } else if (E.What == "injected") {
          InjectedHere = true;
        } else if (E.What == "exit") {
          ExitStatus[E.Rank] = (int)E.Figure;
        } else if (E.What == "restore-failed" && E.Rank == 0) {
          ++Restores;
          fprintf(stderr,
                  "ckpt run: checkpoint %llu could not be restored (the "
                  "job's log says why); an older one is used\n",
                  E.Version);
        }
      }
      if (W == Child)
        break;
      Procs = readProcs(O.RunDir);
      JobSize = std::max(JobSize, Procs.size());
      double T = now();
      if (StopSignals && !Forwarded) {
        // Every process checkpoints at its next site and stops.
        for (auto &KV : Procs)
          if (KV.second.Local)
            kill(KV.second.Pid, SIGTERM);
        if (Procs.empty())
          kill(-Child, SIGTERM);
        Forwarded = true;
        fprintf(stderr,
                "ckpt run: passed SIGTERM to the job's %zu process%s: they "
                "checkpoint and stop\n",
                Procs.size(), Procs.size() == 1 ? "" : "es");
      } else if (StopSignals > 1) {
        killJob(Child, Procs, O.RunDir); // a second signal: no waiting
      }
      if (F && F->K == Fault::Kill && !KillDone && !Forwarded &&
          T - AttemptStart >= F->After && !Procs.empty()) {
        auto It = Procs.find(F->Rank);
        if (F->AnyRank) {
          It = Procs.begin();
          std::advance(It, F->Rank % Procs.size());
        }
        if (It != Procs.end() && !It->second.Local) {
          // Its pid means nothing on this host.
          fprintf(stderr,
                  "ckpt run: injected kill of rank %u skipped: it runs on "
                  "another host\n",
                  It->first);
          KillDone = true;
        } else if (It != Procs.end()) {
          fprintf(stderr, "ckpt run: injected: SIGKILL to rank %u (pid %d)\n",
                  It->first, (int)It->second.Pid);
          kill(It->second.Pid, SIGKILL);
          KillDone = true;
        }
      }
      // A launch that hangs (a host that died after its probe answered:
      // the launcher may wait for it for ever) starts fewer processes
      // than the job has, or none; those that did start wait in MPI_Init.
      if (O.HangTimeout > 0 && !Hung && !Orphaned &&
          T - AttemptStart > O.HangTimeout && Procs.size() < JobSize) {
        if (Procs.empty())
          fprintf(stderr,
                  "ckpt run: no process of the job started in %.0f s: the "
                  "launch hangs; killing it\n",
                  O.HangTimeout);
        else
          fprintf(stderr,
                  "ckpt run: %zu of the job's %zu processes started in %.0f "
                  "s: the launch hangs; killing it\n",
                  Procs.size(), JobSize, O.HangTimeout);
        Hung = true;
        killJob(Child, Procs, O.RunDir);
      }
      if (O.HangTimeout > 0 && !Hung && !Orphaned)
        for (auto &KV : Procs)
          if (T - std::max(KV.second.Beat, AttemptStart) > O.HangTimeout) {
            if (KV.second.Local && dying(KV.second.Pid))
              fprintf(stderr,
                      "ckpt run: rank %u (pid %d) has ended and the job "
                      "has not for %.0f s: the job hangs; killing it\n",
                      KV.first, (int)KV.second.Pid, O.HangTimeout);
            else
              fprintf(stderr,
                      "ckpt run: rank %u (pid %d) reached no checkpoint "
                      "site for %.0f s: the job hangs; killing it\n",
                      KV.first, (int)KV.second.Pid, O.HangTimeout);
            Hung = true;
            killJob(Child, Procs, O.RunDir);
            break;
          }
      // Every process ended (a rank of another host counts once it wrote
      // its exit status), and the launcher still runs.
      bool AllEnded =
          O.LauncherGrace > 0 && !Procs.empty() && !Hung && !Orphaned;
      for (auto &KV : Procs)
        AllEnded &= KV.second.Local ? dying(KV.second.Pid)
                                    : ExitStatus.count(KV.first) > 0;
      if (!AllEnded) {
        EndedSince = -1;
      } else if (EndedSince < 0) {
        EndedSince = T;
      } else if (T - EndedSince >= O.LauncherGrace) {
        fprintf(stderr,
                "ckpt run: every process of the job has ended, the "
                "launcher (pid %d) has not after %.0f s: ending it\n",
                (int)Child, O.LauncherGrace);
        Orphaned = true;
        killJob(Child, Procs, O.RunDir);
      }
      usleep(50000);
    }
    // Processes the launcher left behind must not outlive the attempt.
    if (size_t Left = killJob(Child, Procs, O.RunDir))
      fprintf(stderr,
              "ckpt run: %zu process%s of the job outlived the launcher: "
              "killed\n",
              Left, Left == 1 ? "" : "es");
    double End = now();
    char Desc[128];
    describeStatus(Status, Desc, sizeof(Desc));
    if (Stopped) {
      fprintf(stderr, "ckpt run: the job checkpointed and stopped (%s)\n",
              Desc);
      Result = kExitStopped;
      break;
    }
    if (!Hung && WIFEXITED(Status) && WEXITSTATUS(Status) == 0) {
      Result = 0;
      break;
    }
    if (Orphaned) {
      // The job's result is its processes', not the killed launcher's.
      bool AllZero = true;
      for (auto &KV : Procs)
        AllZero &= ExitStatus.count(KV.first) && ExitStatus[KV.first] == 0;
      if (AllZero) {
        fprintf(stderr,
                "ckpt run: all %zu process%s exited with status 0: "
                "the job is finished\n",
                Procs.size(), Procs.size() == 1 ? "" : "es");
        Result = 0;
        break;
      }
    }
    ++Failures;
    // A fault that did not happen (the job failed by itself first) stays
    // planned for the next attempt.
    bool WasInjected = KillDone || InjectedHere;
    if (WasInjected) {
      ++Injected;
      ++NextFault;
    }
    // Work lost: from the state the next attempt restores (taken in this
    // attempt) or from this attempt's start.
    double From = AttemptStart;
    if (LastCommit && StateTime.count(LastCommit) &&
        StateTime[LastCommit] > AttemptStart)
      From = StateTime[LastCommit];
    LostSeconds += End - From;
    fprintf(stderr, "ckpt run: attempt %d failed (%s%s%s)\n", Attempts,
            Hung       ? "hang; "
            : Orphaned ? "the launcher outlived its processes; "
                       : "",
            Desc, WasInjected ? ", injected" : "");
    if (Forwarded) {
      Result = WIFEXITED(Status) ? WEXITSTATUS(Status) : 128 + WTERMSIG(Status);
      break;
    }
    // A host that does not answer any more is left out: the next attempt
    // runs on the others and the spares (and on a lost one come back).
    size_t Changed = O.Hosts.given() ? probeHosts(O.Hosts) : 0;
    if (Changed)
      fprintf(stderr, "ckpt run: the job goes on on %s\n",
              O.Hosts.live().c_str());
    if (O.Hosts.given() && !O.Hosts.liveCount()) {
      fprintf(stderr, "ckpt run: no host is left\n");
      Result = 1;
      break;
    }
    if (Failures > O.Retries) {
      fprintf(stderr, "ckpt run: giving up after %d failures (--retries %d)\n",
              Failures, O.Retries);
      Result =
          WIFEXITED(Status) && WEXITSTATUS(Status) ? WEXITSTATUS(Status) : 1;
      break;
    }
    fprintf(stderr, "ckpt run: launching again in %.1f s\n", Backoff);
    usleep((useconds_t)(Backoff * 1e6));
    Backoff = std::min(Backoff * 2, 60.0);
    if (StopSignals) {
      Result = kExitStopped;
      break;
    }
  }
  for (auto &KV : VersionCost)
    ImageSeconds += KV.second;
  double StallSeconds = 0;
  for (auto &KV : VersionStall)
    StallSeconds += KV.second;
  char Stalled[96] = "";
  if (!VersionStall.empty())
    snprintf(Stalled, sizeof(Stalled),
             ", in the background; the program waited %.2f s at its sites",
             StallSeconds);
  double Total = now() - Start;
  // Empty per-rank output files are noise.
  for (const std::string *F : {&O.Stdout, &O.Stderr})
    for (unsigned R = 1; !F->empty() && R < 1u << 20; ++R) {
      std::string P = *F + "." + std::to_string(R);
      struct stat St;
      if (stat(P.c_str(), &St) != 0)
        break;
      if (St.st_size == 0)
        unlink(P.c_str());
    }
  fprintf(stderr,
          "ckpt run: %s after %d attempt%s: %d failure%s (%d injected%s), "
          "%d checkpoint%s committed, %.1f s of work lost, %.1f s writing "
          "images (%.1f %% of %.1f s)%s%s\n",
          Result == 0              ? "finished"
          : Result == kExitStopped ? "stopped"
                                   : "failed",
          Attempts, Attempts == 1 ? "" : "s", Failures,
          Failures == 1 ? "" : "s", Injected,
          O.Mtbf > 0 ? (", seed " + std::to_string(O.Seed)).c_str() : "",
          Commits, Commits == 1 ? "" : "s", LostSeconds, ImageSeconds,
          Total > 0 ? 100 * ImageSeconds / Total : 0.0, Total, Stalled,
          Restores ? "; a checkpoint could not be restored" : "");
  if (Interval > 0)
    fprintf(stderr,
            "ckpt run: CCC_INTERVAL=auto chose a checkpoint every "
            "%.3g s\n",
            Interval);
  return Result;
}
