//===- ImageContents.cpp - ccc runtime: what a checkpoint image holds -----===//
//
// writeImage fills an image of the process at its saved context: the
// header, the runtime's state, the map that names the memory it holds or
// leaves out (SecMap, from the unwinder's frames and the heap's blocks),
// then the registered globals, the used ranges of the heap region and the
// live part of main's stack, less what ccc_exclude and the pass's dead
// locals leave out. Checkpoint.cpp calls it; the codec of each section is
// chosen in CodecChoice.cpp.
//
//===----------------------------------------------------------------------===//
#include "Parallel.h"
#include "RuntimeGlobals.h"
#include "rt/common/Config.h"
#include "rt/common/LibcHeap.h"
#include "rt/common/Log.h"
#include "rt/common/Sanitizers.h"
#include "rt/files/OpenFiles.h"
#include "rt/heap/Exclusions.h"
#include "rt/heap/HeapRegion.h"
#include "rt/layout/ElfSymbols.h"
#include "rt/layout/Libraries.h"
#include "rt/layout/Process.h"
#include "rt/layout/ProgramStack.h"

#include "ccc.h"

#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <sys/mman.h>
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
}

namespace ccc {
namespace {

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
  bool write(ImageSink &W, bool Z) const {
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
  FrameWalk W = {RT.Ctx.StackLow, ProgramStack.High, 0, 0, 0, Fn, Ctx};
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

} // namespace

// Called in the checkpoint, after the context is saved: marks the dead
// locals of the frames between the site and main for this image.
void markDeadLocalsOfCallers() {
  if (__start_ccc_dead_locals != __stop_ccc_dead_locals)
    forEachFrame(markDeadLocals, nullptr);
}

namespace {

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
        Dl_info Info;
        // A frame of a shared library (one compiled with the pass may hold
        // a site): its exported name.
        if (!Name && dladdr(reinterpret_cast<void *>(IP - 1), &Info))
          Name = Info.dli_sname;
        static_cast<MapBuffer *>(Ctx)->add(Sp, Top - Sp, MapStackFrame,
                                           Name ? Name : "?");
      },
      &M);
  forEachSavedLibraryRange(
      [](uintptr_t A, size_t L, const char *Lib, void *Ctx) {
        static_cast<MapBuffer *>(Ctx)->add(A, L, MapLibraryData, Lib);
      },
      &M);
  heapForEachPlacedBlock(
      [](uintptr_t Addr, size_t Len, uintptr_t PC, void *Ctx) {
        char Name[192];
        // The return address is the instruction after the call.
        if (const char *Lib = PC ? savedLibraryAt(PC - 1) : nullptr)
          snprintf(Name, sizeof(Name), "%s (library)", Lib);
        else
          describeExecutableAddress(PC ? PC - 1 : 0, Name, sizeof(Name));
        static_cast<MapBuffer *>(Ctx)->add(Addr, Len, MapHeapBlock, Name);
      },
      &M);
}

struct HeapWriteCtx {
  ChunkedWriter *CW;
  bool Ok;
};

} // namespace

uint64_t imageMemoryBound() {
  uint64_t B = 0;
  size_t NG;
  const GlobalRange *G = registeredGlobals(&NG);
  for (size_t I = 0; I < NG; ++I)
    if (!G[I].unsaved())
      B += G[I].Size;
  forEachSavedLibraryRange([](uintptr_t, size_t L, const char *,
                              void *C) { *static_cast<uint64_t *>(C) += L; },
                           &B);
  heapForEachUsedRange(
      [](uintptr_t, size_t L, void *C) { *static_cast<uint64_t *>(C) += L; },
      &B);
  B += ProgramStack.High - RT.Ctx.StackLow;
  // A record per piece (a chunk at most, 40 bytes and padding), and the
  // small sections: the map, the chunk table, the runtime's own.
  return B + B / 4096 * 64 + (16 << 20);
}

bool writeImage(ImageSink &W, uint64_t Version) {
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
  RT.State.StackBase = ProgramStack.Low;
  RT.State.StackSize = ProgramStack.High - ProgramStack.Low;
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
  // Shared libraries' writable data: ranges of the same kind.
  HeapWriteCtx LC = {&CW, true};
  forEachSavedLibraryRange(
      [](uintptr_t A, size_t L, const char *, void *C) {
        auto *LC = static_cast<HeapWriteCtx *>(C);
        if (LC->Ok)
          LC->Ok = writeIncluded(*LC->CW, SecGlobals, A, L);
      },
      &LC);
  if (!LC.Ok)
    return false;
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
  UncheckedStackCopy Copy(Low, ProgramStack.High);
  if (!Copy.ok())
    return false;
  CW.readFromCopy(Low, ProgramStack.High - Low, Copy.bytes());
  bool StackOk = W.beginSection(SecStack, Z) &&
                 writeIncluded(CW, SecStack, Low, ProgramStack.High - Low) &&
                 W.endSection();
  CW.readFromCopy(0, 0, nullptr);
  if (!StackOk)
    return false;
  if (!CW.finish(RT.ChainLength + 1))
    return false;
  RT.LastStats = CW.stats();
  return W.finish();
}
} // namespace ccc
