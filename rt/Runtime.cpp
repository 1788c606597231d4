//===- Runtime.cpp - ccc runtime: start and checkpoint --------------------===//
//
// The data path of a checkpoint: the site's slow path saves the registers
// (Context.S), then ImageWriter streams the registered globals, the used
// ranges of the heap region and the live part of main's stack into a
// temporary file, which is fsync'd, renamed and committed. The way back is
// Restart.cpp; the codec of each section is chosen in CodecChoice.cpp.
//
//===----------------------------------------------------------------------===//
#include "Runtime.h"
#include "Config.h"
#include "ElfSymbols.h"
#include "Exclusions.h"
#include "FortranUnits.h"
#include "HeapRegion.h"
#include "LibcHeap.h"
#include "Log.h"
#include "OpenFiles.h"
#include "Parallel.h"
#include "Process.h"
#include "RunLock.h"
#include "RuntimeGlobals.h"
#include "Sanitizers.h"
#include "Store.h"
#include "Supervision.h"
#include "UnsavedGlobals.h"

#include "ccc.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <pthread.h>
#include <sys/mman.h>
#include <unwind.h>

// The unwinder names the stack frames in images (SecMap) and finds the
// callers' frames whose dead locals the pass described; a program linked
// without libgcc_s just has unnamed stack and saves those locals.
#pragma weak _Unwind_Backtrace
#pragma weak _Unwind_GetCFA
#pragma weak _Unwind_GetIP
#pragma weak _Unwind_GetGR

extern "C" {
// The pass's records of callers' dead locals (ccc/abi.h).
extern const ccc_dead_local_record __start_ccc_dead_locals[]
    __attribute__((weak));
extern const ccc_dead_local_record __stop_ccc_dead_locals[]
    __attribute__((weak));
// The flag every site tests (the pass inlines `load volatile; br`).
volatile int __ccc_pending = 0;
}

namespace ccc {
RuntimeGlobals RT;

namespace {

//===-- Stack -------------------------------------------------------------===//

void mapStack() {
  size_t Size = Cfg.StackSize;
  const size_t Guard = 1 << 16;
  uintptr_t Low = kStackTop - Size;
  void *P = mmap(
      reinterpret_cast<void *>(Low - Guard), Size + Guard,
      PROT_READ | PROT_WRITE,
      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (P != reinterpret_cast<void *>(Low - Guard))
    fatal("cannot map the program stack at 0x%lx (%zu bytes): %s",
          (unsigned long)Low, Size, strerror(errno));
  mprotect(P, Guard, PROT_NONE); // overflow faults instead of corrupting
  RT.StackLow = Low;
  RT.StackHigh = kStackTop;
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
    if (A < RT.StackLow && A + (1 << 16) >= RT.StackLow)
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
  uint64_t Highest = highestVersion(Cfg.Dir, Cfg.Name);
  if (nodeLocalStorage()) {
    if (!makeDirectories(Cfg.LocalDir) ||
        access(Cfg.LocalDir, W_OK | X_OK) != 0)
      fatal("CCC_LOCAL_DIR=%s is not a writable directory (%s); set "
            "CCC_LOCAL_DIR to one, or unset it",
            Cfg.LocalDir, strerror(errno));
    removeStaleTemporaries(Cfg.LocalDir, Cfg.Name, RT.Rank);
    uint64_t Local = highestVersion(Cfg.LocalDir, Cfg.Name);
    Highest = Local > Highest ? Local : Highest;
  }
  RT.NextVersion = Highest + 1;
}

//===-- Checkpoint --------------------------------------------------------===//
// AddressSanitizer poisons the redzones around the locals of the runtime's
// own frames (takeCheckpoint and its callers; the top of writeAndCommit's,
// in the red zone saved below the context), and an image saves the live
// stack whole, by design. A sanitized runtime therefore writes the stack
// section from a copy taken without checks, so that every other read of
// the writer stays checked; otherwise the bytes are read where they are.
class UncheckedStackCopy {
public:
#ifdef CCC_RT_ASAN
  UncheckedStackCopy(uintptr_t Lo, uintptr_t Hi) : Len(Hi - Lo) {
    void *P = mmap(nullptr, Len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (P == MAP_FAILED)
      return;
    Bytes = static_cast<unsigned char *>(P);
    copyUnchecked(Bytes, reinterpret_cast<const unsigned char *>(Lo), Len);
  }
  ~UncheckedStackCopy() {
    if (Bytes)
      munmap(Bytes, Len);
  }
  bool ok() const { return Bytes != nullptr; }
  const void *bytes() const { return Bytes; }

private:
  // A loop of volatile loads: memcpy would be the sanitizer's checked one.
  __attribute__((no_sanitize("address"))) static void
  copyUnchecked(unsigned char *To, const unsigned char *From, size_t N) {
    for (size_t I = 0; I < N; ++I)
      To[I] = *static_cast<const volatile unsigned char *>(From + I);
  }
  size_t Len;
  unsigned char *Bytes = nullptr;
#else
  UncheckedStackCopy(uintptr_t, uintptr_t) {}
  bool ok() const { return true; }
  const void *bytes() const { return nullptr; }
#endif
};

// Writes what ccc_exclude left of a range.
bool writeIncluded(ChunkedWriter &CW, uint32_t Section, uint64_t A,
                   uint64_t L) {
  if (!anyExcluded())
    return CW.addRange(Section, A, L);
  struct Part {
    ChunkedWriter &CW;
    uint32_t Section;
  } P = {CW, Section};
  return forEachIncludedPart(
      A, L,
      [](uint64_t A, uint64_t L, void *C) {
        auto *P = static_cast<Part *>(C);
        return P->CW.addRange(P->Section, A, L);
      },
      &P);
}

// SecMap: names for the memory the image holds or leaves out (ckpt info).
class MapBuffer {
public:
  ~MapBuffer() { __libc_free(P); }
  void add(uint64_t Addr, uint64_t Len, uint32_t Kind, const char *Name) {
    size_t L = Name ? strnlen(Name, 240) : 0;
    size_t Need = sizeof(MapRecord) + ((L + 7) & ~size_t(7));
    if (N + Need > Cap) {
      size_t NewCap = Cap ? 2 * Cap : 4096;
      while (NewCap < N + Need)
        NewCap *= 2;
      char *Q = static_cast<char *>(__libc_realloc(P, NewCap));
      if (!Q) {
        Ok = false;
        return;
      }
      P = Q, Cap = NewCap;
    }
    MapRecord R = {Addr, Len, Kind, static_cast<uint32_t>(L)};
    memcpy(P + N, &R, sizeof(R));
    memcpy(P + N + sizeof(R), Name, L);
    memset(P + N + sizeof(R) + L, 0, Need - sizeof(R) - L);
    N += Need;
  }
  bool write(ImageWriter &W, bool Z) const {
    return !Ok ||
           (W.beginSection(SecMap, Z) && W.addBytes(P, N) && W.endSection());
  }

private:
  char *P = nullptr;
  size_t N = 0, Cap = 0;
  bool Ok = true;
};

// Calls Fn(IP, Sp, Top, Fp, Ctx) for each frame of the call chain above
// the saved stack pointer, from the site's frame to main's: IP its return
// address, [Sp, Top) its memory, Fp its %rbp. In the unwinder's context of a
// frame, _Unwind_GetCFA is the stack pointer at the call the frame is in (its
// callee's CFA), so a frame ends where the next one starts (the last one
// at the top of the program stack).
struct FrameWalk {
  uintptr_t Low, High, Sp, IP, Fp;
  void (*Fn)(uintptr_t IP, uintptr_t Sp, uintptr_t Top, uintptr_t Fp,
             void *Ctx);
  void *Ctx;
};

_Unwind_Reason_Code visitFrame(_Unwind_Context *C, void *Arg) {
  auto *W = static_cast<FrameWalk *>(Arg);
  uintptr_t Sp = _Unwind_GetCFA(C), IP = _Unwind_GetIP(C);
  if (W->IP && Sp > W->Low && Sp <= W->High && Sp > W->Sp)
    W->Fn(W->IP, W->Sp > W->Low ? W->Sp : W->Low, Sp, W->Fp, W->Ctx);
  if (Sp >= W->High || !IP)
    return _URC_END_OF_STACK;
  W->Sp = Sp;
  W->IP = IP;
  W->Fp = _Unwind_GetGR(C, 6); // DWARF register 6: %rbp
  return _URC_NO_REASON;
}

bool forEachFrame(void (*Fn)(uintptr_t, uintptr_t, uintptr_t, uintptr_t,
                             void *),
                  void *Ctx) {
  if (!_Unwind_Backtrace || !_Unwind_GetCFA || !_Unwind_GetIP || !_Unwind_GetGR)
    return false;
  FrameWalk W = {RT.Ctx.StackLow, RT.StackHigh, 0, 0, 0, Fn, Ctx};
  _Unwind_Backtrace(visitFrame, &W);
  // The walk ends at main (the runtime's entry switches to the program
  // stack with no unwind information): main's frame ends at the top.
  if (W.IP && W.Sp >= W.Low && W.Sp < W.High)
    Fn(W.IP, W.Sp, W.High, W.Fp, Ctx);
  return true;
}

// The address a record's field holds (relative to the field itself).
uintptr_t recordTarget(const int32_t &Field) {
  return reinterpret_cast<uintptr_t>(&Field) + Field;
}

// The pass's records whose call holds the frame's return address name
// locals of it that are dead; they are left out like the site's own
// (__ccc_dead_at_site), if they lie inside the frame. Codegen gives the
// offset from the stack pointer at the end of the prologue (>= 0), or, in
// a function with a frame pointer, from %rbp (< 0).
void markDeadLocals(uintptr_t IP, uintptr_t Sp, uintptr_t Top, uintptr_t Fp,
                    void *) {
  for (const ccc_dead_local_record *R = __start_ccc_dead_locals;
       R < __stop_ccc_dead_locals; ++R) {
    if (IP <= recordTarget(R->before) || IP > recordTarget(R->after))
      continue;
    uintptr_t A = (R->sp_offset < 0 ? Fp : Sp) + R->sp_offset;
    if (A < Sp || A >= Top || R->size > Top - A)
      continue;
    __ccc_dead_at_site(reinterpret_cast<void *>(A), R->size,
                       reinterpret_cast<const char *>(recordTarget(R->name)));
  }
}

// Called in the checkpoint, after the context is saved: marks the dead
// locals of the frames between the site and main for this image.
void markDeadLocalsOfCallers() {
  if (__start_ccc_dead_locals != __stop_ccc_dead_locals)
    forEachFrame(markDeadLocals, nullptr);
}

void describeMemory(MapBuffer &M) {
  size_t NG;
  const GlobalRange *G = registeredGlobals(&NG);
  for (size_t I = 0; I < NG; ++I) {
    uintptr_t A = G[I].address();
    uint32_t Kind =
        G[I].Flags & CCC_GLOBAL_NEVER_WRITTEN   ? MapGlobalNeverWritten
        : G[I].Flags & CCC_GLOBAL_DEAD_AT_SITES ? MapGlobalDeadAtSites
        : G[I].Flags & CCC_GLOBAL_OPENMP_STATE  ? MapGlobalOpenMP
                                                : MapGlobal;
    M.add(A, G[I].Size, Kind, G[I].Name);
  }
  for (uint64_t I = 0; Excluded && I < Excluded->N; ++I)
    M.add(Excluded->R[I].Addr, Excluded->R[I].Len, MapExcluded, "ccc_exclude");
  for (unsigned I = 0; I < NumDeadAtSite; ++I)
    M.add(DeadAtSite[I].Addr, DeadAtSite[I].Len,
          inProgramStack(DeadAtSite[I].Addr, DeadAtSite[I].Len)
              ? MapStackDeadAtSite
              : MapHeapDeadAtSite,
          DeadAtSiteWhere[I] ? DeadAtSiteWhere[I] : "?");
  forEachFrame(
      [](uintptr_t IP, uintptr_t Sp, uintptr_t Top, uintptr_t, void *Ctx) {
        const char *Name = executableFunctionAt(IP - 1);
        static_cast<MapBuffer *>(Ctx)->add(Sp, Top - Sp, MapStackFrame,
                                           Name ? Name : "?");
      },
      &M);
  heapForEachPlacedBlock(
      [](uintptr_t Addr, size_t Len, uintptr_t PC, void *Ctx) {
        char Name[192];
        // The return address is the instruction after the call.
        describeExecutableAddress(PC ? PC - 1 : 0, Name, sizeof(Name));
        static_cast<MapBuffer *>(Ctx)->add(Addr, Len, MapHeapBlock, Name);
      },
      &M);
}

struct HeapWriteCtx {
  ChunkedWriter *CW;
  bool Ok;
};

bool writeImage(ImageWriter &W, uint64_t Version) {
  ImageHeader &H = W.header();
  H.Version = Version;
  H.Rank = RT.Rank;
  H.NRanks = RT.NRanks;
  H.Protocol = Parallel ? (Cfg.NonBlocking ? 2 : 1) : 0;
  H.CreatedNs = nowNs(CLOCK_REALTIME);
  H.BuildIdLen = RT.BuildIdLen;
  memcpy(H.BuildId, RT.BuildId, RT.BuildIdLen);
  snprintf(H.ProgramName, sizeof(H.ProgramName), "%s", Cfg.Name);
  H.AbiVersion = CCC_ABI_VERSION;

  RT.State.Version = Version;
  RT.State.Checkpoints++;
  RT.State.HeapBase = heapBase();
  RT.State.HeapReserve = heapReserve();
  RT.State.StackBase = RT.StackLow;
  RT.State.StackSize = RT.StackHigh - RT.StackLow;
  RT.State.Exclusions = reinterpret_cast<uint64_t>(Excluded);
  gethostname(RT.State.Host, sizeof(RT.State.Host) - 1);
  if (programFds)
    programFds(RT.State.ProgramFds, 16);

  if (!W.beginSection(SecContext, false) ||
      !W.addBytes(&RT.Ctx, sizeof(RT.Ctx)) || !W.endSection())
    return false;
  if (!W.beginSection(SecRuntime, false) ||
      !W.addBytes(&RT.State, sizeof(RT.State)) || !W.endSection())
    return false;
  if (!W.beginSection(SecLoadMap, false) ||
      !W.addBytes(RT.LoadMap, RT.LoadMapLen) || !W.endSection())
    return false;
  uint64_t DeadHeap = 0, DeadStack = 0;
  unsigned DeadLocals = 0;
  for (unsigned I = 0; I < NumDeadAtSite; ++I) {
    bool OnStack = inProgramStack(DeadAtSite[I].Addr, DeadAtSite[I].Len);
    (OnStack ? DeadStack : DeadHeap) += DeadAtSite[I].Len;
    DeadLocals += OnStack;
  }
  if (DeadHeap)
    CCC_INFO("checkpoint %llu: %llu bytes of heap dead at this site left out "
             "(%u objects)",
             (unsigned long long)Version, (unsigned long long)DeadHeap,
             NumDeadAtSite - DeadLocals);
  if (DeadStack)
    CCC_INFO("checkpoint %llu: %llu bytes of stack dead at this site left out "
             "(%u locals of the site's function and its callers)",
             (unsigned long long)Version, (unsigned long long)DeadStack,
             DeadLocals);
  if (uint64_t X = excludedBytes())
    CCC_INFO("checkpoint %llu: %llu bytes excluded by ccc_exclude left out "
             "(%llu ranges)",
             (unsigned long long)Version, (unsigned long long)X,
             (unsigned long long)Excluded->N);
  MapBuffer Map;
  describeMemory(Map);
  if (!Map.write(W, Cfg.CompressLevel > 0))
    return false;
  if (Parallel) {
    char Blob[4096];
    size_t N = Parallel->stateBlob(Blob, sizeof(Blob));
    if (!W.beginSection(SecParallel, false) || !W.addBytes(Blob, N) ||
        !W.endSection())
      return false;
  }

  bool Z = Cfg.CompressLevel > 0;
  bool Full = RT.Policy.wantFull(RT.Prev.size() != 0, RT.ChainLength,
                                 (uint32_t)Cfg.FullEvery);
  // A full image is still compared with the previous one, to measure what
  // an increment would have saved (ChainPolicy).
  ChunkedWriter CW(W, RT.Prev.size() ? &RT.Prev : nullptr, Full, Version,
                   Cfg.ChunkSize, RT.Next);
  if (Parallel)
    CW.BetweenChunks = Parallel->duringWrite;
  if (Z) {
    // At every image: what an incremental one stores may suit another
    // codec than the whole memory did (only the chunks that changed).
    const ChunkTable *Prev = Full ? nullptr : &RT.Prev;
    int64_t G = globalsCodec(Prev), H = heapCodec(Prev);
    if (G >= 0)
      RT.GlobalsCodec = uint32_t(G);
    if (H >= 0)
      RT.HeapCodec = uint32_t(H);
  }
  size_t NG;
  const GlobalRange *G = registeredGlobals(&NG);
  if (!W.beginSection(SecGlobals, Z, RT.GlobalsCodec))
    return false;
  for (size_t I = 0; I < NG; ++I) {
    if (G[I].unsaved())
      continue;
    uintptr_t A = G[I].address();
    if (!writeIncluded(CW, SecGlobals, A, G[I].Size))
      return false;
  }
  if (!W.endSection())
    return false;

  HeapWriteCtx HC = {&CW, true};
  W.setBlockCodecs(RT.HeapRegions, RT.NHeapRegions, RT.HeapDefault);
  if (!W.beginSection(SecHeap, Z, RT.HeapCodec))
    return false;
  heapForEachUsedRange(
      [](uintptr_t A, size_t L, void *C) {
        auto *HC = static_cast<HeapWriteCtx *>(C);
        if (HC->Ok)
          HC->Ok = writeIncluded(*HC->CW, SecHeap, A, L);
      },
      &HC);
  if (!HC.Ok || !W.endSection())
    return false;

  uintptr_t Low = RT.Ctx.StackLow;
  UncheckedStackCopy Copy(Low, RT.StackHigh);
  if (!Copy.ok())
    return false;
  CW.readFromCopy(Low, RT.StackHigh - Low, Copy.bytes());
  bool StackOk = W.beginSection(SecStack, Z) &&
                 writeIncluded(CW, SecStack, Low, RT.StackHigh - Low) &&
                 W.endSection();
  CW.readFromCopy(0, 0, nullptr);
  if (!StackOk)
    return false;
  if (!CW.finish(RT.ChainLength + 1))
    return false;
  RT.LastStats = CW.stats();
  return W.finish();
}

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
  uint64_t V = RT.NextVersion++;
  char Final[kPathMax], Tmp[kPathMax + 8];
  imagePath(Final, imageDir(), Cfg.Name, V, RT.Rank);
  snprintf(Tmp, sizeof(Tmp), "%s.tmp", Final);
  uint64_t Bytes = 0;
  uint32_t ChainLength = 0;
  if (recordOpenFiles || checkFortranUnits) {
    char Why[kPathMax + 256];
    if ((recordOpenFiles && !recordOpenFiles(Why, sizeof(Why))) ||
        (checkFortranUnits && !checkFortranUnits(Why, sizeof(Why)))) {
      logMessage("checkpoint %llu not taken: %s; the previous committed "
                 "checkpoint is kept",
                 (unsigned long long)V, Why);
      return false;
    }
  }
  {
    ImageWriter W;
    bool Ok = W.open(Tmp, Cfg.CompressLevel, Cfg.Threads) && writeImage(W, V);
    Bytes = W.bytesWritten();
    ChainLength = W.header().ChainLength;
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
    // Every rank keeps its host's directory pruned (rank 0 prunes only
    // the commit records and its own host's files).
    pruneVersions(Cfg.Dir, Cfg.LocalDir, Cfg.Name, Cfg.Keep, false);
  }
  if (Parallel) {
    // Durable here; the layer commits the version once every rank's is.
    // The next image may refer to this one even if the version is never
    // committed: pruning keeps every image a kept version refers to.
    chainOnto(ChainLength, Bytes);
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
  pruneVersions(Cfg.Dir, imageDir(), Cfg.Name, Cfg.Keep, true);
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

// Kept small: the only state live across __ccc_ctx_save is in RT.
__attribute__((noinline)) int takeCheckpoint() {
  supervisionBeforeFlush();
  fflush(nullptr); // buffered output belongs to the past, not to the image
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
    return CCC_RESTARTED;
  }
  RT.Ctx.StackLow = RT.Ctx.Rsp - kRedZone;
  RT.Ctx.StackHigh = RT.StackHigh;
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

bool onProgramStack() {
  uintptr_t Sp = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  return Sp >= RT.StackLow && Sp < RT.StackHigh;
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
  if (Status != 0 || !RT.Ready)
    return;
  // Node-local directories are pruned by their ranks at each checkpoint;
  // the job's last commit came after the last one.
  if (nodeLocalStorage())
    pruneVersions(Cfg.Dir, Cfg.LocalDir, Cfg.Name, Cfg.Keep, false);
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

[[noreturn]] void runtimeStart(UserMain Main, char **Argv, char **Envp) {
  if (Parallel) {
    Parallel->launchRank(&RT.Rank, &RT.NRanks);
    OnFatal = Parallel->abortJob;
  }
  RT.BuildIdLen = executableBuildId(RT.BuildId, sizeof(RT.BuildId));
  RT.LoadMapLen = currentLoadMap(RT.LoadMap, sizeof(RT.LoadMap));
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
  RT.Ready = true;
  beforeStackSwitch(RT.StackLow, RT.StackHigh);
  __ccc_run_on_stack(runUserMain, A, reinterpret_cast<void *>(RT.StackHigh));
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

bool ccc::inProgramStack(uintptr_t A, uint64_t L) {
  return RT.StackLow && A >= RT.StackLow && A < RT.StackHigh &&
         L <= RT.StackHigh - A;
}
