//===- HeapRegion.cpp - The fixed-address heap of the application ---------===//
//
// Small blocks (up to 256 KiB with their header) come from size classes, four
// per power of two, each a LIFO free list threaded through free blocks and
// refilled by carving spans from a bump pointer. Large blocks are page
// multiples from an address-ordered list of free extents (first fit, merged
// on free, their pages returned with MADV_DONTNEED) or from the bump
// pointer. Every block has a 16-byte header: its size and kind. Images hold
// the region from its base to the bump pointer but the bodies of free large
// extents and of free small blocks of 4 KiB and more (a free block's first
// word links it into its class's list: kept).
//
//===----------------------------------------------------------------------===//
#include "HeapRegion.h"
#include "AllocationSite.h"
#include "Exclusions.h"
#include "rt/common/LibcHeap.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

// Pulls LinkWrap.S's __wrap_ functions into every link that has the heap.
extern "C" const char __ccc_link_wrap_anchor;
[[gnu::used]] static const char *const KeepLinkWrap = &__ccc_link_wrap_anchor;

namespace ccc {
namespace {

constexpr uint64_t kMagic = 0x6363632d68656170ULL; // "ccc-heap"
constexpr size_t kPage = 4096;
constexpr size_t kSmallMax = 256 << 10; // block size incl. header
constexpr size_t kNumClasses = 17 + 10 * 4;
// Free extents at least this big give their pages back to the kernel;
// smaller ones are kept mapped, as glibc keeps its heap top. Not at every
// free: a program that frees and re-allocates big arrays every step would
// fault all their pages in again each time (3x slower measured on a Fortran
// stencil); pages go back once this much has been freed since the last time.
constexpr size_t kReleaseMin = 1 << 20;
constexpr size_t kReleaseBatch = 64 << 20;
constexpr size_t kSpan = 64 << 10;
constexpr uint64_t KindSmall = 1, KindLarge = 2, KindAligned = 3;

struct BlockHeader {
  uint64_t Size; // block bytes incl. header; for KindAligned: offset back
  uint64_t Kind;
};
struct FreeBlock {
  FreeBlock *Next;
};
struct FreeExtent { // at the start of a free large extent
  FreeExtent *Next;
  uint64_t Size;
};
constexpr size_t kExtentKeep = sizeof(FreeExtent); // saved of a free extent

// Where the large blocks in use were allocated (the allocating call's
// return address), for `ckpt info`: the first kPlaces of them.
constexpr size_t kPlaces = 256;
struct BlockPlace {
  uintptr_t Block, PC; // Block 0: a free slot
};

struct RegionState { // at the region base
  uint64_t Magic;
  uintptr_t Bump;
  FreeBlock *Free[kNumClasses];
  uintptr_t SpanCur[kNumClasses], SpanEnd[kNumClasses];
  FreeExtent *Extents; // address order
  uint64_t Unreleased; // large bytes freed since pages were last released
  BlockPlace Places[kPlaces];
};

uintptr_t Base;
size_t Reserve;
// The region is reserved MADV_DONTDUMP whole: a core dump (the kernel's,
// or gdb's gcore, which writes every byte of a dumpable mapping) would
// otherwise hold the whole reservation, 64 GiB by default. The part the
// allocator has taken, [Base, DumpableEnd), is made dumpable again as the
// bump pointer passes it, in steps of kDumpStep so that madvise runs on
// the allocator's slow path about once per kDumpStep of growth.
uintptr_t DumpableEnd;
constexpr size_t kDumpStep = 32ULL << 20;
std::atomic<bool> Lock{false};

inline RegionState *state() { return reinterpret_cast<RegionState *>(Base); }

// Threads allocate at once (OpenMP workers in a region). With more
// threads than cores, a thread spinning for a lock whose holder was
// preempted would spin out its whole time slice: after a short spin it
// yields the core instead (4 threads on 2 cores: see bench/alloc).
inline void lock() {
  while (Lock.exchange(true, std::memory_order_acquire)) {
    for (int Spins = 0; Lock.load(std::memory_order_relaxed); ++Spins) {
      if (Spins < 64)
        __builtin_ia32_pause();
      else
        sched_yield();
    }
  }
}
inline void unlock() { Lock.store(false, std::memory_order_release); }

// The block size of class C (classOf's inverse).
inline size_t classSize(size_t C) {
  if (C <= 16)
    return C << 4;
  size_t B = 8 + (C - 17) / 4, Q = (C - 17) % 4;
  return (size_t(1) << B) + ((Q + 1) << (B - 2));
}

// Class index and block size for Total bytes (header included).
inline size_t classOf(size_t Total, size_t *Size) {
  if (Total <= 256) {
    size_t I = (Total + 15) >> 4;
    *Size = I << 4;
    return I;
  }
  unsigned B = 63 - __builtin_clzll(Total - 1); // 2^B < Total <= 2^(B+1)
  size_t Q = ((Total - 1) >> (B - 2)) & 3;
  *Size = (size_t(1) << B) + ((Q + 1) << (B - 2));
  return 17 + (B - 8) * 4 + Q;
}

// The lock is held until the region is mapped and its state set: threads
// whose first calls race (a program without sites has no runtime start to
// map it before main) would otherwise both map it, and the loser aborted.
void lazyInit() {
  lock();
  if (!Base) {
    size_t R = kHeapDefaultReserve;
    if (const char *E = getenv("CCC_HEAP_RESERVE"))
      if (long long V = atoll(E); V >= (1 << 24))
        R = V & ~(kPage - 1);
    bool Mapped = heapMap(kHeapBase, R, true);
    unlock();
    if (!Mapped) {
      static const char Msg[] = "ccc: cannot map the heap region\n";
      (void)!write(2, Msg, sizeof(Msg) - 1);
      abort();
    }
    return;
  }
  unlock();
}

// Makes [DumpableEnd, End rounded up to kDumpStep) part of core dumps.
void extendDumpable(uintptr_t End) {
  uintptr_t To = (End - Base + kDumpStep - 1) / kDumpStep * kDumpStep + Base;
  if (To > Base + Reserve)
    To = Base + Reserve;
  if (To <= DumpableEnd)
    return;
  madvise(reinterpret_cast<void *>(DumpableEnd), To - DumpableEnd, MADV_DODUMP);
  DumpableEnd = To;
}

// Takes Len bytes (page-rounded for large use) from the never-used area.
uintptr_t bump(size_t Len) {
  RegionState *S = state();
  if (Len > Reserve - (S->Bump - Base))
    return 0;
  uintptr_t P = S->Bump;
  S->Bump += Len;
  if (S->Bump > DumpableEnd)
    extendDumpable(S->Bump);
  return P;
}

void *allocSmall(size_t Total) {
  size_t Size;
  size_t C = classOf(Total, &Size);
  RegionState *S = state();
  uintptr_t P;
  if (FreeBlock *F = S->Free[C]) {
    S->Free[C] = F->Next;
    P = reinterpret_cast<uintptr_t>(F);
  } else if (S->SpanCur[C] + Size <= S->SpanEnd[C] && S->SpanCur[C]) {
    P = S->SpanCur[C];
    S->SpanCur[C] += Size;
  } else {
    size_t Span = Size * 8 > kSpan ? Size * 8 : kSpan;
    P = bump(Span);
    if (!P)
      return nullptr;
    S->SpanCur[C] = P + Size;
    S->SpanEnd[C] = P + Span;
  }
  auto *H = reinterpret_cast<BlockHeader *>(P);
  H->Size = Size;
  H->Kind = KindSmall;
  return H + 1;
}

void releasePages(uintptr_t Start, uintptr_t End) {
  uintptr_t A = (Start + kPage - 1) & ~(kPage - 1);
  if (End > A + kPage)
    madvise(reinterpret_cast<void *>(A), End - A, MADV_DONTNEED);
}

void *allocLarge(size_t Total, uintptr_t PC) {
  size_t Len = (Total + kPage - 1) & ~(kPage - 1);
  RegionState *S = state();
  uintptr_t P = 0;
  for (FreeExtent **L = &S->Extents; *L; L = &(*L)->Next) {
    FreeExtent *E = *L;
    if (E->Size < Len)
      continue;
    P = reinterpret_cast<uintptr_t>(E);
    if (E->Size - Len >= kPage) {
      auto *Rest = reinterpret_cast<FreeExtent *>(P + Len);
      Rest->Next = E->Next;
      Rest->Size = E->Size - Len;
      *L = Rest;
    } else {
      Len = E->Size;
      *L = E->Next;
    }
    break;
  }
  if (!P && !(P = bump(Len)))
    return nullptr;
  auto *H = reinterpret_cast<BlockHeader *>(P);
  H->Size = Len;
  H->Kind = KindLarge;
  for (BlockPlace &BP : S->Places)
    if (!BP.Block) {
      BP = {P, PC};
      break;
    }
  return H + 1;
}

void freeLarge(uintptr_t P, size_t Len) {
  RegionState *S = state();
  for (BlockPlace &BP : S->Places)
    if (BP.Block == P) {
      BP = {0, 0};
      break;
    }
  FreeExtent **L = &S->Extents, *Prev = nullptr;
  while (*L && reinterpret_cast<uintptr_t>(*L) < P) {
    Prev = *L;
    L = &(*L)->Next;
  }
  auto *E = reinterpret_cast<FreeExtent *>(P);
  E->Size = Len;
  E->Next = *L;
  *L = E;
  if (E->Next && P + E->Size == reinterpret_cast<uintptr_t>(E->Next)) {
    E->Size += E->Next->Size;
    E->Next = E->Next->Next;
  }
  if (Prev && reinterpret_cast<uintptr_t>(Prev) + Prev->Size == P) {
    Prev->Size += E->Size;
    Prev->Next = E->Next;
    E = Prev;
  }
  S->Unreleased += Len;
  if (S->Unreleased < kReleaseBatch)
    return;
  S->Unreleased = 0;
  for (FreeExtent *X = S->Extents; X; X = X->Next) {
    uintptr_t XStart = reinterpret_cast<uintptr_t>(X);
    if (X->Size >= kReleaseMin)
      releasePages(XStart + kExtentKeep, XStart + X->Size);
  }
}

void freeLocked(void *Ptr) {
  auto *H = static_cast<BlockHeader *>(Ptr) - 1;
  if (H->Kind == KindAligned) {
    freeLocked(reinterpret_cast<char *>(Ptr) - H->Size);
    return;
  }
  uintptr_t P = reinterpret_cast<uintptr_t>(H);
  if (H->Kind == KindSmall) {
    size_t Size;
    size_t C = classOf(H->Size, &Size);
    auto *F = reinterpret_cast<FreeBlock *>(H);
    F->Next = state()->Free[C];
    state()->Free[C] = F;
  } else {
    freeLarge(P, H->Size);
  }
}

size_t usableLocked(void *Ptr) {
  auto *H = static_cast<BlockHeader *>(Ptr) - 1;
  if (H->Kind == KindAligned)
    return usableLocked(reinterpret_cast<char *>(Ptr) - H->Size) - H->Size;
  return H->Size - sizeof(BlockHeader);
}

} // namespace

bool heapMap(uintptr_t B, size_t R, bool Fresh) {
  void *P = mmap(
      reinterpret_cast<void *>(B), R, PROT_READ | PROT_WRITE,
      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (P == MAP_FAILED)
    return false;
  if (P != reinterpret_cast<void *>(B)) { // old kernels ignore NOREPLACE
    munmap(P, R);
    errno = EEXIST;
    return false;
  }
  // Failure only costs core size, never correctness: ignore it.
  madvise(P, R, MADV_DONTDUMP);
  Base = B;
  Reserve = R;
  DumpableEnd = B;
  if (Fresh) {
    RegionState *S = state();
    S->Magic = kMagic;
    S->Bump = (B + sizeof(RegionState) + kPage - 1) & ~(kPage - 1);
    extendDumpable(S->Bump);
  }
  return true;
}

void heapRestored() {
  if (Base)
    extendDumpable(state()->Bump);
}

void heapUnmap() {
  if (Base)
    munmap(reinterpret_cast<void *>(Base), Reserve);
  Base = 0;
  Reserve = 0;
  DumpableEnd = 0;
}
bool heapIsMapped() { return Base != 0; }
bool heapContains(const void *P) {
  return reinterpret_cast<uintptr_t>(P) - Base < Reserve;
}
uintptr_t heapBase() { return Base; }
size_t heapReserve() { return Reserve; }
void heapLock() { lock(); }
void heapUnlock() { unlock(); }

namespace {
// Free small blocks at least this big have their bodies left out of images
// (smaller ones would cost more map entries than they save).
constexpr size_t kHoleMin = 4096;

struct Hole {
  uintptr_t Start, End;
};

// The bodies of the free small blocks of kHoleMin bytes and more, in
// address order, in a mapping of MapLen bytes of its own (not the heap
// being saved); null if there are none or a list looks broken (a double
// free): then everything is saved.
Hole *freeBodies(size_t &N, size_t &MapLen) {
  RegionState *S = state();
  const size_t Limit = Reserve / kHoleMin;
  size_t Count = 0;
  for (size_t C = 1; C < kNumClasses; ++C) {
    if (classSize(C) < kHoleMin)
      continue;
    for (FreeBlock *F = S->Free[C]; F; F = F->Next) {
      uintptr_t A = reinterpret_cast<uintptr_t>(F);
      if (++Count > Limit || A < Base || A + classSize(C) > S->Bump)
        return nullptr;
    }
  }
  if (!Count)
    return nullptr;
  MapLen = (Count * sizeof(Hole) + kPage - 1) & ~(kPage - 1);
  void *M = mmap(nullptr, MapLen, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (M == MAP_FAILED)
    return nullptr;
  auto *H = static_cast<Hole *>(M);
  N = 0;
  for (size_t C = 1; C < kNumClasses; ++C)
    if (classSize(C) >= kHoleMin)
      for (FreeBlock *F = S->Free[C]; F; F = F->Next) {
        uintptr_t A = reinterpret_cast<uintptr_t>(F);
        H[N++] = {A + sizeof(FreeBlock), A + classSize(C)};
      }
  std::sort(H, H + N,
            [](const Hole &X, const Hole &Y) { return X.Start < Y.Start; });
  return H;
}
} // namespace

void heapForEachUsedRange(void (*Fn)(uintptr_t, size_t, void *), void *Ctx) {
  if (!Base)
    return;
  RegionState *S = state();
  size_t NH = 0, HI = 0, MapLen = 0;
  Hole *H = freeBodies(NH, MapLen);
  // Fn over [A, A + L) but the holes in it.
  auto Emit = [&](uintptr_t A, size_t L) {
    uintptr_t End = A + L;
    while (HI < NH && H[HI].End <= A)
      ++HI;
    for (; HI < NH && H[HI].Start < End; ++HI) {
      if (H[HI].Start > A)
        Fn(A, H[HI].Start - A, Ctx);
      A = std::max(A, H[HI].End);
    }
    if (A < End)
      Fn(A, End - A, Ctx);
  };
  uintptr_t Cur = Base;
  for (FreeExtent *E = S->Extents; E; E = E->Next) {
    uintptr_t EStart = reinterpret_cast<uintptr_t>(E);
    // The extent's list node is allocator state: keep it.
    Emit(Cur, EStart + kExtentKeep - Cur);
    Cur = EStart + E->Size;
  }
  if (S->Bump > Cur)
    Emit(Cur, S->Bump - Cur);
  if (H)
    munmap(H, MapLen);
}

void heapForEachPlacedBlock(void (*Fn)(uintptr_t Addr, size_t Len, uintptr_t PC,
                                       void *Ctx),
                            void *Ctx) {
  if (!Base)
    return;
  for (const BlockPlace &BP : state()->Places)
    if (BP.Block) {
      auto *H = reinterpret_cast<const BlockHeader *>(BP.Block);
      Fn(BP.Block + sizeof(BlockHeader), H->Size - sizeof(BlockHeader), BP.PC,
         Ctx);
    }
}

void *heapAllocFrom(size_t N, const void *Caller) {
  if (__builtin_expect(!Base, 0))
    lazyInit();
  if (N > Reserve) {
    errno = ENOMEM;
    return nullptr;
  }
  size_t Total = N + sizeof(BlockHeader);
  if (Total <= kSmallMax) {
    lock();
    void *P = allocSmall(Total);
    unlock();
    if (!P)
      errno = ENOMEM;
    return P;
  }
  // Large blocks are named by their allocating call in `ckpt info`; found
  // before taking the lock, since it may unwind the stack.
  uintptr_t Site = allocationSite(reinterpret_cast<uintptr_t>(Caller));
  lock();
  void *P = allocLarge(Total, Site);
  unlock();
  if (!P)
    errno = ENOMEM;
  return P;
}

size_t heapUsedBytes() {
  size_t N = 0;
  heapForEachUsedRange(
      [](uintptr_t, size_t L, void *C) { *static_cast<size_t *>(C) += L; }, &N);
  return N;
}
} // namespace ccc

using namespace ccc;

extern "C" void *__ccc_malloc(size_t N) {
  return heapAllocFrom(N, __builtin_return_address(0));
}

extern "C" void __ccc_free(void *P) {
  if (!P)
    return;
  if (!heapContains(P)) {
    __libc_free(P); // memory a library allocated with libc
    return;
  }
  lock();
  if (Excluded && Excluded->N) {
    uintptr_t Lo = reinterpret_cast<uintptr_t>(P);
    forgetExclusionsIn(Lo, Lo + usableLocked(P));
  }
  freeLocked(P);
  unlock();
}

extern "C" size_t __ccc_malloc_usable_size(void *P) {
  if (!P)
    return 0;
  if (!heapContains(P)) {
    // glibc has no internal name for it; dlsym is not subject to --wrap.
    using Fn = size_t (*)(void *);
    static Fn Libc =
        reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "malloc_usable_size"));
    return Libc ? Libc(P) : 0;
  }
  return usableLocked(P);
}

extern "C" void *__ccc_realloc(void *P, size_t N) {
  if (!P)
    return __ccc_malloc(N);
  if (!heapContains(P))
    return __libc_realloc(P, N);
  if (N == 0) {
    __ccc_free(P);
    return nullptr;
  }
  size_t Old = usableLocked(P);
  // Keep the block if it fits and is not far too big.
  if (N <= Old && N >= Old / 4)
    return P;
  void *Q = heapAllocFrom(N, __builtin_return_address(0));
  if (!Q)
    return nullptr;
  memcpy(Q, P, N < Old ? N : Old);
  __ccc_free(P);
  return Q;
}

extern "C" void *__ccc_memalign(size_t Align, size_t N) {
  return heapMemalignFrom(Align, N, __builtin_return_address(0));
}

void *ccc::heapMemalignFrom(size_t Align, size_t N, const void *Caller) {
  if (Align <= 16)
    return heapAllocFrom(N, Caller);
  if (Align & (Align - 1)) {
    errno = EINVAL;
    return nullptr;
  }
  if (N > Reserve) {
    errno = ENOMEM;
    return nullptr;
  }
  char *Raw = static_cast<char *>(heapAllocFrom(N + Align + 16, Caller));
  if (!Raw)
    return nullptr;
  uintptr_t A = (reinterpret_cast<uintptr_t>(Raw) + 16 + Align - 1) &
                ~(uintptr_t)(Align - 1);
  auto *H = reinterpret_cast<BlockHeader *>(A) - 1;
  H->Size = A - reinterpret_cast<uintptr_t>(Raw);
  H->Kind = KindAligned;
  return reinterpret_cast<void *>(A);
}
