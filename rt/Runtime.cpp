//===- Runtime.cpp - ccc runtime: start, checkpoint, restart --------------===//
//
// The data path of a checkpoint: the site's slow path saves the registers
// (Context.S), then ImageWriter streams the registered globals, the used
// ranges of the heap region and the live part of main's stack into a
// temporary file, which is fsync'd, renamed and committed. A restart maps the
// heap and stack at the same addresses, checks that the image belongs to
// this build and layout, writes every range back and jumps into the saved
// context, so that ccc_checkpoint() returns CCC_RESTARTED in the restored
// frame.
//
//===----------------------------------------------------------------------===//
#include "Runtime.h"
#include "ChainPolicy.h"
#include "Config.h"
#include "ElfSymbols.h"
#include "Exclusions.h"
#include "FortranUnits.h"
#include "Hash.h"
#include "HeapRegion.h"
#include "Image.h"
#include "Incremental.h"
#include "LibcHeap.h"
#include "Log.h"
#include "OpenFiles.h"
#include "Parallel.h"
#include "Process.h"
#include "RunLock.h"
#include "Store.h"
#include "UnsavedGlobals.h"

#include "ccc.h"
#include "ccc/abi.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
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
namespace {
// Set with __ccc_pending by the timer and the signal: a checkpoint was asked
// for (the MPI layer keeps __ccc_pending set for its own reasons).
volatile int Requested = 0;
// CLOCK_MONOTONIC ns when the last checkpoint ended (the timer counts from
// there).
std::atomic<uint64_t> LastCheckpointEnd{0};

struct RuntimeGlobals {
  bool Ready = false; // main runs on our stack: sites may checkpoint
  uint32_t Rank = 0, NRanks = 1;
  bool Restarted = false; // this process was restored from an image
  uintptr_t StackLow = 0, StackHigh = 0;
  uint64_t NextVersion = 1;
  RuntimeState State{};
  uint8_t BuildId[64];
  uint32_t BuildIdLen = 0;
  char LoadMap[1 << 16];
  size_t LoadMapLen = 0;
  SavedContext Ctx{};
  // Chunks of the last image written (Prev: the one the next image may
  // refer to; Next: the one being written) and the chain length of Prev.
  ChunkTable Prev, Next;
  uint32_t ChainLength = 0;
  ChunkStats LastStats;
  ChainPolicy Policy; // full or incremental, from the sizes measured
  // Codecs of the globals and heap sections (transforms before zstd), measured
  // at each image (kept when an image samples nothing).
  uint32_t GlobalsCodec = CodecZstd, HeapCodec = CodecZstd;
  // Under CodecZstdPerBlock: the large heap blocks' own codecs, and the
  // codec of the rest of the heap.
  static constexpr size_t kMaxCodecRegions = 64;
  CodecRegion HeapRegions[kMaxCodecRegions];
  size_t NHeapRegions = 0;
  uint32_t HeapDefault = CodecZstd;
};
RuntimeGlobals RT;

uint64_t nowNs(clockid_t C) {
  struct timespec T;
  clock_gettime(C, &T);
  return (uint64_t)T.tv_sec * 1000000000ull + T.tv_nsec;
}

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

//===-- Triggers ----------------------------------------------------------===//

void *timerThread(void *) {
  uint64_t Ns = (uint64_t)(Cfg.Interval * 1e9);
  struct timespec T = {(time_t)(Ns / 1000000000ull),
                       (long)(Ns % 1000000000ull)};
  for (;;) {
    while (nanosleep(&T, &T) != 0 && errno == EINTR) {
    }
    // The interval is computing time between checkpoints: a program whose
    // images take longer to write than the interval still progresses.
    uint64_t Since = nowNs(CLOCK_MONOTONIC) - LastCheckpointEnd;
    uint64_t Wait = Since < Ns ? Ns - Since : Ns;
    T = {(time_t)(Wait / 1000000000ull), (long)(Wait % 1000000000ull)};
    if (Since < Ns)
      continue;
    Requested = 1;
    __ccc_pending = 1;
  }
  return nullptr;
}

void startTriggers() {
  if (Cfg.Interval > 0) {
    pthread_t T;
    pthread_attr_t A;
    pthread_attr_init(&A);
    pthread_attr_setdetachstate(&A, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&A, 1 << 16);
    // The timer must not take signals meant for the program.
    sigset_t All, Old;
    sigfillset(&All);
    pthread_sigmask(SIG_SETMASK, &All, &Old);
    if (pthread_create(&T, &A, timerThread, nullptr) != 0)
      logMessage("cannot start the CCC_INTERVAL timer thread");
    pthread_sigmask(SIG_SETMASK, &Old, nullptr);
    pthread_attr_destroy(&A);
  }
  if (Cfg.Signal) {
    struct sigaction SA = {};
    SA.sa_handler = [](int) {
      Requested = 1;
      __ccc_pending = 1;
    };
    SA.sa_flags = SA_RESTART;
    sigemptyset(&SA.sa_mask);
    sigaction(Cfg.Signal, &SA, nullptr);
  }
}

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
  RT.NextVersion = highestVersion(Cfg.Dir, Cfg.Name) + 1;
}

//===-- Checkpoint --------------------------------------------------------===//

// Up to 16 blocks of kShuffleBlock bytes at evenly spaced offsets of the
// parts of a memory section that an image would hold (ccc_exclude and dead
// ranges left out; parts shorter than a block are not sampled), to measure
// which codec suits it. Fed every range twice: to count, then to pick.
// For an incremental image (Prev: the previous image's chunk table) the
// samples are taken among four times as many candidates, keeping those
// whose chunk changed since Prev: the chunks the image will store (a
// field rewritten every step next to read-only data of another kind).
struct Sampler {
  static constexpr int Max = 16;
  const ChunkTable *Prev = nullptr;
  uint32_t Section = 0;
  uint64_t Total = 0, Seen = 0, Candidates = 0;
  bool Picking = false;
  const void *P[Max];
  size_t N = 0;

  void offer(uintptr_t A, uint64_t L) {
    forEachIncludedPart(
        A, L,
        [](uint64_t A, uint64_t L, void *C) {
          static_cast<Sampler *>(C)->offerPart(A, L);
          return true;
        },
        this);
  }
  void offerPart(uintptr_t A, uint64_t L) {
    if (L < kShuffleBlock)
      return;
    if (!Picking) {
      Total += L;
      return;
    }
    uint64_t Want = Prev ? 4 * Max : Max, Step = Total / Want;
    while (N < Max && Candidates < Want && Candidates * Step < Seen + L) {
      uint64_t At = Candidates++ * Step;
      uint64_t Off = At > Seen ? At - Seen : 0;
      if (Off > L - kShuffleBlock)
        Off = L - kShuffleBlock;
      if (!Prev || changed(A, L, A + Off))
        P[N++] = reinterpret_cast<const void *>(A + Off);
    }
    Seen += L;
  }
  // Whether the piece of [A, A+L) holding X, cut as ChunkedWriter cuts
  // it, differs from the one Prev describes.
  bool changed(uintptr_t A, uint64_t L, uintptr_t X) const {
    uint64_t CS = Cfg.ChunkSize;
    uint64_t Lo = X / CS * CS, Hi = Lo + CS;
    Lo = Lo < A ? A : Lo;
    Hi = Hi > A + L ? A + L : Hi;
    const ChunkEntry *E = Prev->find(Section, Lo);
    return !E || E->Len != Hi - Lo ||
           E->Hash != hashBytes(reinterpret_cast<const void *>(Lo), Hi - Lo);
  }
  // The codec to use, or -1 when nothing was sampled (the previous
  // choice stays); the measurements in T.
  int64_t codec(CodecTrials &T) const {
    if (Cfg.Shuffle >= 0)
      return Cfg.Shuffle ? CodecZstdShuffle8 : CodecZstd;
    if (!N)
      return -1;
    T.measure(P, N, kShuffleBlock, Cfg.CompressLevel, /*AllTransforms=*/true);
    uint32_t C = T.bestOfAll();
    CCC_DEBUG("codec of section %u measured on %zu blocks (%s): %s", Section, N,
              Prev ? "chunks changed since the previous image" : "all",
              codecName(C));
    return C;
  }
};

void sampleGlobals(Sampler &S) {
  size_t NG;
  const GlobalRange *G = registeredGlobals(&NG);
  for (size_t I = 0; I < NG; ++I)
    if (!G[I].TlsGetter && !G[I].unsaved())
      S.offer(G[I].address(), G[I].Size);
}

// The globals' codec, or -1 for no samples.
int64_t globalsCodec(const ChunkTable *Prev) {
  Sampler S;
  S.Prev = Prev;
  S.Section = SecGlobals;
  sampleGlobals(S);
  S.Picking = true;
  sampleGlobals(S);
  CodecTrials T;
  return S.codec(T);
}

// The heap's codec, or -1 for no samples. Large heap blocks (arrays) may
// hold data of different kinds (a smooth field, a source term that
// repeats): each one holding samples gets the codec its own samples
// measure best, and the rest of the heap (small blocks, allocator pages)
// the codec of the other samples, if at least 5 % smaller on them than the
// whole heap's (a few samples of an array may miss what the others see:
// zeros code alike under every codec); large blocks without samples, the
// whole heap's. If they differ, the heap is coded per block
// (CodecZstdPerBlock); with more large blocks than the table holds, not.
int64_t heapCodec(const ChunkTable *Prev) {
  Sampler S;
  S.Prev = Prev;
  S.Section = SecHeap;
  auto Offer = [](uintptr_t A, size_t L, void *C) {
    static_cast<Sampler *>(C)->offer(A, L);
  };
  heapForEachUsedRange(Offer, &S);
  S.Picking = true;
  heapForEachUsedRange(Offer, &S);
  CodecTrials T;
  int64_t C = S.codec(T);
  if (C < 0 || Cfg.Shuffle >= 0)
    return C;
  struct Regions {
    const Sampler &S;
    const CodecTrials &T;
    uint32_t C, Outside;
    bool Overflow;
  } R = {S, T, uint32_t(C), uint32_t((1u << T.NSamples) - 1), false};
  RT.NHeapRegions = 0;
  heapForEachPlacedBlock(
      [](uintptr_t A, size_t L, uintptr_t, void *Ctx) {
        auto *R = static_cast<Regions *>(Ctx);
        uint32_t In = 0;
        for (size_t I = 0; I < R->T.NSamples; ++I) {
          auto P = reinterpret_cast<uintptr_t>(R->S.P[I]);
          In |= uint32_t(P >= A && P - A < L) << I;
        }
        if (RT.NHeapRegions == RT.kMaxCodecRegions) {
          R->Overflow = true;
          return;
        }
        // A large block with no samples (none of its chunks changed, or
        // too few samples to reach it) keeps the whole heap's codec.
        R->Outside &= ~In;
        RT.HeapRegions[RT.NHeapRegions++] = {
            A, A + L, In ? R->T.betterThan(R->C, In) : R->C};
      },
      &R);
  if (R.Overflow) {
    RT.NHeapRegions = 0;
    return C;
  }
  RT.HeapDefault =
      R.Outside ? T.betterThan(uint32_t(C), R.Outside) : uint32_t(C);
  for (size_t I = 0; I < RT.NHeapRegions; ++I)
    if (RT.HeapRegions[I].Codec != RT.HeapDefault) {
      CCC_DEBUG("heap coded per block (%zu large blocks)", RT.NHeapRegions);
      return CodecZstdPerBlock;
    }
  return RT.HeapDefault;
}

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
  if (!W.beginSection(SecStack, Z) ||
      !writeIncluded(CW, SecStack, Low, RT.StackHigh - Low) || !W.endSection())
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
  imagePath(Final, Cfg.Dir, Cfg.Name, V, RT.Rank);
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
  if (!publish(Tmp, Final, Cfg.Dir)) {
    logMessage("checkpoint %llu not taken: cannot rename %s: %s",
               (unsigned long long)V, Tmp, strerror(errno));
    unlink(Tmp);
    return false;
  }
  const ChunkStats &CS = RT.LastStats;
  if (Parallel) {
    // Durable here; the layer commits the version once every rank's is.
    // The next image may refer to this one even if the version is never
    // committed: pruning keeps every image a kept version refers to.
    chainOnto(ChainLength, Bytes);
    CCC_DEBUG("checkpoint %llu written: %s, %llu bytes, %.3f s; %llu bytes "
              "of memory stored, %llu unchanged",
              (unsigned long long)V, Final, (unsigned long long)Bytes,
              (nowNs(CLOCK_MONOTONIC) - T0) / 1e9,
              (unsigned long long)CS.StoredBytes,
              (unsigned long long)CS.ReferencedBytes);
    return true;
  }
  char Err[kPathMax + 128];
  if (!writeCommit(Cfg.Dir, Cfg.Name, V, 1, Err, sizeof(Err))) {
    logMessage("checkpoint %llu not committed: %s; the previous committed "
               "checkpoint is kept",
               (unsigned long long)V, Err);
    unlink(Final);
    return false;
  }
  chainOnto(ChainLength, Bytes);
  pruneVersions(Cfg.Dir, Cfg.Name, Cfg.Keep);
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
  fflush(nullptr); // buffered output belongs to the past, not to the image
  RT.Ctx.Errno = errno;
  pthread_sigmask(SIG_BLOCK, nullptr,
                  reinterpret_cast<sigset_t *>(RT.Ctx.SigMask));
  RT.Ctx.StackCanary = readCanary();
  heapLock();
  if (__ccc_ctx_save(&RT.Ctx)) {
    // Resumed in a new process; the heap lock was saved held.
    heapUnlock();
    return CCC_RESTARTED;
  }
  RT.Ctx.StackLow = RT.Ctx.Rsp - kRedZone;
  RT.Ctx.StackHigh = RT.StackHigh;
  int SavedErrno = RT.Ctx.Errno;
  markDeadLocalsOfCallers();
  bool Ok = writeAndCommit();
  LastCheckpointEnd = nowNs(CLOCK_MONOTONIC);
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
  auto *R = static_cast<RestoreCtx *>(C);
  if (!R->Bad)
    snprintf(R->Why, R->WhyCap,
             "the image holds a global at 0x%llx (%llu bytes) this program "
             "does not register",
             (unsigned long long)A, (unsigned long long)L);
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
  if (A >= RT.StackLow && L <= RT.StackHigh - A)
    return prefaulted(A, L);
  auto *R = static_cast<RestoreCtx *>(C);
  if (!R->Bad)
    snprintf(R->Why, R->WhyCap,
             "the saved stack (from 0x%llx) does not fit the program stack "
             "(%zu bytes; set CCC_STACK_SIZE as in the first run)",
             (unsigned long long)A, (size_t)(RT.StackHigh - RT.StackLow));
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

// main's arguments, copied into the heap region (RuntimeState.MainArgs).
struct MainArgs {
  int Argc;
  char **Argv, **Envp;
  UserMain Main;
};

[[noreturn]] __attribute__((noinline, no_stack_protector)) void
jumpToSavedContext() {
  pthread_sigmask(SIG_SETMASK, reinterpret_cast<sigset_t *>(RT.Ctx.SigMask),
                  nullptr);
  errno = RT.Ctx.Errno;
  // Frames on the restored stack were protected with the old process's
  // canary; nothing after this line returns through a protected frame.
  asm volatile("movq %0, %%fs:0x28" ::"r"(RT.Ctx.StackCanary) : "memory");
  __ccc_ctx_restore(&RT.Ctx);
}

// The sizes of the restored image's chain, for ChainPolicy: its full image
// and the increments after it, this one included.
void measureRestoredChain(const ImageHeader &H) {
  char P[kPathMax];
  struct stat St;
  auto Size = [&](uint64_t V) -> uint64_t {
    imagePath(P, Cfg.Dir, Cfg.Name, V, RT.Rank);
    return stat(P, &St) == 0 ? (uint64_t)St.st_size : 0;
  };
  uint64_t Chain = 0;
  for (uint64_t V = H.ChainBase + 1; V <= H.Version; ++V)
    Chain += Size(V);
  RT.Policy.restored(H.ChainLength, Size(H.ChainBase), Chain, Size(H.Version));
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
  RuntimeState State;
  if (!R.readBlob(*SCtx, &Ctx, sizeof(Ctx)) ||
      !R.readBlob(*SRt, &State, sizeof(State)) ||
      !R.readBlob(*SMap, SavedMap, sizeof(SavedMap) - 1)) {
    snprintf(Why, WhyCap, "%s", R.error());
    return false;
  }
  if (!loadMapsCompatible(SavedMap, RT.LoadMap, Why, WhyCap))
    return false;
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
  if (!readReferencedChunks(Cfg.Dir, Cfg.Name, H, Chunks, nullptr, nullptr, Why,
                            WhyCap))
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
  if (!readReferencedChunks(Cfg.Dir, Cfg.Name, H, Chunks, chunkSink, &RC, Why,
                            WhyCap))
    return false;
  RT.Prev.swap(Chunks);
  RT.ChainLength = H.ChainLength;
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
  RT.Restarted = true;
  heapRestored();
  reinitLanguageRuntime();
  if (Parallel)
    Parallel->afterRestore();
  RT.Ready = true;
  startTriggers();
  jumpToSavedContext();
}

// An MPI job restarts from the newest version every rank can restore: each
// rank checks its own image first (touching no memory), the ranks agree,
// then all restore; if any rank fails while restoring, all go one older.
[[noreturn]] void restartParallel(const uint64_t *Versions, int N) {
  uint64_t Bound = UINT64_MAX;
  bool Initialised = false;
  char Path[kPathMax], Why[1024];
  for (;;) {
    uint64_t Local = 0;
    char Blob[4096];
    size_t BlobLen = 0;
    for (int I = 0; I < N && !Local; ++I) {
      if (Versions[I] > Bound)
        continue;
      imagePath(Path, Cfg.Dir, Cfg.Name, Versions[I], RT.Rank);
      Why[0] = 0;
      if (restoreFrom(Path, false, Why, sizeof(Why), Blob, &BlobLen) &&
          (!Parallel->checkVersion ||
           Parallel->checkVersion(Versions[I], Why, sizeof(Why))))
        Local = Versions[I];
      else
        logMessage("cannot restart from %s: %s", Path, Why);
    }
    if (!Initialised) {
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
    imagePath(Path, Cfg.Dir, Cfg.Name, Chosen, RT.Rank);
    bool Usable =
        Chosen == Local ||
        (restoreFrom(Path, false, Why, sizeof(Why), nullptr, nullptr) &&
         (!Parallel->checkVersion ||
          Parallel->checkVersion(Chosen, Why, sizeof(Why))));
    if (Parallel->allMin(Usable) == 0) {
      Bound = Chosen - 1;
      continue;
    }
    remapHeapForRestore();
    Why[0] = 0;
    bool Ok = restoreFrom(Path, true, Why, sizeof(Why)) &&
              (!reopenOpenFiles || reopenOpenFiles(Why, sizeof(Why)));
    if (!Ok)
      logMessage("cannot restart from %s: %s", Path, Why);
    if (Parallel->allMin(Ok))
      resumeRestored(Path, Chosen);
    Bound = Chosen - 1;
  }
}

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
    imagePath(Path, Cfg.Dir, Cfg.Name, Versions[I], RT.Rank);
    remapHeapForRestore();
    if (restoreFrom(Path, true, Why, sizeof(Why)) &&
        (!reopenOpenFiles || reopenOpenFiles(Why, sizeof(Why))))
      resumeRestored(Path, Versions[I]);
    logMessage("cannot restart from %s: %s%s", Path, Why,
               I + 1 < N ? "; trying the previous checkpoint" : "");
  }
  fatal("no usable checkpoint of %s in %s (none of %d committed "
        "version%s could be restored); nothing was deleted. Start afresh "
        "with CCC_RESTART=never, or use another CCC_DIR",
        Cfg.Name, Cfg.Dir, N, N == 1 ? "" : "s");
}

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
  if (Status != 0 || !RT.Ready || RT.Rank != 0)
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
  on_exit(recordCompletion, nullptr);
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
  RT.Ready = true;
  __ccc_run_on_stack(runUserMain, A, reinterpret_cast<void *>(RT.StackHigh));
}

ParallelLayer *Parallel = nullptr;
uint32_t processRank() { return RT.Rank; }
uint32_t processCount() { return RT.NRanks; }
uint64_t nextVersion() { return RT.NextVersion; }
void setNextVersion(uint64_t V) { RT.NextVersion = V; }
void *parallelState() {
  return reinterpret_cast<void *>(RT.State.ParallelState);
}
void setParallelState(void *P) {
  RT.State.ParallelState = reinterpret_cast<uint64_t>(P);
}
const char *storeDir() { return Cfg.Dir; }
const char *storeName() { return Cfg.Name; }
int keepVersions() { return Cfg.Keep; }
bool runtimeReady() { return RT.Ready; }
bool nonblockingProtocol() { return Cfg.NonBlocking; }
bool protocolTrace() { return Cfg.ProtocolTrace; }
bool takeRequest() {
  bool R = Requested;
  Requested = 0;
  return R;
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

// The ranges the pass marked dead hold for this call of the slow path only.
int ccc::checkpointSlow(int Kind) {
  int R = checkpointSlowAtSite(Kind);
  forgetDeadAtSite();
  return R;
}

int ccc::checkpointSlowAtSite(int Kind) {
  if (Kind == CCC_SITE_MAYBE && !__ccc_pending)
    return CCC_NONE;
  if (!RT.Ready) {
    static bool Warned;
    if (!Warned && !Cfg.Disabled)
      logMessage("ccc_checkpoint() called before main or in a program not "
                 "built with the ccc pass: no checkpoint taken");
    Warned = true;
    return CCC_NONE;
  }
  if (!onProgramStack()) {
    static bool Warned;
    if (!Warned)
      logMessage("ccc_checkpoint() called outside the main thread: no "
                 "checkpoint taken (sites must be on the main thread)");
    Warned = true;
    return CCC_NONE;
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
  __ccc_pending = 0;
  Requested = 0;
  return takeCheckpoint();
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
