//===- Runtime.cpp - ccc runtime: start and the sites' slow path ----------===//
//
// The runtime's start: the checkpoint directory is opened and locked, the
// program stack mapped at its fixed address, a restart attempted
// (Restart.cpp), and otherwise main run afresh on the program stack. Then
// the slow path of every checkpoint site and the API of ccc.h, which decide
// whether a checkpoint may be taken here (Checkpoint.cpp takes it).
//
//===----------------------------------------------------------------------===//
#include "Runtime.h"
#include "Parallel.h"
#include "RuntimeGlobals.h"
#include "Supervision.h"
#include "rt/common/Config.h"
#include "rt/common/Log.h"
#include "rt/common/Sanitizers.h"
#include "rt/files/LibraryThreads.h"
#include "rt/files/OpenFiles.h"
#include "rt/heap/Exclusions.h"
#include "rt/heap/HeapRegion.h"
#include "rt/heap/LibraryHeap.h"
#include "rt/layout/Libraries.h"
#include "rt/layout/Process.h"
#include "rt/layout/ProgramStack.h"
#include "rt/layout/UnsavedGlobals.h"
#include "rt/store/RunLock.h"
#include "rt/store/Store.h"

#include "ccc.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>

extern "C" {
// The flag every site tests (the pass inlines `load volatile; br`).
volatile int __ccc_pending = 0;
}

namespace ccc {
RuntimeGlobals RT;

namespace {

//===-- Stack -------------------------------------------------------------===//

// Above the top of a process's own stack lie the environment and the
// auxiliary vector, so a program that reads a little past a local array of
// main reads them, harmlessly. kStackSlack bytes of zeros above the
// program stack's top keep such a program running as it did without ccc
// (they are never saved: what the program reads there is not its state).
constexpr size_t kStackSlack = 1 << 16;

void mapStack() {
  size_t Size = Cfg.StackSize;
  const size_t Guard = 1 << 16;
  uintptr_t Low = kStackTop - Size;
  void *P = mmap(
      reinterpret_cast<void *>(Low - Guard), Size + Guard + kStackSlack,
      PROT_READ | PROT_WRITE,
      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (P != reinterpret_cast<void *>(Low - Guard))
    fatal("cannot map the program stack at 0x%lx (%zu bytes): %s",
          (unsigned long)Low, Size, strerror(errno));
  mprotect(P, Guard, PROT_NONE); // overflow faults instead of corrupting
  ProgramStack.Low = Low;
  ProgramStack.High = kStackTop;
}

// Reports an overflow of the fixed stack instead of dying silently.
void installOverflowReporter() {
  static char AltStack[1 << 16];
  stack_t SS = {};
  SS.ss_sp = AltStack;
  SS.ss_size = sizeof(AltStack);
  sigaltstack(&SS, nullptr);
  struct sigaction SA = {};
  SA.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
  SA.sa_sigaction = [](int Sig, siginfo_t *Info, void *) {
    uintptr_t A = reinterpret_cast<uintptr_t>(Info->si_addr);
    if (A < ProgramStack.Low && A + (1 << 16) >= ProgramStack.Low)
      logMessage("stack overflow on the program stack (%zu bytes; set "
                 "CCC_STACK_SIZE or ulimit -s)",
                 Cfg.StackSize);
    raise(Sig);
  };
  sigemptyset(&SA.sa_mask);
  sigaction(SIGSEGV, &SA, nullptr);
}

} // namespace

namespace {

//===-- Directory ---------------------------------------------------------===//

void openStore() {
  if (!makeDirectories(Cfg.Dir) || access(Cfg.Dir, W_OK | X_OK) != 0)
    fatal("CCC_DIR=%s is not a writable directory (%s); set CCC_DIR to one",
          Cfg.Dir, strerror(errno));
  // One process per NAME and rank writes into a directory at a time.
  char Lock[kPathMax];
  snprintf(Lock, sizeof(Lock), "%s/%s.r%u.lock", Cfg.Dir, Cfg.Name, RT.Rank);
  lockRun(Lock, Cfg.Name);
  removeStaleTemporaries(Cfg.Dir, Cfg.Name, RT.Rank);
  uint64_t LowestShared, LowestLocal = 0;
  uint64_t Highest = highestVersion(Cfg.Dir, Cfg.Name, RT.Rank, &LowestShared);
  if (nodeLocalStorage()) {
    if (!makeDirectories(Cfg.LocalDir) ||
        access(Cfg.LocalDir, W_OK | X_OK) != 0)
      fatal("CCC_LOCAL_DIR=%s is not a writable directory (%s); set "
            "CCC_LOCAL_DIR to one, or unset it",
            Cfg.LocalDir, strerror(errno));
    removeStaleTemporaries(Cfg.LocalDir, Cfg.Name, RT.Rank);
    uint64_t Local =
        highestVersion(Cfg.LocalDir, Cfg.Name, RT.Rank, &LowestLocal);
    Highest = Local > Highest ? Local : Highest;
  }
  if (Parallel)
    startRankPruning(nodeLocalStorage() ? LowestLocal : LowestShared,
                     LowestShared);
  RT.NextVersion = Highest + 1;
}

bool onProgramStack() {
  uintptr_t Sp = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  return Sp >= ProgramStack.Low && Sp < ProgramStack.High;
}

//===-- Restart -----------------------------------------------------------===//
//===-- Fresh start -------------------------------------------------------===//

// argv and envp are copied into the heap region: main's frame holds pointers
// to them, and the process stack they live on moves between runs.
char **copyStrings(char **V, int *CountOut) {
  int N = 0;
  while (V[N])
    ++N;
  char **Out = static_cast<char **>(__ccc_malloc((N + 1) * sizeof(char *)));
  if (!Out)
    fatal("out of memory copying arguments");
  for (int I = 0; I < N; ++I)
    Out[I] = __ccc_strdup(V[I]);
  Out[N] = nullptr;
  if (CountOut)
    *CountOut = N;
  return Out;
}

// Runs at exit, after the program's own exit handlers (it is registered
// before main): a job that ends with status 0 is recorded as completed, by
// rank 0 once MPI has finished (every commit of the job decided), so that
// running it again starts afresh.
void recordCompletion(int Status, void *) {
  // CCC_ASYNC: the last checkpoint's write completes (or fails) first,
  // whatever the status, as a synchronous one would have.
  waitForBackgroundWrite();
  if (Status != 0 || !RT.Ready)
    return;
  // Each rank prunes its own files at its checkpoints; the job's last
  // commit may have come after its last one.
  if (Parallel)
    pruneOwnFiles();
  if (RT.Rank != 0)
    return;
  // The record says the job's output is complete: exit() would flush
  // stdio only after this handler, and a kill in between would lose it.
  fflush(nullptr);
  uint64_t Versions[1024];
  int N = listCommitted(Cfg.Dir, Cfg.Name, Versions, 1024);
  if (!writeCompleted(Cfg.Dir, Cfg.Name, N ? Versions[0] : 0, RT.NRanks))
    logMessage("cannot record in %s that %s completed (%s): running it again "
               "will resume from its last checkpoint",
               Cfg.Dir, Cfg.Name, strerror(errno));
  else
    CCC_INFO("%s completed; its next run starts afresh", Cfg.Name);
}

[[noreturn]] void runUserMain(void *P) {
  afterStackSwitch();
  auto *A = static_cast<MainArgs *>(P);
  int R = A->Main(A->Argc, A->Argv, A->Envp);
  exit(R);
}

} // namespace

// Links rt/files/LibraryFiles.cpp, which no other object refers to: the
// executable's open, fopen, close... must serve shared libraries.
[[gnu::used]] const char *const PullLibraryFiles = &LibraryFilesLinked;

[[noreturn]] void runtimeStart(UserMain Main, char **Argv, char **Envp) {
  if (Parallel) {
    Parallel->launchRank(&RT.Rank, &RT.NRanks);
    OnFatal = Parallel->abortJob;
  }
  RT.BuildIdLen = executableBuildId(RT.BuildId, sizeof(RT.BuildId));
  RT.LoadMapLen = currentLoadMap(RT.LoadMap, sizeof(RT.LoadMap));
  scanLibraries(); // first: registeredGlobals takes libraries' records
  sortEarlyLibraryState();
  checkUnsavedGlobals();
  openStore();
  mapStack();
  installOverflowReporter();
  on_exit(noteExitStatus, nullptr); // runs after recordCompletion
  on_exit(recordCompletion, nullptr);
  supervisionStart();
  restartIfPossible();

  // Instrumented static constructors may have mapped it already.
  if (!heapIsMapped() && !heapMap(kHeapBase, Cfg.HeapReserve, true))
    fatal("cannot map the heap region at 0x%lx: %s", (unsigned long)kHeapBase,
          strerror(errno));
  auto *A = static_cast<MainArgs *>(__ccc_malloc(sizeof(MainArgs)));
  A->Argv = copyStrings(Argv, &A->Argc);
  A->Envp = copyStrings(Envp, nullptr);
  A->Main = Main;
  RT.State.MainArgs = reinterpret_cast<uint64_t>(A);
  startTriggers();
  // After the triggers: a supervisor may signal a process that said start.
  supervisionFresh();
  reserveLibraryKeys();
  openLibraryHeap();
  RT.Ready = true;
  beforeStackSwitch(ProgramStack.Low, ProgramStack.High);
  __ccc_run_on_stack(runUserMain, A,
                     reinterpret_cast<void *>(ProgramStack.High));
}

} // namespace ccc

//===-- The API -----------------------------------------------------------===//

using namespace ccc;

// The slow path of every site. Instrumented sites reach it through
// __ccc_checkpoint_slow in Entry.cpp (which links the runtime's main); the
// API functions below do not, so a program built without the pass can link
// the runtime and keep its own main.
// libstdc++'s per-thread exception state: { caught exceptions, uncaught
// count }. Weak: a C or Fortran program has no libstdc++.
extern "C" __attribute__((weak)) void **__cxa_get_globals() noexcept;

static bool inCxxExceptionHandling() {
  if (!__cxa_get_globals)
    return false;
  void **G = __cxa_get_globals();
  return G[0] || *reinterpret_cast<unsigned *>(&G[1]);
}

namespace ccc {
static int checkpointSlowAtSite(int Kind);
}
static void requestAtNextSite(int Kind);

// The ranges the pass marked dead hold for this call of the slow path only.
// Another thread's site neither reads nor clears them: they belong to the
// main thread's (see __ccc_dead_at_site).
int ccc::checkpointSlow(int Kind) {
  if (RT.Ready && !onProgramStack()) {
    // An OpenMP worker (inside a region: the main thread there is refused
    // below) or a thread of the program's own. Its stack is in no image.
    static std::atomic<bool> Warned{false};
    if (Kind == CCC_SITE_FORCE || __ccc_pending) {
      if (!Warned.exchange(true))
        logMessage("checkpoint not taken: ccc_checkpoint() was reached on a "
                   "thread other than the main one, whose stack no image "
                   "holds; it will be taken at the main thread's next site "
                   "outside OpenMP constructs (reported once)");
      requestAtNextSite(Kind);
    }
    return CCC_NONE;
  }
  int R = checkpointSlowAtSite(Kind);
  forgetDeadAtSite();
  return R;
}

// A site that may not checkpoint where it is passes a forced request on to
// the next site that may (a timer's or signal's request just stays).
static void requestAtNextSite(int Kind) {
  if (Kind == CCC_SITE_FORCE) {
    Requested = 1;
    __ccc_pending = 1;
  }
}

int ccc::checkpointSlowAtSite(int Kind) {
  if (Kind == CCC_SITE_MAYBE && !__ccc_pending)
    return CCC_NONE;
  if (HeartbeatDue)
    heartbeat();
  if (!RT.Ready) {
    static bool Warned;
    if (!Warned && !Cfg.Disabled)
      logMessage("ccc_checkpoint() called before main or in a program not "
                 "built with the ccc pass: no checkpoint taken");
    Warned = true;
    return CCC_NONE;
  }
  if (const char *Where = openMPConstructAtSite()) {
    static bool Warned;
    if (!Warned)
      logMessage("checkpoint not taken: ccc_checkpoint() was reached %s, "
                 "whose threads and task data no image holds; it will be "
                 "taken at the next site outside OpenMP constructs "
                 "(reported once)",
                 Where);
    Warned = true;
    requestAtNextSite(Kind);
    return CCC_NONE; // a pending request stays pending
  }
  if (inCxxExceptionHandling()) {
    static bool Warned;
    if (!Warned)
      logMessage("checkpoint not taken: ccc_checkpoint() was reached inside "
                 "a C++ catch handler or during unwinding, whose exception "
                 "object libstdc++ keeps outside the saved state; it will "
                 "be taken at the next site outside (reported once)");
    Warned = true;
    return CCC_NONE; // a pending request stays pending
  }
  if (Parallel)
    return Parallel->site(Kind, takeCheckpoint);
  // Cleared before Requested is read: a request that arrives in between
  // sets __ccc_pending again and is seen at the next site.
  __ccc_pending = 0;
  if (Kind == CCC_SITE_MAYBE && !Requested)
    return CCC_NONE; // a heartbeat only
  Requested = 0;
  uint64_t V = RT.NextVersion;
  int R = takeCheckpoint();
  if (R == CCC_TAKEN && stopRequested())
    exitStopped(V);
  if (R == CCC_NONE && stopRequested())
    logMessage("SIGTERM: checkpoint %llu could not be written, the program "
               "goes on (a second SIGTERM ends it)",
               (unsigned long long)V);
  return R;
}

extern "C" int ccc_checkpoint(void) {
  if (!__ccc_pending)
    return CCC_NONE;
  return checkpointSlow(CCC_SITE_MAYBE);
}

extern "C" int ccc_checkpoint_force(void) {
  return checkpointSlow(CCC_SITE_FORCE);
}

extern "C" int ccc_restarted(void) { return RT.Restarted; }

// Fortran's external names, for `call ccc_checkpoint()` without `use ccc`
// (and for programs built without the pass, where these are plain calls).
extern "C" int ccc_checkpoint_(void) { return ccc_checkpoint(); }
extern "C" int ccc_checkpoint_force_(void) { return ccc_checkpoint_force(); }
extern "C" int ccc_restarted_(void) { return ccc_restarted(); }
// The status-returning functions of Fortran's module ccc (include/ccc.f90).
extern "C" int ccc_checkpoint_status(void) { return ccc_checkpoint(); }
extern "C" int ccc_checkpoint_force_status(void) {
  return ccc_checkpoint_force();
}
