//===- WindowShared.cpp - MPI-placed window memory across checkpoints -----===//
//
// MPI_Win_allocate_shared and MPI_Win_allocate windows, whose memory MPI
// places. MPI_Win_allocate's is, on a node with other members, a shared
// mapping too (Open MPI's osc rdma and MPICH map a segment per node), and
// the layer keeps it as it keeps a shared window's own part (below); made
// over MPI_Win_create instead, the window said MPI_WIN_FLAVOR_CREATE and
// Open MPI's osc rdma got pair-type accumulates wrong on it (issue 46).
// Where MPI took private memory (a window over one process of its node),
// which cannot be mapped twice, every member falls back to MPI_Win_create
// over ccc's saved heap (the attribute still says allocate).
//
// Only MPI can place a shared window's memory: one segment per node that
// every member maps, each member's part in it. The program keeps pointers
// into it (its own part, and the others' from MPI_Win_shared_query), so a
// restart must give it the same addresses, yet MPI maps the segment it makes
// again wherever it likes and keeps using that address itself.
//
// The layer therefore leaves MPI's mapping alone and maps the same shared
// pages a second time, at addresses of its own: mremap with old_size 0 on a
// shared mapping makes a new mapping of the same pages (Linux), placed with
// MREMAP_FIXED in an arena the layer reserves at a fixed address (PROT_NONE,
// nothing committed), where nothing else is ever mapped. The program only
// ever sees the alias (its part's base, MPI_Win_shared_query, MPI_WIN_BASE:
// MPI's address + Shift), in the first run as after a restart, which gives
// the same arena addresses to the segment MPI makes again. Loads and stores
// through either address reach the same memory, and MPI's RMA calls on its
// own address see the program's stores. The layout of the new segment (each
// part's offset from the segment's start) must be the first run's; it is
// checked, and a difference stops the job with a ccc: message.
//
// The contents are MPI's memory, not the image's: at each checkpoint (all
// members at the same site after the barrier that ends RMA: the blocking
// protocol's, or the non-blocking protocol's for the members of a grouped
// window, Windows.cpp) each rank copies its own part into a shadow in ccc's
// saved heap, and a restart copies it back, then a barrier on the window's
// communicator, before any member's program reads a part. The price is a
// copy of the window per checkpoint and the memory of a second one.
//
//===----------------------------------------------------------------------===//
#include "WindowsInternal.h"
#include "mpi-layer/Layer.h"

#include "rt/common/Log.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace ccc {
namespace mpi {

namespace {

// Calls Fn(A, B, Shared) for each mapping of /proc/self/maps that overlaps
// [Lo, Hi), in address order (Shared: a shared mapping, which can be
// mapped a second time).
template <typename F> bool eachMappingIn(uintptr_t Lo, uintptr_t Hi, F Fn) {
  FILE *M = fopen("/proc/self/maps", "r");
  if (!M)
    return false;
  char Line[512];
  bool Found = false;
  while (fgets(Line, sizeof Line, M)) {
    unsigned long A, B;
    char Perms[8] = "";
    if (sscanf(Line, "%lx-%lx %7s", &A, &B, Perms) < 2 || B <= Lo || A >= Hi)
      continue;
    Fn(A, B, Perms[3] == 's');
    Found = true;
  }
  fclose(M);
  return Found;
}

// Each member's part (its offset from Lo; -1 for an empty one), and the
// bounds of the parts.
void partsOf(Window &W, MPI_Aint *Offsets, uintptr_t *Lo, uintptr_t *Hi) {
  *Lo = UINTPTR_MAX;
  *Hi = 0;
  for (int R = 0; R < W.Size; ++R) {
    MPI_Aint Bytes;
    int Unit;
    void *Base;
    PMPI_Win_shared_query(W.Real, R, &Bytes, &Unit, &Base);
    uintptr_t A = reinterpret_cast<uintptr_t>(Base);
    Offsets[R] = Bytes > 0 ? (MPI_Aint)A : -1;
    if (Bytes > 0) {
      *Lo = A < *Lo ? A : *Lo;
      *Hi = A + Bytes > *Hi ? A + Bytes : *Hi;
    }
  }
}

// The arena: far below the libraries and MPI's own mappings (which the
// kernel places top-down under them) and above ccc's heap region.
constexpr uintptr_t kArena = 0x300000000000UL;
constexpr size_t kArenaBytes = (size_t)1 << 38;

void reserve(uintptr_t At, size_t Len, int Extra) {
  void *P = mmap(reinterpret_cast<void *>(At), Len, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | Extra, -1, 0);
  if (P != reinterpret_cast<void *>(At))
    fatal("cannot reserve the address range %#lx-%#lx for shared windows: "
          "%s",
          (unsigned long)At, (unsigned long)(At + Len),
          P == MAP_FAILED ? strerror(errno) : "mapped elsewhere");
}

// This process's arena, reserved at the first shared window.
void reserveArena() {
  static bool Reserved;
  if (!Reserved)
    reserve(kArena, kArenaBytes, MAP_FIXED_NOREPLACE);
  Reserved = true;
}

// Maps the pages of MPI's mapping [From, From + Len) also at To, in the
// arena.
void alias(uintptr_t From, uintptr_t To, size_t Len) {
  // The system call itself: under MPICH the libc call returned 0 and mapped
  // nothing (network libraries may redirect mremap for their registration
  // caches by patching relocations).
  long R =
      syscall(SYS_mremap, From, 0UL, Len, MREMAP_MAYMOVE | MREMAP_FIXED, To);
  void *P = R == -1 ? MAP_FAILED : reinterpret_cast<void *>(R);
  if (P == MAP_FAILED)
    fatal("cannot map MPI's shared window segment at %#lx (%zu bytes) also "
          "at %#lx (is MPI's mapping a shared one?): %s",
          (unsigned long)From, Len, (unsigned long)To, strerror(errno));
}

// Where the next window's memory goes: after every window's made so far
// (freed ones included: the addresses are never used twice, so a restart
// finds each where the first run had it).
uintptr_t nextInArena(MPI_Aint Bytes) {
  uintptr_t Next = kArena;
  for (uint32_t I = 0; I < L->NWins; ++I)
    if (L->Wins[I].SegHi > Next)
      Next = L->Wins[I].SegHi;
  if (Next + Bytes > kArena + kArenaBytes)
    fatal("MPI-placed windows take more than the %zu GiB of address space "
          "ccc reserves for them",
          kArenaBytes >> 30);
  return Next;
}

// Maps each mapping's part of [Lo, Hi) also at the same place plus Shift
// (one mremap covers one mapping).
void aliasRange(uintptr_t Lo, uintptr_t Hi, intptr_t Shift) {
  if (Hi <= Lo)
    return;
  reserveArena();
  auto *Maps = static_cast<uintptr_t *>(scratch(64 * 2 * sizeof(uintptr_t)));
  int N = 0;
  eachMappingIn(Lo, Hi, [&](uintptr_t A, uintptr_t B, bool) {
    if (N == 64)
      fatal("a window's memory spans more than 64 mappings");
    Maps[2 * N] = A > Lo ? A : Lo;
    Maps[2 * N++ + 1] = B < Hi ? B : Hi;
  });
  for (int I = 0; I < N; ++I)
    alias(Maps[2 * I], Maps[2 * I] + Shift, Maps[2 * I + 1] - Maps[2 * I]);
  scratchFree(Maps);
}

} // namespace

int makeSharedWindow(Window &W, MPI_Info Info) {
  void *Base = nullptr;
  int Err = PMPI_Win_allocate_shared(W.Bytes, W.DispUnit, Info, W.RealComm,
                                     &Base, &W.Real);
  if (Err != MPI_SUCCESS)
    return Err;
  auto *Now = static_cast<MPI_Aint *>(scratch(W.Size * sizeof(MPI_Aint)));
  uintptr_t Lo, Hi, SLo = 0, SHi = 0;
  partsOf(W, Now, &Lo, &Hi);
  // The segment: every mapping the parts overlap, to their bounds.
  if (Hi > Lo && !eachMappingIn(Lo, Hi, [&](uintptr_t A, uintptr_t B, bool) {
        SLo = SLo && SLo < A ? SLo : A;
        SHi = SHi > B ? SHi : B;
      }))
    fatal("cannot find the shared window's segment in /proc/self/maps");
  for (int R = 0; R < W.Size; ++R)
    if (Now[R] >= 0)
      Now[R] -= (MPI_Aint)SLo;
  bool First = !W.Offsets;
  if (First) {
    W.Offsets = static_cast<MPI_Aint *>(saved(W.Size * sizeof(MPI_Aint)));
    memcpy(W.Offsets, Now, W.Size * sizeof(MPI_Aint));
    W.SegLo = nextInArena(SHi - SLo);
    W.SegHi = W.SegLo + (SHi - SLo);
    if (W.Bytes > 0)
      W.Shadow = saved(W.Bytes);
  } else if (SHi - SLo != W.SegHi - W.SegLo ||
             memcmp(Now, W.Offsets, W.Size * sizeof(MPI_Aint)) != 0)
    fatal("MPI laid out the shared window's segment differently after the "
          "restart (%zu bytes, was %zu; or the members' parts moved): the "
          "program's pointers into it would be wrong",
          (size_t)(SHi - SLo), (size_t)(W.SegHi - W.SegLo));
  scratchFree(Now);
  W.Shift = (intptr_t)W.SegLo - (intptr_t)SLo;
  W.Base = Base ? static_cast<char *>(Base) + W.Shift : nullptr;
  aliasRange(SLo, SHi, W.Shift);
  if (!First) {
    if (W.Bytes > 0)
      memcpy(W.Base, W.Shadow, W.Bytes);
    // No member reads another's part before it is back.
    PMPI_Barrier(W.RealComm);
  }
  return MPI_SUCCESS;
}

int makeAllocatedWindow(Window &W, MPI_Info Info) {
  bool Again = W.Live; // made again after a restart
  if (W.Heap)
    return PMPI_Win_create(W.Base, W.Bytes, W.DispUnit, Info, W.RealComm,
                           &W.Real);
  void *Base = nullptr;
  int Err =
      PMPI_Win_allocate(W.Bytes, W.DispUnit, Info, W.RealComm, &Base, &W.Real);
  if (Err != MPI_SUCCESS)
    return Err;
  // This rank's part, to whole pages.
  uintptr_t Page = (uintptr_t)sysconf(_SC_PAGESIZE);
  uintptr_t A = reinterpret_cast<uintptr_t>(Base);
  uintptr_t Lo = A & ~(Page - 1), Hi = (A + W.Bytes + Page - 1) & ~(Page - 1);
  if (W.Bytes == 0)
    Lo = Hi = 0;
  bool Shared = true;
  if (Hi > Lo && !eachMappingIn(Lo, Hi, [&](uintptr_t, uintptr_t, bool S) {
        Shared &= S;
      }))
    Shared = false;
  if (!Again) {
    // Every member takes the same way: the fallback frees and makes the
    // window again, collectively.
    int Mine = Shared, All = 0;
    PMPI_Allreduce(&Mine, &All, 1, MPI_INT, MPI_MIN, W.RealComm);
    if (!All) {
      // MPI took private memory (a window over one process of a node): it
      // cannot be mapped at a fixed address again, so the window lies over
      // ccc's saved heap as MPI_Win_create's (the attributes still say
      // MPI_WIN_FLAVOR_ALLOCATE).
      PMPI_Win_free(&W.Real);
      W.Heap = true;
      W.Base = __ccc_malloc(W.Bytes > 0 ? (size_t)W.Bytes : 1);
      if (!W.Base)
        return MPI_ERR_NO_MEM;
      return PMPI_Win_create(W.Base, W.Bytes, W.DispUnit, Info, W.RealComm,
                             &W.Real);
    }
    W.SegLo = nextInArena(Hi - Lo);
    W.SegHi = W.SegLo + (Hi - Lo);
    if (W.Bytes > 0)
      W.Shadow = saved(W.Bytes);
  } else if (!Shared || Hi - Lo != W.SegHi - W.SegLo ||
             (W.Bytes > 0 &&
              A - Lo != reinterpret_cast<uintptr_t>(W.Base) - W.SegLo))
    fatal("MPI placed an MPI_Win_allocate window's memory differently after "
          "the restart (%s mapping of %zu bytes at page offset %zu; was a "
          "shared one of %zu at %zu): the program's pointers into it would "
          "be wrong",
          Shared ? "a shared" : "a private", (size_t)(Hi - Lo),
          (size_t)(A - Lo), (size_t)(W.SegHi - W.SegLo),
          (size_t)(reinterpret_cast<uintptr_t>(W.Base) - W.SegLo));
  W.Shift = (intptr_t)W.SegLo - (intptr_t)Lo;
  aliasRange(Lo, Hi, W.Shift);
  W.Base = W.Bytes > 0 ? static_cast<char *>(Base) + W.Shift : Base;
  if (Again) {
    if (W.Bytes > 0)
      memcpy(W.Base, W.Shadow, W.Bytes);
    // No member's RMA reaches this part before it is back.
    PMPI_Barrier(W.RealComm);
  }
  return MPI_SUCCESS;
}

void saveSharedWindow(Window &W) {
  if (W.Bytes > 0)
    memcpy(W.Shadow, W.Base, W.Bytes);
}

void freeSharedWindow(Window &W) {
  // The alias keeps the pages alive: back to the reserve.
  if (W.SegHi > W.SegLo)
    reserve(W.SegLo, W.SegHi - W.SegLo, MAP_FIXED);
  __ccc_free(W.Shadow);
  __ccc_free(W.Offsets);
  W.Shadow = nullptr;
  W.Offsets = nullptr;
}

} // namespace mpi
} // namespace ccc

using namespace ccc::mpi;

extern "C" {

int MPI_Win_allocate_shared(MPI_Aint Size, int DispUnit, MPI_Info Info,
                            MPI_Comm C, void *BasePtr, MPI_Win *Out) {
  if (Bypass || !L)
    return PMPI_Win_allocate_shared(Size, DispUnit, Info, realComm(C), BasePtr,
                                    Out);
  // A window of one process need not be shared, and MPICH then takes it
  // from its private heap, which cannot be mapped twice: the layer makes it
  // as MPI_Win_allocate does, from ccc's saved heap, and answers
  // MPI_Win_shared_query itself.
  int Members;
  PMPI_Comm_size(realComm(C), &Members);
  if (Members == 1) {
    int Err = MPI_Win_allocate(Size, DispUnit, Info, C, BasePtr, Out);
    if (Err == MPI_SUCCESS)
      window(*Out)->Solo = true;
    return Err;
  }
  int Err = createWindow(kShared, nullptr, Size, DispUnit, Info, C, Out);
  if (Err != MPI_SUCCESS)
    return Err;
  *static_cast<void **>(BasePtr) = window(*Out)->Base;
  return MPI_SUCCESS;
}

// Another member's part, at the address the program knows it by.
int MPI_Win_shared_query(MPI_Win H, int Rank, MPI_Aint *Size, int *DispUnit,
                         void *BasePtr) {
  Window *W = Bypass ? nullptr : window(H);
  if (!W)
    return PMPI_Win_shared_query(H, Rank, Size, DispUnit, BasePtr);
  if (W->Solo) {
    if (Rank != 0 && Rank != MPI_PROC_NULL)
      return MPI_ERR_RANK;
    *Size = W->Bytes;
    *DispUnit = W->DispUnit;
    *static_cast<void **>(BasePtr) = W->Base;
    return MPI_SUCCESS;
  }
  int Err = PMPI_Win_shared_query(W->Real, Rank, Size, DispUnit, BasePtr);
  if (Err == MPI_SUCCESS && W->Flavor == kShared && *Size > 0)
    *static_cast<char **>(BasePtr) += W->Shift;
  return Err;
}
}
