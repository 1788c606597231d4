//===- Supervision.cpp - Running under `ckpt run`, preemption, hooks ------===//
//
// `ckpt run` (tools/RunCommand.cpp) watches a job through files in
// CCC_RUN_DIR, which every process of the job writes:
//   rank.R    "PID HOST", written at start: whom to signal; its mtime is
//             the heartbeat, renewed at a site every CCC_HEARTBEAT seconds
//             (a process that reaches no site does not beat: a hang)
//   events    one line per event, "SECONDS RANK EVENT VERSION [FIGURE]",
//             appended with single write()s by every process:
//             start, restart V, restore-failed V, image V SECONDS,
//             image-failed V, commit V, stopped V, interval 0 SECONDS,
//             stall V SECONDS (CCC_ASYNC: the program's wait at the site;
//             its image event comes when the background write ends),
//             injected V (CCC_INJECT killed this process),
//             exit 0 STATUS (exit() with STATUS; a process killed by a
//             signal, or stopped on SIGTERM, writes none)
// Without a supervisor the same process still honours SIGTERM (checkpoint
// at the next site, then exit with status 75), its hooks and CCC_INJECT.
//
//===----------------------------------------------------------------------===//
#include "Supervision.h"
#include "Parallel.h"
#include "RuntimeGlobals.h"
#include "rt/common/Config.h"
#include "rt/common/Log.h"
#include "rt/heap/HeapRegion.h"
#include "rt/store/Store.h"

#include "ccc.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

extern "C" volatile int __ccc_pending; // Runtime.cpp

namespace ccc {
volatile int HeartbeatDue = 0;

namespace {

// What the image keeps (RuntimeState.Supervision, in the heap region): the
// hooks the program registered and the captured outputs' sizes at the
// checkpoint.
enum HookKind : uint32_t { OnCheckpoint, OnContinue, OnRestart };
struct Hook {
  uint32_t Kind, Fortran; // Fortran: called without argument
  uint64_t Fn, Arg;
};
struct SavedSupervision {
  int64_t OutputSize[2]; // captured stdout, stderr; -1 if not captured
  uint32_t NHooks;
  Hook Hooks[32];
};

SavedSupervision *saved() {
  if (!RT.State.Supervision) {
    auto *S =
        static_cast<SavedSupervision *>(__ccc_malloc(sizeof(SavedSupervision)));
    memset(S, 0, sizeof(*S));
    S->OutputSize[0] = S->OutputSize[1] = -1;
    RT.State.Supervision = reinterpret_cast<uint64_t>(S);
  }
  return reinterpret_cast<SavedSupervision *>(RT.State.Supervision);
}

int RankFd = -1, EventsFd = -1;
double HeartbeatSeconds;
volatile sig_atomic_t StopWanted;
// Captured outputs: CCC_STDOUT / CCC_STDERR, or not (-1).
bool Captured[2];

// CCC_INJECT: the Nth image this process writes (of rank InjectRank) is
// cut short, or the Nth commit record it would write is not.
enum class Inject { None, Write, Commit } InjectKind;
uint32_t InjectRank;
uint64_t InjectNth, ImagesWritten, CommitsWritten;

double nowSeconds() { return nowNs(CLOCK_REALTIME) / 1e9; }

void event(const char *What, uint64_t Version, double Figure = -1) {
  if (EventsFd < 0)
    return;
  char Line[160];
  int N =
      Figure >= 0
          ? snprintf(Line, sizeof(Line), "%.3f %u %s %llu %.6f\n", nowSeconds(),
                     RT.Rank, What, (unsigned long long)Version, Figure)
          : snprintf(Line, sizeof(Line), "%.3f %u %s %llu\n", nowSeconds(),
                     RT.Rank, What, (unsigned long long)Version);
  ssize_t W = write(EventsFd, Line, N); // O_APPEND: one line, whole
  (void)W;
}

void parseInject(const char *V) {
  char *End;
  if (!strncmp(V, "write:", 6)) {
    InjectKind = Inject::Write;
    InjectRank = (uint32_t)strtoul(V + 6, &End, 10);
    if (*End != ':')
      goto Bad;
    InjectNth = strtoull(End + 1, &End, 10);
  } else if (!strncmp(V, "commit:", 7)) {
    InjectKind = Inject::Commit;
    InjectNth = strtoull(V + 7, &End, 10);
  } else {
    goto Bad;
  }
  if (*End == 0 && InjectNth > 0)
    return;
Bad:
  fatal("CCC_INJECT=%s: expected write:RANK:N or commit:N (N >= 1)", V);
}

// Rank 0 (and a serial program) writes FILE, rank R > 0 FILE.R: a restart
// cuts each back to its own size at the checkpoint, which a file shared by
// processes that checkpoint at different moments could not be.
void capture(int Which, const char *Path) {
  char Own[kPathMax];
  if (RT.NRanks > 1 && RT.Rank > 0)
    snprintf(Own, sizeof(Own), "%s.%u", Path, RT.Rank);
  else
    snprintf(Own, sizeof(Own), "%s", Path);
  int Fd = open(Own, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (Fd < 0)
    fatal("cannot open %s for the program's standard %s (%s=%s): %s", Own,
          Which ? "error" : "output", Which ? "CCC_STDERR" : "CCC_STDOUT", Path,
          strerror(errno));
  if (dup2(Fd, 1 + Which) < 0)
    fatal("cannot redirect standard %s to %s: %s", Which ? "error" : "output",
          Own, strerror(errno));
  close(Fd);
  Captured[Which] = true;
}

void cutCaptured(const int64_t *Sizes) {
  for (int I = 0; I < 2; ++I)
    if (Captured[I] && ftruncate(1 + I, Sizes[I] < 0 ? 0 : Sizes[I]) != 0)
      logMessage("cannot cut the captured standard %s back to %lld bytes: %s",
                 I ? "error" : "output", (long long)Sizes[I], strerror(errno));
}

void runHooks(uint32_t Kind) {
  if (!RT.State.Supervision)
    return;
  SavedSupervision *S = saved();
  for (uint32_t I = 0; I < S->NHooks; ++I) {
    const Hook &H = S->Hooks[I];
    if (H.Kind != Kind)
      continue;
    if (H.Fortran)
      reinterpret_cast<void (*)()>(H.Fn)();
    else
      reinterpret_cast<void (*)(void *)>(H.Fn)(reinterpret_cast<void *>(H.Arg));
  }
}

void *heartbeatThread(void *) {
  uint64_t Ns = (uint64_t)(HeartbeatSeconds * 1e9);
  for (;;) {
    struct timespec T = {(time_t)(Ns / 1000000000ull),
                         (long)(Ns % 1000000000ull)};
    while (nanosleep(&T, &T) != 0 && errno == EINTR) {
    }
    HeartbeatDue = 1;
    __ccc_pending = 1;
  }
  return nullptr;
}

void startHeartbeat() {
  if (HeartbeatSeconds > 0 && RankFd >= 0 &&
      !startHelperThread(heartbeatThread))
    logMessage("cannot start the heartbeat thread: hangs go unnoticed");
}

uint64_t TermAtNs;

void onTerm(int) {
  uint64_t Now = nowNs(CLOCK_MONOTONIC);
  if (StopWanted) {
    // The same request can come twice at once (a batch system signals
    // every process of a job, and `ckpt run` passes its own on); a second
    // SIGTERM a second later means: do not wait for a site.
    if (Now - TermAtNs < 1000000000ull)
      return;
    signal(SIGTERM, SIG_DFL);
    raise(SIGTERM);
    return;
  }
  TermAtNs = Now;
  StopWanted = 1;
  Requested = 1;
  __ccc_pending = 1;
}

} // namespace

void supervisionStart() {
  if (const char *V = getenv("CCC_INJECT"); V && *V)
    parseInject(V);
  if (const char *V = getenv("CCC_ON_TERM");
      V && *V && strcmp(V, "checkpoint")) {
    if (strcmp(V, "default"))
      fatal("CCC_ON_TERM=%s: expected checkpoint or default", V);
  } else {
    struct sigaction SA = {};
    SA.sa_handler = onTerm;
    SA.sa_flags = SA_RESTART;
    sigemptyset(&SA.sa_mask);
    sigaction(SIGTERM, &SA, nullptr);
  }
  if (const char *V = getenv("CCC_HEARTBEAT"); V && *V) {
    char *End;
    HeartbeatSeconds = strtod(V, &End);
    if (*End || !(HeartbeatSeconds >= 0) || HeartbeatSeconds > 1e6)
      fatal("CCC_HEARTBEAT=%s: expected seconds >= 0", V);
  }
  const char *Dir = getenv("CCC_RUN_DIR");
  if (Dir && *Dir) {
    char Path[kPathMax];
    snprintf(Path, sizeof(Path), "%s/rank.%u", Dir, RT.Rank);
    RankFd = open(Path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    snprintf(Path, sizeof(Path), "%s/events", Dir);
    EventsFd = open(Path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (RankFd < 0 || EventsFd < 0)
      fatal("CCC_RUN_DIR=%s: cannot write there (%s)", Dir, strerror(errno));
    char Host[256] = "?", Line[320];
    gethostname(Host, sizeof(Host) - 1);
    int N = snprintf(Line, sizeof(Line), "%d %s\n", (int)getpid(), Host);
    if (write(RankFd, Line, N) != N)
      fatal("CCC_RUN_DIR=%s: cannot write there (%s)", Dir, strerror(errno));
  }
  // ccc's own messages stay on the real standard error.
  const char *Out = getenv("CCC_STDOUT"), *Err = getenv("CCC_STDERR");
  if ((Out && *Out) || (Err && *Err))
    LogFd = fcntl(2, F_DUPFD_CLOEXEC, 3);
  if (Out && *Out)
    capture(0, Out);
  if (Err && *Err)
    capture(1, Err);
}

void supervisionFresh() {
  // A run from the start prints everything again.
  int64_t None[2] = {0, 0};
  cutCaptured(None);
  event("start", 0);
  startHeartbeat();
}

void supervisionRestored(uint64_t Version) {
  cutCaptured(saved()->OutputSize);
  event("restart", Version);
  runHooks(OnRestart);
  startHeartbeat();
}

void noteRestoreFailed(uint64_t Version, const char *Why) {
  (void)Why; // the log has it
  event("restore-failed", Version);
}

void supervisionBeforeFlush() { runHooks(OnCheckpoint); }

void supervisionAfterFlush() {
  if (!Captured[0] && !Captured[1])
    return;
  SavedSupervision *S = saved();
  for (int I = 0; I < 2; ++I) {
    struct stat St;
    S->OutputSize[I] = Captured[I] && fstat(1 + I, &St) == 0 ? St.st_size : -1;
  }
}

void supervisionImageWritten(uint64_t Version, bool Ok, double Seconds) {
  noteImageWritten(Version, Ok, Seconds);
  runHooks(OnContinue);
}

void noteImageWritten(uint64_t Version, bool Ok, double Seconds) {
  event(Ok ? "image" : "image-failed", Version, Ok ? Seconds : -1);
}

void supervisionStalled(uint64_t Version, double Seconds) {
  event("stall", Version, Seconds);
  runHooks(OnContinue);
}

void noteCommitted(uint64_t Version) { event("commit", Version); }

void injectWhileWriting(const char *TmpPath) {
  if (InjectKind != Inject::Write || RT.Rank != InjectRank ||
      ++ImagesWritten != InjectNth)
    return;
  struct stat St;
  if (stat(TmpPath, &St) == 0)
    truncate(TmpPath, St.st_size / 2);
  logMessage("CCC_INJECT: rank %u killed while writing %s", RT.Rank, TmpPath);
  event("injected", RT.NextVersion - 1);
  kill(getpid(), SIGKILL);
}

void injectBeforeCommit() {
  if (InjectKind != Inject::Commit || ++CommitsWritten != InjectNth)
    return;
  logMessage("CCC_INJECT: rank %u killed before writing a commit record",
             RT.Rank);
  event("injected", 0);
  kill(getpid(), SIGKILL);
}

bool stopRequested() { return StopWanted; }

void exitStopped(uint64_t Version) {
  event("stopped", Version);
  if (RT.Rank == 0)
    logMessage("stopped on SIGTERM after checkpoint %llu (exit status %d); "
               "run the same command again to continue",
               (unsigned long long)Version, kExitStopped);
  _exit(kExitStopped);
}

void heartbeat() {
  HeartbeatDue = 0;
  if (RankFd >= 0)
    futimens(RankFd, nullptr);
}

void noteInterval(double Seconds) { event("interval", 0, Seconds); }

void noteExitStatus(int Status, void *) { event("exit", 0, Status); }

} // namespace ccc

//===-- The API -----------------------------------------------------------===//

using namespace ccc;

static int addHook(uint32_t Kind, uint64_t Fn, uint64_t Arg, bool Fortran) {
  if (!Fn)
    return -1;
  SavedSupervision *S = saved();
  if (S->NHooks == sizeof(S->Hooks) / sizeof(S->Hooks[0])) {
    logMessage("hook not registered: at most %zu hooks",
               sizeof(S->Hooks) / sizeof(S->Hooks[0]));
    return -1;
  }
  S->Hooks[S->NHooks++] = {Kind, Fortran, Fn, Arg};
  return 0;
}

extern "C" int ccc_on_checkpoint(ccc_hook Fn, void *Arg) {
  return addHook(OnCheckpoint, reinterpret_cast<uint64_t>(Fn),
                 reinterpret_cast<uint64_t>(Arg), false);
}
extern "C" int ccc_on_continue(ccc_hook Fn, void *Arg) {
  return addHook(OnContinue, reinterpret_cast<uint64_t>(Fn),
                 reinterpret_cast<uint64_t>(Arg), false);
}
extern "C" int ccc_on_restart(ccc_hook Fn, void *Arg) {
  return addHook(OnRestart, reinterpret_cast<uint64_t>(Fn),
                 reinterpret_cast<uint64_t>(Arg), false);
}
// Fortran (`call ccc_on_checkpoint(sub)`, with or without `use ccc`): a
// procedure argument arrives as its address; sub takes no argument.
extern "C" void ccc_on_checkpoint_(void (*Fn)()) {
  addHook(OnCheckpoint, reinterpret_cast<uint64_t>(Fn), 0, true);
}
extern "C" void ccc_on_continue_(void (*Fn)()) {
  addHook(OnContinue, reinterpret_cast<uint64_t>(Fn), 0, true);
}
extern "C" void ccc_on_restart_(void (*Fn)()) {
  addHook(OnRestart, reinterpret_cast<uint64_t>(Fn), 0, true);
}
