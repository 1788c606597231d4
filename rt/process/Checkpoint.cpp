//===- Checkpoint.cpp - ccc runtime: taking and committing a checkpoint ---===//
//
// The data path of a checkpoint: the site's slow path saves the registers
// (Context.S), then the image (ImageContents.cpp) is written into a
// temporary file, which is fsync'd, renamed and committed, and older
// versions are pruned. The way back is Restart.cpp.
//
// CCC_ASYNC (programs without MPI): the image is staged in memory at the
// site (rt/store/Staging.h) and a runtime thread writes, publishes,
// commits and prunes it while the program computes. The next site, and
// exit, wait for that write first: the next image is compared with this
// one's chunks, and one write at a time bounds the memory to one staged
// image. A failed background write leaves the previous committed version.
//
//===----------------------------------------------------------------------===//
#include "Parallel.h"
#include "RuntimeGlobals.h"
#include "Supervision.h"
#include "rt/common/Config.h"
#include "rt/common/Log.h"
#include "rt/common/Sanitizers.h"
#include "rt/files/FortranUnits.h"
#include "rt/files/LibraryThreads.h"
#include "rt/files/OpenFiles.h"
#include "rt/heap/HeapRegion.h"
#include "rt/layout/Libraries.h"
#include "rt/layout/ProgramStack.h"
#include "rt/store/Staging.h"
#include "rt/store/Store.h"

#include "ccc.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <new>
#include <pthread.h>
#include <unistd.h>

extern "C" volatile int __ccc_pending; // Runtime.cpp

namespace ccc {
namespace {

// Fortran units recorded by takeCheckpoint (before the heap is locked), or
// why not.
bool FortranUnitsOk = true;
char FortranUnitsWhy[kPathMax + 256];

// The image just written (Bytes long) is durable: the next one refers to
// its chunks.
void chainOnto(uint32_t ChainLength, uint64_t Bytes) {
  RT.Prev.swap(RT.Next);
  RT.Next.clear();
  RT.ChainLength = ChainLength;
  RT.Policy.written(ChainLength == 0, Bytes, RT.LastStats);
}

// CCC_ASYNC: the one background write. The main thread owns it, except
// the results while Running (the writer thread sets them before it ends;
// pthread_join orders them).
struct BackgroundWrite {
  StagingWriter *Stage = nullptr;
  bool Refused = false; // no staging buffer, or under MPI (noted once)
  bool NotedSync = false;
  bool Running = false;
  pthread_t Thread;
  uint64_t Version = 0, SiteNs = 0;
  double StallSeconds = 0;
  uint32_t ChainLength = 0;
  char Final[kPathMax], Tmp[kPathMax + 8];
  // Results.
  bool Ok = false;
  uint64_t Bytes = 0;
} BG;

// Never destroyed: an exit handler may still wait for the writer.
alignas(StagingWriter) unsigned char StageStorage[sizeof(StagingWriter)];

// The staging buffer, reserved at the first asynchronous checkpoint; null
// if CCC_ASYNC is off or cannot be honoured (said once).
StagingWriter *staging() {
  if (!Cfg.Async || BG.Refused)
    return nullptr;
  if (BG.Stage)
    return BG.Stage;
  BG.Refused = true;
  if (Parallel) {
    // The version's agreement and commit record need MPI calls, which
    // the writer thread may not make at the thread levels programs ask
    // for; not done yet.
    if (RT.Rank == 0)
      logMessage("CCC_ASYNC=1 is not supported in MPI programs yet: "
                 "checkpoints are written synchronously");
    return nullptr;
  }
  uint64_t Cap = Cfg.AsyncMemory ? Cfg.AsyncMemory : memoryAvailable() / 4;
  auto *S = new (StageStorage) StagingWriter;
  if (!Cap || !S->reserve(Cap)) {
    logMessage("CCC_ASYNC=1: cannot reserve %llu bytes for the staging "
               "buffer (%s): checkpoints are written synchronously",
               (unsigned long long)Cap,
               Cap ? strerror(errno)
                   : "MemAvailable "
                     "unknown");
    return nullptr;
  }
  BG.Refused = false;
  return BG.Stage = S;
}

void noteWrittenSynchronously(uint64_t V, uint64_t Need, uint64_t Cap) {
  if (!BG.NotedSync)
    logMessage("CCC_ASYNC=1: checkpoint %llu needs about %llu MiB of staging "
               "buffer, CCC_ASYNC_MEMORY allows %llu MiB: it is written "
               "synchronously (reported once)",
               (unsigned long long)V, (unsigned long long)(Need >> 20),
               (unsigned long long)(Cap >> 20));
  else
    CCC_INFO("checkpoint %llu written synchronously (%llu MiB to stage)",
             (unsigned long long)V, (unsigned long long)(Need >> 20));
  BG.NotedSync = true;
}

// The writer thread: the staged image into its file, then as the
// synchronous path. Only files, libc's heap (__libc_malloc, through
// ImageWriter and zstd) and write()s of log lines and events.
void *writeInBackground(void *) {
  uint64_t T0 = nowNs(CLOCK_MONOTONIC);
  unsigned long long V = BG.Version;
  CCC_DEBUG("checkpoint %llu: background write started", V);
  bool Ok;
  {
    ImageWriter W;
    Ok = W.open(BG.Tmp, Cfg.CompressLevel, Cfg.Threads) &&
         BG.Stage->replay(W) && W.finish();
    BG.Bytes = W.bytesWritten();
    if (!Ok) {
      logMessage("checkpoint %llu not taken: %s: %s; the previous committed "
                 "checkpoint is kept",
                 V, BG.Tmp, W.error());
      unlink(BG.Tmp);
    }
  }
  if (Ok) {
    injectWhileWriting(BG.Tmp);
    if (!publish(BG.Tmp, BG.Final, imageDir())) {
      logMessage("checkpoint %llu not taken: cannot rename %s: %s", V, BG.Tmp,
                 strerror(errno));
      unlink(BG.Tmp);
      Ok = false;
    }
  }
  if (Ok) {
    char Err[kPathMax + 128];
    injectBeforeCommit();
    if (!writeCommit(Cfg.Dir, Cfg.Name, V, 1, Err, sizeof(Err))) {
      logMessage("checkpoint %llu not committed: %s; the previous committed "
                 "checkpoint is kept",
                 V, Err);
      unlink(BG.Final);
      Ok = false;
    }
  }
  double Write = (nowNs(CLOCK_MONOTONIC) - T0) / 1e9;
  if (Ok) {
    noteCommitted(V);
    pruneVersions(Cfg.Dir, imageDir(), Cfg.Name, Cfg.Keep);
    CCC_INFO("checkpoint %llu committed: %s, %llu bytes; the program waited "
             "%.3f s at its site, the background write took %.3f s",
             V, BG.Final, (unsigned long long)BG.Bytes, BG.StallSeconds, Write);
  }
  noteImageWritten(V, Ok, (nowNs(CLOCK_MONOTONIC) - BG.SiteNs) / 1e9);
  BG.Ok = Ok;
  return nullptr;
}

// Stages version V and starts its writer: 1, or 0 if V is not taken, or
// -1 if it must be written synchronously (it does not fit).
int stageAndStart(StagingWriter &S, uint64_t V, const char *Final,
                  const char *Tmp, uint64_t SiteNs) {
  uint64_t Need = imageMemoryBound();
  if (Need > S.capacity()) {
    noteWrittenSynchronously(V, Need, S.capacity());
    return -1;
  }
  S.reset();
  if (!writeImage(S, V)) {
    // Undone: the synchronous path counts this checkpoint again.
    RT.State.Checkpoints--;
    if (S.overflowed()) {
      noteWrittenSynchronously(V, S.used(), S.capacity());
      return -1;
    }
    logMessage("checkpoint %llu not taken: cannot stage its image: %s; the "
               "previous committed checkpoint is kept",
               (unsigned long long)V, strerror(errno));
    return 0;
  }
  BG.Version = V;
  BG.SiteNs = SiteNs;
  BG.ChainLength = S.header().ChainLength;
  BG.Ok = false;
  snprintf(BG.Final, sizeof(BG.Final), "%s", Final);
  snprintf(BG.Tmp, sizeof(BG.Tmp), "%s", Tmp);
  uint64_t Now = nowNs(CLOCK_MONOTONIC);
  BG.StallSeconds = (Now - SiteNs) / 1e9;
  CCC_DEBUG("checkpoint %llu staged: %llu bytes in %.3f s",
            (unsigned long long)V, (unsigned long long)S.used(),
            BG.StallSeconds);
  // Signals stay with the program's threads.
  sigset_t All, Old;
  sigfillset(&All);
  pthread_sigmask(SIG_SETMASK, &All, &Old);
  pthread_attr_t A;
  pthread_attr_init(&A);
  pthread_attr_setstacksize(&A, 1 << 21);
  int E = pthread_create(&BG.Thread, &A, writeInBackground, nullptr);
  pthread_attr_destroy(&A);
  pthread_sigmask(SIG_SETMASK, &Old, nullptr);
  BG.Running = E == 0;
  if (E) {
    logMessage("CCC_ASYNC=1: cannot start the writer thread (%s): "
               "checkpoint %llu is written synchronously",
               strerror(E), (unsigned long long)V);
    writeInBackground(nullptr);
  }
  return 1;
}

// Writes version V, commits it and prunes old ones. On any failure the
// temporary file is removed and older committed versions stay untouched.
__attribute__((noinline)) bool writeAndCommit() {
  uint64_t T0 = nowNs(CLOCK_MONOTONIC);
  waitForBackgroundWrite();
  // An MPI rank deletes its files that CCC_KEEP no longer needs, as far as
  // the commit records it sees say, before it takes more disk.
  if (Parallel)
    pruneOwnFiles();
  uint64_t V = RT.NextVersion++;
  char Final[kPathMax], Tmp[kPathMax + 8];
  imagePath(Final, imageDir(), Cfg.Name, V, RT.Rank);
  snprintf(Tmp, sizeof(Tmp), "%s.tmp", Final);
  uint64_t Bytes = 0, ChainBase = V;
  uint32_t ChainLength = 0;
  {
    char Why[kPathMax + 256];
    if (!FortranUnitsOk ||
        (recordOpenFiles && !recordOpenFiles(Why, sizeof(Why))) ||
        !checkLibraryThreads(Why, sizeof(Why))) {
      logMessage("checkpoint %llu not taken: %s; the previous committed "
                 "checkpoint is kept",
                 (unsigned long long)V, FortranUnitsOk ? Why : FortranUnitsWhy);
      return false;
    }
    RT.State.LibraryKeys = saveLibraryKeys();
  }
  if (StagingWriter *S = staging()) {
    int R = stageAndStart(*S, V, Final, Tmp, T0);
    if (R >= 0)
      return R;
  }
  {
    ImageWriter W;
    bool Ok = W.open(Tmp, Cfg.CompressLevel, Cfg.Threads) && writeImage(W, V);
    Bytes = W.bytesWritten();
    ChainLength = W.header().ChainLength;
    ChainBase = W.header().ChainBase;
    if (!Ok) {
      logMessage("checkpoint %llu not taken: %s: %s; the previous committed "
                 "checkpoint is kept",
                 (unsigned long long)V, Tmp, W.error());
      unlink(Tmp);
      return false;
    }
  }
  injectWhileWriting(Tmp);
  if (!publish(Tmp, Final, imageDir())) {
    logMessage("checkpoint %llu not taken: cannot rename %s: %s",
               (unsigned long long)V, Tmp, strerror(errno));
    unlink(Tmp);
    return false;
  }
  const ChunkStats &CS = RT.LastStats;
  uint64_t CopyNs = 0;
  if (Parallel && nodeLocalStorage()) {
    char Why[kPathMax + 256];
    uint64_t C0 = nowNs(CLOCK_MONOTONIC);
    if (Parallel->imageWritten &&
        !Parallel->imageWritten(Final, Why, sizeof(Why))) {
      logMessage("checkpoint %llu not taken: %s; the previous committed "
                 "checkpoint is kept",
                 (unsigned long long)V, Why);
      unlink(Final);
      return false;
    }
    CopyNs = nowNs(CLOCK_MONOTONIC) - C0;
  }
  if (Parallel) {
    // Durable here; the layer commits the version once every rank's is.
    // The next image may refer to this one even if the version is never
    // committed: pruning keeps every image a kept version refers to.
    chainOnto(ChainLength, Bytes);
    noteOwnImage(V, ChainBase);
    CCC_DEBUG("checkpoint %llu written: %s, %llu bytes, %.3f s (partner "
              "copy %.3f s); %llu bytes of memory stored, %llu unchanged",
              (unsigned long long)V, Final, (unsigned long long)Bytes,
              (nowNs(CLOCK_MONOTONIC) - T0) / 1e9, CopyNs / 1e9,
              (unsigned long long)CS.StoredBytes,
              (unsigned long long)CS.ReferencedBytes);
    return true;
  }
  char Err[kPathMax + 128];
  injectBeforeCommit();
  if (!writeCommit(Cfg.Dir, Cfg.Name, V, 1, Err, sizeof(Err))) {
    logMessage("checkpoint %llu not committed: %s; the previous committed "
               "checkpoint is kept",
               (unsigned long long)V, Err);
    unlink(Final);
    return false;
  }
  chainOnto(ChainLength, Bytes);
  noteCommitted(V);
  pruneVersions(Cfg.Dir, imageDir(), Cfg.Name, Cfg.Keep);
  CCC_INFO("checkpoint %llu committed: %s, %llu bytes, %.3f s; %llu bytes of "
           "memory stored, %llu unchanged",
           (unsigned long long)V, Final, (unsigned long long)Bytes,
           (nowNs(CLOCK_MONOTONIC) - T0) / 1e9,
           (unsigned long long)CS.StoredBytes,
           (unsigned long long)CS.ReferencedBytes);
  return true;
}

uint64_t readCanary() {
  uint64_t V;
  asm volatile("movq %%fs:0x28, %0" : "=r"(V));
  return V;
}

} // namespace

void waitForBackgroundWrite() {
  if (!BG.Running)
    return;
  uint64_t T0 = nowNs(CLOCK_MONOTONIC);
  pthread_join(BG.Thread, nullptr);
  BG.Running = false;
  CCC_DEBUG("checkpoint %llu: waited %.3f s for its background write",
            (unsigned long long)BG.Version,
            (nowNs(CLOCK_MONOTONIC) - T0) / 1e9);
  if (BG.Ok)
    chainOnto(BG.ChainLength, BG.Bytes);
}

// Kept small: the only state live across __ccc_ctx_save is in RT.
__attribute__((noinline)) int takeCheckpoint() {
  supervisionBeforeFlush();
  fflush(nullptr); // buffered output belongs to the past, not to the image
  // Fortran units too; flang's runtime allocates, so before the heap lock.
  int Errno = errno;
  FortranUnitsOk = !recordFortranUnits ||
                   recordFortranUnits(FortranUnitsWhy, sizeof(FortranUnitsWhy));
  errno = Errno;
  supervisionAfterFlush();
  RT.Ctx.Errno = errno;
  pthread_sigmask(SIG_BLOCK, nullptr,
                  reinterpret_cast<sigset_t *>(RT.Ctx.SigMask));
  RT.Ctx.StackCanary = readCanary();
  heapLock();
  if (__ccc_ctx_save(&RT.Ctx)) {
    // Resumed in a new process (jumpToSavedContext); the heap lock was
    // saved held.
    afterStackSwitch();
    heapUnlock();
    initOpenMPAfterRestart();
    // Fortran units are opened again here, as the program's own OPENs.
    if (restoreFortranUnits)
      restoreFortranUnits();
    return CCC_RESTARTED;
  }
  RT.Ctx.StackLow = RT.Ctx.Rsp - kRedZone;
  RT.Ctx.StackHigh = ProgramStack.High;
  int SavedErrno = RT.Ctx.Errno;
  markDeadLocalsOfCallers();
  uint64_t T0 = nowNs(CLOCK_MONOTONIC), V = RT.NextVersion;
  bool Ok = writeAndCommit();
  bool Background = BG.Running && BG.Version == V;
  // A stop after this checkpoint exits at once: it must be committed.
  if (Background && stopRequested()) {
    waitForBackgroundWrite();
    Ok = BG.Ok;
  }
  LastCheckpointEnd = nowNs(CLOCK_MONOTONIC);
  // Under CCC_ASYNC, what the program pays (CCC_INTERVAL=auto's cost).
  LastCheckpointCost = (LastCheckpointEnd - T0) / 1e9;
  if (Background)
    supervisionStalled(V, LastCheckpointCost);
  else
    supervisionImageWritten(V, Ok, LastCheckpointCost);
  // A timer tick or signal during the write is answered by this checkpoint.
  Requested = 0;
  __ccc_pending = 0;
  heapUnlock();
  errno = SavedErrno;
  return Ok ? CCC_TAKEN : CCC_NONE;
}

} // namespace ccc
