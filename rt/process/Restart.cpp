//===- Restart.cpp - ccc runtime: restoring a process from its image ------===//
//
// A restart maps the heap and stack at the same addresses, checks that the
// image belongs to this build and layout, writes every range back (an
// incremental image's chain from its base) and jumps into the saved
// context, so that ccc_checkpoint() returns CCC_RESTARTED in the restored
// frame. Which image: the newest one every rank can restore, under
// CCC_RESTART's rule.
//
//===----------------------------------------------------------------------===//
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
#include "rt/store/Store.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ccc {
namespace {

struct RestoreCtx {
  char *Why;
  size_t WhyCap;
  bool Bad;
};

// Faults in the pages a range is about to be written to, in one call: a
// restore writes into fresh memory, and one fault per page cost 3x the
// whole restore on this project's VMs (bench/ckptcost). Linux >= 5.14;
// older kernels refuse and the pages fault in as before.
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
void *prefaulted(uint64_t A, uint64_t L) {
  const uint64_t Page = 4096;
  uint64_t Lo = A & ~(Page - 1), Hi = (A + L + Page - 1) & ~(Page - 1);
  if (L)
    madvise(reinterpret_cast<void *>(Lo), Hi - Lo, MADV_POPULATE_WRITE);
  return reinterpret_cast<void *>(A);
}

// Faults in the heap chunks an image lists, ahead of the decompression
// that fills them, on a second thread (decompression is single-threaded).
void *prefaultHeapChunks(void *P) {
  const ChunkTable &T = *static_cast<const ChunkTable *>(P);
  uint64_t Lo = 0, Hi = 0;
  for (size_t I = 0; I <= T.size(); ++I) {
    bool More = I < T.size();
    uint64_t A = More ? T[I].Addr : 0, L = More ? T[I].Len : 0;
    bool InHeap = More && T[I].Section == SecHeap && A >= heapBase() &&
                  L <= heapReserve() && A - heapBase() <= heapReserve() - L;
    if (InHeap && A == Hi && Hi - Lo < (4u << 20)) {
      Hi = A + L; // coalesce runs of up to 4 MiB into one call
      continue;
    }
    if (Hi > Lo)
      prefaulted(Lo, Hi - Lo);
    Lo = Hi = InHeap ? A : 0;
    if (InHeap)
      Hi = A + L;
  }
  return nullptr;
}

void *globalSink(uint64_t A, uint64_t L, void *C) {
  size_t NG;
  const GlobalRange *G = registeredGlobals(&NG);
  for (size_t I = 0; I < NG; ++I) {
    uintptr_t Addr = G[I].address();
    // A piece of one global (images cut ranges into chunks).
    if (A >= Addr && L <= G[I].Size && A - Addr <= G[I].Size - L)
      return prefaulted(A, L);
  }
  // A shared library's writable data (rt/layout/Libraries.cpp).
  if (inSavedLibraryData(A, L))
    return prefaulted(A, L);
  auto *R = static_cast<RestoreCtx *>(C);
  if (!R->Bad)
    snprintf(R->Why, R->WhyCap,
             "the image holds a global at 0x%llx (%llu bytes) this program "
             "does not register%s",
             (unsigned long long)A, (unsigned long long)L,
             librariesSaved() ? ""
                              : " (state of a shared library: this run has "
                                "CCC_LIBRARIES=off, the image's had not)");
  R->Bad = true;
  return nullptr;
}

void *heapSink(uint64_t A, uint64_t L, void *C) {
  if (A >= heapBase() && L <= heapReserve() &&
      A - heapBase() <= heapReserve() - L)
    return prefaulted(A, L);
  auto *R = static_cast<RestoreCtx *>(C);
  if (!R->Bad)
    snprintf(R->Why, R->WhyCap, "heap range 0x%llx+%llu outside the region",
             (unsigned long long)A, (unsigned long long)L);
  R->Bad = true;
  return nullptr;
}

void *stackSink(uint64_t A, uint64_t L, void *C) {
  if (A >= ProgramStack.Low && L <= ProgramStack.High - A)
    return prefaulted(A, L);
  auto *R = static_cast<RestoreCtx *>(C);
  if (!R->Bad)
    snprintf(R->Why, R->WhyCap,
             "the saved stack (from 0x%llx) does not fit the program stack "
             "(%zu bytes; set CCC_STACK_SIZE as in the first run)",
             (unsigned long long)A,
             (size_t)(ProgramStack.High - ProgramStack.Low));
  R->Bad = true;
  return nullptr;
}

void *chunkSink(uint32_t Section, uint64_t A, uint64_t L, void *C) {
  switch (Section) {
  case SecGlobals:
    return globalSink(A, L, C);
  case SecHeap:
    return heapSink(A, L, C);
  case SecStack:
    return stackSink(A, L, C);
  }
  auto *R = static_cast<RestoreCtx *>(C);
  snprintf(R->Why, R->WhyCap, "a chunk of unknown section %u", Section);
  R->Bad = true;
  return nullptr;
}

[[noreturn]] __attribute__((noinline, no_stack_protector)) void
jumpToSavedContext() {
  pthread_sigmask(SIG_SETMASK, reinterpret_cast<sigset_t *>(RT.Ctx.SigMask),
                  nullptr);
  errno = RT.Ctx.Errno;
  // Frames on the restored stack were protected with the old process's
  // canary; nothing after this line returns through a protected frame.
  asm volatile("movq %0, %%fs:0x28" ::"r"(RT.Ctx.StackCanary) : "memory");
  beforeStackSwitch(ProgramStack.Low, ProgramStack.High);
  __ccc_ctx_restore(&RT.Ctx);
}

// The sizes of the restored image's chain, for ChainPolicy: its full image
// and the increments after it, this one included.
void measureRestoredChain(const ImageHeader &H) {
  char P[kPathMax];
  struct stat St;
  auto Size = [&](uint64_t V) -> uint64_t {
    imagePath(P, imageDir(), Cfg.Name, V, RT.Rank);
    return stat(P, &St) == 0 ? (uint64_t)St.st_size : 0;
  };
  uint64_t Chain = 0;
  for (uint64_t V = H.ChainBase + 1; V <= H.Version; ++V)
    Chain += Size(V);
  RT.Policy.restored(H.ChainLength, Size(H.ChainBase), Chain, Size(H.Version));
}

// The host that wrote the image restoreFrom read last ("" if the image is
// older than that field).
char ImageHost[64];

// A restart on another host than the image's fails for reasons the host
// explains (its libraries, its local files): Why says so.
void noteOtherHost(char *Why, size_t Cap) {
  char Here[64] = {0};
  gethostname(Here, sizeof(Here) - 1);
  size_t N = strlen(Why);
  if (ImageHost[0] && strcmp(ImageHost, Here) && N + 1 < Cap)
    snprintf(Why + N, Cap - N,
             " (the image was written on host %s, this is %s: the same files "
             "must be at the same paths here)",
             ImageHost, Here);
}

// Checks everything that can be checked before touching memory, then writes
// the image back. False (with Why) if this image cannot be used.
bool restoreFrom(const char *Path, bool Apply, char *Why, size_t WhyCap,
                 char *Blob = nullptr, size_t *BlobLen = nullptr) {
  ImageReader R;
  if (!R.open(Path)) {
    snprintf(Why, WhyCap, "%s", R.error());
    return false;
  }
  const ImageHeader &H = R.header();
  if (H.AbiVersion != CCC_ABI_VERSION) {
    snprintf(Why, WhyCap, "written by a ccc with ABI %u (this is %u)",
             H.AbiVersion, CCC_ABI_VERSION);
    return false;
  }
  if (H.BuildIdLen != RT.BuildIdLen ||
      memcmp(H.BuildId, RT.BuildId, RT.BuildIdLen) != 0) {
    snprintf(Why, WhyCap,
             "written by another build of %s (build id "
             "differs): the program was recompiled",
             H.ProgramName);
    return false;
  }
  if (H.Rank != RT.Rank || H.NRanks != RT.NRanks) {
    snprintf(Why, WhyCap, "image of rank %u of %u ranks, this is rank %u of %u",
             H.Rank, H.NRanks, RT.Rank, RT.NRanks);
    return false;
  }
  const SectionEntry *SCtx = R.find(SecContext), *SRt = R.find(SecRuntime),
                     *SMap = R.find(SecLoadMap), *SG = R.find(SecGlobals),
                     *SH = R.find(SecHeap), *SS = R.find(SecStack),
                     *SC = R.find(SecChunks);
  if (!SCtx || !SRt || !SMap || !SG || !SH || !SS || !SC) {
    snprintf(Why, WhyCap, "a section is missing");
    return false;
  }
  static char SavedMap[sizeof(RT.LoadMap)];
  memset(SavedMap, 0, sizeof(SavedMap));
  SavedContext Ctx;
  RuntimeState State{}; // an older image's is shorter: zero the rest
  if (!R.readBlob(*SCtx, &Ctx, sizeof(Ctx)) ||
      !R.readBlob(*SRt, &State, sizeof(State)) ||
      !R.readBlob(*SMap, SavedMap, sizeof(SavedMap) - 1)) {
    snprintf(Why, WhyCap, "%s", R.error());
    return false;
  }
  memcpy(ImageHost, State.Host, sizeof(ImageHost) - 1);
  wantProgramFds(State.ProgramFds);
  if (!loadMapsCompatible(SavedMap, RT.LoadMap, Why, WhyCap)) {
    noteOtherHost(Why, WhyCap);
    return false;
  }
  ChunkTable Chunks;
  if (!Chunks.load(R, *SC)) {
    snprintf(Why, WhyCap, "%s", R.error());
    return false;
  }
  // (Checked against what the region will be: it may not be mapped yet.)
  if (State.HeapBase != kHeapBase || State.HeapReserve > Cfg.HeapReserve) {
    snprintf(Why, WhyCap,
             "heap region 0x%llx (%llu bytes) does not fit this run's "
             "(0x%lx, %zu bytes; set CCC_HEAP_RESERVE as in the first run)",
             (unsigned long long)State.HeapBase,
             (unsigned long long)State.HeapReserve, (unsigned long)kHeapBase,
             (size_t)Cfg.HeapReserve);
    return false;
  }
  // The older images an incremental image refers to must be there.
  if (!readReferencedChunks(imageDir(), Cfg.Name, H, Chunks, nullptr, nullptr,
                            Why, WhyCap))
    return false;
  if (!Apply) {
    const SectionEntry *SP = R.find(SecParallel);
    if (Blob && SP) {
      *BlobLen = SP->RawSize < 4096 ? SP->RawSize : 4096;
      if (!R.readBlob(*SP, Blob, *BlobLen)) {
        snprintf(Why, WhyCap, "%s", R.error());
        return false;
      }
    }
    return true;
  }
  RestoreCtx RC = {Why, WhyCap, false};
  pthread_t Prefault;
  bool Prefaulting =
      pthread_create(&Prefault, nullptr, prefaultHeapChunks, &Chunks) == 0;
  bool Ok = R.readRanges(*SG, globalSink, &RC) && !RC.Bad &&
            R.readRanges(*SH, heapSink, &RC) && !RC.Bad &&
            R.readRanges(*SS, stackSink, &RC) && !RC.Bad;
  if (Prefaulting)
    pthread_join(Prefault, nullptr);
  if (!Ok) {
    if (!RC.Bad)
      snprintf(Why, WhyCap, "%s", R.error());
    return false;
  }
  if (!readReferencedChunks(imageDir(), Cfg.Name, H, Chunks, chunkSink, &RC,
                            Why, WhyCap))
    return false;
  RT.Prev.swap(Chunks);
  RT.ChainLength = H.ChainLength;
  if (Parallel)
    noteOwnImage(H.Version, H.ChainBase);
  measureRestoredChain(H);
  RT.Ctx = Ctx;
  RT.State = State;
  RT.State.Restarts++;
  Excluded = reinterpret_cast<ExclusionTable *>(State.Exclusions);
  return true;
}

// The restored process never runs main's prologue, where a language
// runtime may initialise itself (flang's _FortranAProgramStart records argv
// and reads its environment); run it again, with the saved argv, now that
// the heap holding them is back.
void reinitLanguageRuntime() {
  auto *A = reinterpret_cast<MainArgs *>(RT.State.MainArgs);
  if (__ccc_restart_init && A)
    __ccc_restart_init(A->Argc, A->Argv, A->Envp);
}

void remapHeapForRestore() {
  // Start from a clean region so nothing of a rejected image remains.
  if (heapIsMapped())
    heapUnmap();
  if (!heapMap(kHeapBase, Cfg.HeapReserve, false))
    fatal("cannot map the heap region at 0x%lx: %s", (unsigned long)kHeapBase,
          strerror(errno));
}

// "12 s ago (2026-11-26 01:40:12 UTC)" for a time T, into Buf.
void describeAge(char *Buf, size_t Cap, int64_t T) {
  if (T < 0) {
    snprintf(Buf, Cap, "at an unknown time");
    return;
  }
  int64_t Age = (int64_t)time(nullptr) - T;
  if (Age < 0)
    Age = 0;
  char When[64];
  time_t TT = (time_t)T;
  struct tm Tm;
  strftime(When, sizeof(When), "%Y-%m-%d %H:%M:%S UTC", gmtime_r(&TT, &Tm));
  if (Age < 120)
    snprintf(Buf, Cap, "%lld s ago (%s)", (long long)Age, When);
  else if (Age < 7200)
    snprintf(Buf, Cap, "%lld min ago (%s)", (long long)(Age / 60), When);
  else if (Age < 172800)
    snprintf(Buf, Cap, "%.1f h ago (%s)", Age / 3600.0, When);
  else
    snprintf(Buf, Cap, "%.1f days ago (%s)", Age / 86400.0, When);
}

[[noreturn]] void resumeRestored(const char *Path, uint64_t Version) {
  // One line at the default verbosity (job logs need to show that a run
  // resumed, and from how far back): from rank 0 only, every rank resumes
  // the same version.
  char Age[128];
  describeAge(Age, sizeof(Age), commitTime(Cfg.Dir, Cfg.Name, Version));
  if (RT.Rank == 0 || LogLevel >= 1)
    logMessage("restarting from %s (checkpoint %llu), written %s", Path,
               (unsigned long long)Version, Age);
  // A process that moved (a lost host replaced) says so, from any rank.
  char Here[64] = {0};
  gethostname(Here, sizeof(Here) - 1);
  if (ImageHost[0] && strcmp(ImageHost, Here))
    logMessage("rank %u restarts on host %s; its image was written on %s",
               RT.Rank, Here, ImageHost);
  RT.Restarted = true;
  releaseReservedFds();
  heapRestored();
  char Why[256];
  if (!restoreLibraryKeys(RT.State.LibraryKeys, Why, sizeof(Why)))
    fatal("cannot restart from %s: %s", Path, Why);
  reserveLibraryKeys();
  openLibraryHeap();
  reinitLanguageRuntime();
  if (Parallel)
    Parallel->afterRestore();
  RT.Ready = true;
  startTriggers();
  supervisionRestored(Version);
  jumpToSavedContext();
}

// An MPI job restarts from the newest version every rank can restore: each
// rank checks its own image first (touching no memory), the ranks agree,
// then all restore; if any rank fails while restoring, all go one older.
[[noreturn]] void restartParallel(const uint64_t *Versions, int N) {
  uint64_t Bound = UINT64_MAX;
  bool Initialised = false;
  char Path[kPathMax], Why[1024];
  if (nodeLocalStorage() && Parallel->gatherImages) {
    // This host's own images, if it has them, name the descriptors to keep
    // free (a spare has none: its files are reopened where MPI left room).
    struct stat St;
    for (int I = 0; I < N; ++I) {
      imagePath(Path, imageDir(), Cfg.Name, Versions[I], RT.Rank);
      if (stat(Path, &St) == 0) {
        restoreFrom(Path, false, Why, sizeof(Why));
        break;
      }
    }
    reserveProgramFds();
    Parallel->gatherImages(Versions, N);
    Initialised = true;
  }
  for (;;) {
    uint64_t Local = 0;
    char Blob[4096];
    size_t BlobLen = 0;
    for (int I = 0; I < N && !Local; ++I) {
      if (Versions[I] > Bound)
        continue;
      imagePath(Path, imageDir(), Cfg.Name, Versions[I], RT.Rank);
      Why[0] = 0;
      if (restoreFrom(Path, false, Why, sizeof(Why), Blob, &BlobLen) &&
          (!Parallel->checkVersion ||
           Parallel->checkVersion(Versions[I], Why, sizeof(Why))))
        Local = Versions[I];
      else
        logMessage("cannot restart from %s: %s", Path, Why);
    }
    if (!Initialised) {
      reserveProgramFds();
      Parallel->initForRestart(Blob, BlobLen);
      Initialised = true;
    }
    uint64_t Chosen = Parallel->allMin(Local);
    if (Chosen == 0)
      fatal("no checkpoint of %s in %s can be restored by every rank; "
            "nothing was deleted. Start afresh with CCC_RESTART=never, or "
            "use another CCC_DIR",
            Cfg.Name, Cfg.Dir);
    // Chosen may be older than this rank's newest and not usable here.
    imagePath(Path, imageDir(), Cfg.Name, Chosen, RT.Rank);
    bool Usable =
        Chosen == Local ||
        (restoreFrom(Path, false, Why, sizeof(Why), nullptr, nullptr) &&
         (!Parallel->checkVersion ||
          Parallel->checkVersion(Chosen, Why, sizeof(Why))));
    if (!Usable)
      noteRestoreFailed(Chosen, Why);
    if (Parallel->allMin(Usable) == 0) {
      Bound = Chosen - 1;
      continue;
    }
    remapHeapForRestore();
    Why[0] = 0;
    bool Ok = restoreFrom(Path, true, Why, sizeof(Why));
    if (Ok && reopenOpenFiles && !reopenOpenFiles(Why, sizeof(Why))) {
      noteOtherHost(Why, sizeof(Why));
      Ok = false;
    }
    if (!Ok) {
      logMessage("cannot restart from %s: %s", Path, Why);
      noteRestoreFailed(Chosen, Why);
    }
    if (Parallel->allMin(Ok))
      resumeRestored(Path, Chosen);
    Bound = Chosen - 1;
  }
}

} // namespace

// Tries the committed versions newest first. Returns only if there is
// nothing to restart from and that is allowed.
void restartIfPossible() {
  if (Cfg.Restart == RestartMode::Never)
    return;
  uint64_t Versions[256];
  int N = listCommitted(Cfg.Dir, Cfg.Name, Versions, 256);
  if (N == 0) {
    if (Cfg.Restart == RestartMode::Require)
      fatal("CCC_RESTART=require but %s has no committed checkpoint of %s",
            Cfg.Dir, Cfg.Name);
    return;
  }
  // A job that finished normally after its newest checkpoint is run again
  // from the start, as a user re-running a finished job expects; its
  // images stay until new ones replace them.
  uint64_t Done;
  int64_t When;
  if (Cfg.Restart == RestartMode::Auto &&
      readCompleted(Cfg.Dir, Cfg.Name, &Done, &When) && Done >= Versions[0]) {
    if (RT.Rank == 0) {
      char Age[128];
      describeAge(Age, sizeof(Age), When);
      logMessage("%s finished normally %s: starting afresh (its checkpoints "
                 "stay in %s until new ones replace them; CCC_RESTART=require "
                 "resumes from checkpoint %llu)",
                 Cfg.Name, Age, Cfg.Dir, (unsigned long long)Versions[0]);
    }
    return;
  }
  // Images of a job of another size: said once, plainly, rather than as
  // every rank's refusal of every image.
  uint32_t Written = 0;
  for (int I = 0; I < N; ++I) {
    uint32_t R = commitRanks(Cfg.Dir, Cfg.Name, Versions[I]);
    if (R == 0 || R == RT.NRanks) {
      Written = 0;
      break;
    }
    if (!Written)
      Written = R;
  }
  if (Written)
    fatal("the checkpoints of %s in %s were written by a job of %u rank%s, "
          "this one has %u: restart it with %u rank%s. Nothing was deleted; "
          "CCC_RESTART=never starts afresh",
          Cfg.Name, Cfg.Dir, Written, Written == 1 ? "" : "s", RT.NRanks,
          Written, Written == 1 ? "" : "s");
  if (Parallel)
    restartParallel(Versions, N);
  for (int I = 0; I < N; ++I) {
    char Path[kPathMax], Why[1024] = {0};
    imagePath(Path, imageDir(), Cfg.Name, Versions[I], RT.Rank);
    remapHeapForRestore();
    if (restoreFrom(Path, true, Why, sizeof(Why)) &&
        (!reopenOpenFiles || reopenOpenFiles(Why, sizeof(Why))))
      resumeRestored(Path, Versions[I]);
    logMessage("cannot restart from %s: %s%s", Path, Why,
               I + 1 < N ? "; trying the previous checkpoint" : "");
    noteRestoreFailed(Versions[I], Why);
  }
  fatal("no usable checkpoint of %s in %s (none of %d committed "
        "version%s could be restored); nothing was deleted. Start afresh "
        "with CCC_RESTART=never, or use another CCC_DIR",
        Cfg.Name, Cfg.Dir, N, N == 1 ? "" : "s");
}

} // namespace ccc
