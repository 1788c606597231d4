//===- Checkpoint.cpp - ccc runtime: taking and committing a checkpoint ---===//
//
// The data path of a checkpoint: the site's slow path saves the registers
// (Context.S), then the image (ImageContents.cpp) is written into a
// temporary file, which is fsync'd, renamed and committed, and older
// versions are pruned. The way back is Restart.cpp.
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
#include "rt/store/Store.h"

#include "ccc.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
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

// Writes version V, commits it and prunes old ones. On any failure the
// temporary file is removed and older committed versions stay untouched.
__attribute__((noinline)) bool writeAndCommit() {
  uint64_t T0 = nowNs(CLOCK_MONOTONIC);
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
  LastCheckpointEnd = nowNs(CLOCK_MONOTONIC);
  LastCheckpointCost = (LastCheckpointEnd - T0) / 1e9;
  supervisionImageWritten(V, Ok, LastCheckpointCost);
  // A timer tick or signal during the write is answered by this checkpoint.
  Requested = 0;
  __ccc_pending = 0;
  heapUnlock();
  errno = SavedErrno;
  return Ok ? CCC_TAKEN : CCC_NONE;
}

} // namespace ccc
