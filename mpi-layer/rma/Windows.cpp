//===- Windows.cpp - one-sided communication across checkpoints ----------===//
//
// A window is a ccc handle (an index into L->Wins, saved with the image),
// made again on restart in creation order over the same memory: the
// program's for MPI_Win_create and attached regions (in the image); for
// MPI_Win_allocate and MPI_Win_allocate_shared MPI's own memory, which the
// program sees at an address of the layer's that a restart gives again,
// its contents copied into the image at each checkpoint (WindowShared.cpp).
// So MPI keeps its flavour, its shared-memory segments and the one-sided
// component that goes with them.
//
// Each window gets the layer's own communicator over its members (a dup of
// the program's, after a restart one made from the layer's private
// communicator with the same world ranks): MPI_Win_create uses it, and the
// non-blocking protocol's checks at fences run on it.
//
// Epochs and checkpoints (docs/mpi-io-windows.md "One-sided communication"):
// - blocking protocol: every rank is at the same site, so before the image
//   the layer completes all RMA (its own fence on a window whose fence
//   epoch is open, flushes for the locks held), then a barrier: every
//   window's memory is final in every image. A restart re-opens what was
//   open (the fence epoch, lock_all, the locks). A post/start epoch open at
//   the site cannot be re-opened (its partner's matching call is gone):
//   no rank writes that checkpoint (the previous one stays).
// - non-blocking protocol, fence-mode windows (synchronised by fences alone
//   up to their first checked fence): a checkpoint is committed only if
//   every member of every window took it between the same two fences and
//   no member made an RMA call in that interval; each fence checks it (an
//   Allreduce on the window's communicator). A rank's own wish to
//   checkpoint is raised at its next fence, so that every member takes it
//   at its next site after the same fence.
// - non-blocking protocol, grouped windows (shared ones, and those used
//   with passive target or post/start): nothing orders their RMA, loads and
//   stores with a target's checkpoint, so their members agree at every site
//   (windowsAgree: an Allreduce per window) and take a checkpoint together,
//   completing RMA between two barriers as the blocking protocol does.
//
//===----------------------------------------------------------------------===//
#include "WindowsInternal.h"
#include "mpi-layer/Layer.h"
#include "mpi-layer/objects/CommunicatorCalls.h"
#include "mpi-layer/protocol/ProtocolInternal.h"

#include "rt/common/Log.h"

#include "ccc.h"

#include <cstdio>
#include <cstring>

namespace ccc {
namespace mpi {

namespace {

// Non-blocking protocol, per process: this rank wants a checkpoint and
// waits for a fence to raise it; a fence raised one (take it at the next
// site). GroupSplit: at this site some grouped windows' members take a
// checkpoint together and others' do not, so this rank writes no image.
bool Raise, Agreed, GroupSplit;

// The layer's communicator over World[0..N) (world ranks, in this order),
// made from its private communicator: the program's may have been freed.
MPI_Comm commOfMembers(int N, const int *World) {
  MPI_Group WG, G;
  PMPI_Comm_group(Private, &WG);
  PMPI_Group_incl(WG, N, World, &G);
  MPI_Comm C = MPI_COMM_NULL;
  if (PMPI_Comm_create_group(Private, G, 0x7cc, &C) != MPI_SUCCESS)
    fatal("could not re-create a window's communicator");
  PMPI_Group_free(&G);
  PMPI_Group_free(&WG);
  return C;
}

void recordMembersOf(Window &W) {
  PMPI_Comm_size(W.RealComm, &W.Size);
  W.WorldRanks = static_cast<int *>(saved(W.Size * sizeof(int)));
  W.Locks = static_cast<int *>(saved(W.Size * sizeof(int)));
  int *Mine = static_cast<int *>(scratch(W.Size * sizeof(int)));
  for (int I = 0; I < W.Size; ++I)
    Mine[I] = I;
  MPI_Group G, WG;
  PMPI_Comm_group(W.RealComm, &G);
  PMPI_Comm_group(MPI_COMM_WORLD, &WG);
  PMPI_Group_translate_ranks(G, W.Size, Mine, WG, W.WorldRanks);
  PMPI_Group_free(&G);
  PMPI_Group_free(&WG);
  scratchFree(Mine);
}

uint32_t newWindow() {
  if (L->NWins == L->CapWins) {
    uint32_t Cap = L->CapWins ? 2 * L->CapWins : 8;
    auto *N = static_cast<Window *>(saved(Cap * sizeof(Window)));
    if (L->NWins)
      memcpy(N, L->Wins, L->NWins * sizeof(Window));
    __ccc_free(L->Wins);
    L->Wins = N;
    L->CapWins = Cap;
  }
  // A slot a failed creation gave back may hold its fields.
  memset(&L->Wins[L->NWins], 0, sizeof(Window));
  return L->NWins++;
}

int makeReal(Window &W, MPI_Info Info) {
  int Err = W.Flavor == kShared      ? makeSharedWindow(W, Info)
            : W.Flavor == kAllocated ? makeAllocatedWindow(W, Info)
            : W.Flavor == kDynamic
                ? PMPI_Win_create_dynamic(Info, W.RealComm, &W.Real)
                : PMPI_Win_create(W.Base, W.Bytes, W.DispUnit, Info, W.RealComm,
                                  &W.Real);
  if (Err != MPI_SUCCESS)
    return Err;
  for (uint32_t I = 0; I < W.NRegions; ++I)
    PMPI_Win_attach(W.Real, W.Regions[I].Base, W.Regions[I].Bytes);
  if (W.Name[0])
    PMPI_Win_set_name(W.Real, W.Name);
  if (W.Errh)
    PMPI_Win_set_errhandler(
        W.Real, realErrhandler(handleFromBits<MPI_Errhandler>(W.Errh)));
  return MPI_SUCCESS;
}

} // namespace

// Non-blocking protocol: a collective synchronisation of W (fence, create,
// free). Members whose epochs differ, or whose checkpoint fell in the fence
// epoch that closes here while some member made RMA calls in it, cannot
// form a recovery line: this rank's checkpoint is not committed.
void lineCheck(Window &W, const char *What, bool AtFence) {
  uint64_t In[5] = {~(uint64_t)L->Epoch, L->Epoch, W.Ops > 0, Raise, W.Passive},
           Out[5];
  PMPI_Allreduce(In, Out, 5, MPI_UINT64_T, MPI_MAX, W.RealComm);
  // A window synchronised by fences, on which no member used passive target
  // or post/start so far, follows the fence rule from here: its members
  // need not reach their sites together any more.
  if (AtFence && W.Grouped && W.Flavor != kShared && !Out[4])
    W.Grouped = false;
  uint32_t Min = (uint32_t)~Out[0];
  bool Bad = Min < L->Epoch || (W.Verdict && Out[2]);
  if (Bad && nb::TakeResult == nb::kWritten) {
    logMessage("checkpoint %llu will not be committed: %s %s (RMA could "
               "cross the recovery line; sites must lie between fences "
               "closing and opening epochs, MPI_MODE_NOSUCCEED)",
               (unsigned long long)(L->VersionBase + L->Epoch), What,
               Min < L->Epoch ? "while some of its members had taken it and "
                                "others not"
                              : "right after RMA calls in the fence epoch "
                                "the checkpoint was taken in");
    nb::TakeResult = nb::kSaid;
  }
  if (Out[3])
    Agreed = true; // every member takes it at its next site
  Raise = false;
  if (W.Verdict) {
    W.Verdict = false;
    nbCollPending(-1);
    nb::checkPeriod();
  }
  W.Ops = 0;
}

int createWindow(uint8_t Flavor, void *Base, MPI_Aint Bytes, int DispUnit,
                 MPI_Info Info, MPI_Comm C, MPI_Win *Out) {
  MPI_Comm Mine;
  int Err = PMPI_Comm_dup(realComm(C), &Mine);
  if (Err != MPI_SUCCESS)
    return Err;
  uint32_t I = newWindow();
  Window &W = L->Wins[I];
  W.Flavor = Flavor;
  W.RealComm = Mine;
  W.Base = Base;
  W.Bytes = Bytes;
  W.DispUnit = DispUnit;
  W.Grouped = NonBlocking;
  recordMembersOf(W);
  if (NonBlocking)
    lineCheck(W, "a window was created");
  Err = makeReal(W, realInfo(Info));
  if (Err != MPI_SUCCESS) {
    PMPI_Comm_free(&W.RealComm);
    L->NWins--;
    return Err;
  }
  W.Live = true;
  *Out = encodeHandle<MPI_Win>(kHandleWin, I);
  return MPI_SUCCESS;
}

namespace {

int (*RealTake)();

// Completes this rank's RMA calls on W at their targets: its own fence if a
// fence epoch is open (every member does it at the same site), flushes for
// the locks it holds.
void completeRma(Window &W) {
  if (W.FenceOpen)
    PMPI_Win_fence(0, W.Real);
  if (W.LockAll)
    PMPI_Win_flush_all(W.Real);
  else
    for (int T = 0; W.Held && T < W.Size; ++T)
      if (W.Locks[T])
        PMPI_Win_flush(T, W.Real);
}

// The members of W, all at this site. MPI's barrier lets MPI progress the
// others' RMA into this rank's memory while it waits; control messages are
// not received (the image is not written yet).
void groupBarrier(Window &W) { PMPI_Barrier(W.RealComm); }

// Before the image: completes RMA (blocking) or notes open fence epochs
// (non-blocking); after a restart: re-opens the program's epochs.
int windowedTake() {
  if (!NonBlocking) {
    // The sites are collective: all ranks decide together, or a rank that
    // skipped its fences would leave the others waiting in theirs.
    uint64_t Open = 0, AnyOpen = 0;
    for (uint32_t I = 0; I < L->NWins; ++I)
      Open += L->Wins[I].Live && (L->Wins[I].Started || L->Wins[I].Posted);
    PMPI_Allreduce(&Open, &AnyOpen, 1, MPI_UINT64_T, MPI_MAX, Private);
    if (AnyOpen) {
      if (Open)
        logMessage("checkpoint not written on rank %d: a post/start epoch "
                   "is open on %llu window(s) (MPI_Win_post/start without "
                   "wait/complete), which a restart could not re-open",
                   L->Rank, (unsigned long long)Open);
      return CCC_NONE;
    }
    for (uint32_t I = 0; I < L->NWins; ++I)
      if (L->Wins[I].Live)
        completeRma(L->Wins[I]);
    // Every RMA call is complete at its target, and every store into a
    // shared window made: no image before that.
    PMPI_Barrier(Private);
    for (uint32_t I = 0; I < L->NWins; ++I)
      if (L->Wins[I].Live && mpiPlaced(L->Wins[I]))
        saveSharedWindow(L->Wins[I]);
  } else {
    for (uint32_t I = 0; I < L->NWins; ++I) {
      Window &W = L->Wins[I];
      if (W.Live && !W.Grouped && W.FenceOpen && !W.Verdict) {
        W.Verdict = true;
        nbCollPending(1);
      }
    }
    // The members of each grouped window agreed to checkpoint at this
    // site: as under the blocking protocol, every RMA call made before it
    // completes at its target and every store is made before any image.
    for (uint32_t I = 0; I < L->NWins; ++I)
      if (L->Wins[I].Live && L->Wins[I].TakeNow) {
        completeRma(L->Wins[I]);
        groupBarrier(L->Wins[I]);
      }
    // Fence-mode windows: between fences no RMA reaches them (else the line
    // check says so).
    for (uint32_t I = 0; I < L->NWins; ++I)
      if (L->Wins[I].Live && mpiPlaced(L->Wins[I]))
        saveSharedWindow(L->Wins[I]);
  }
  int R = CCC_NONE;
  if (NonBlocking && GroupSplit)
    logMessage("checkpoint not written on rank %d: the members of its "
               "windows that checkpoint together (passive target, "
               "post/start, shared memory) did not all take it at this "
               "site (windows of different members)",
               L->Rank);
  else
    R = RealTake();
  if (R != CCC_RESTARTED) {
    // No member's RMA or stores reach a part before its owner's image is
    // written.
    for (uint32_t I = 0; NonBlocking && I < L->NWins; ++I)
      if (L->Wins[I].Live && L->Wins[I].TakeNow) {
        groupBarrier(L->Wins[I]);
        L->Wins[I].TakeNow = false;
      }
    GroupSplit = false;
    return R;
  }
  // Restarted: the windows exist again (rebuildWindows); open what the
  // program had open at the site, so its next call is legal.
  for (uint32_t I = 0; I < L->NWins; ++I) {
    Window &W = L->Wins[I];
    W.Verdict = W.TakeNow = false;
    if (!W.Live)
      continue;
    if (W.FenceOpen)
      PMPI_Win_fence(0, W.Real);
    if (W.LockAll)
      PMPI_Win_lock_all(W.LockAllAssert, W.Real);
    for (int T = 0; W.Held && T < W.Size; ++T)
      if (W.Locks[T])
        PMPI_Win_lock(W.Locks[T], T, 0, W.Real);
  }
  Raise = Agreed = GroupSplit = false;
  return R;
}

} // namespace

Window *window(MPI_Win H) {
  uint32_t I;
  if (!L || !decodeHandle(H, kHandleWin, &I) || I >= L->NWins)
    return nullptr;
  return &L->Wins[I];
}

// Under the non-blocking protocol passive target and post/start epochs have
// no synchronisation of all members to order them with the checkpoints:
// the members of such a window checkpoint together (windowsAgree). A
// window its members synchronised by fences alone up to its first checked
// fence follows the fence rule instead, which cannot order these.
void passiveCall(Window &W, const char *Fn) {
  if (!NonBlocking)
    return;
  W.Passive = true;
  if (!W.Grouped)
    noteRefused(Fn, "one-sided passive target or post/start epochs under "
                    "CCC_PROTOCOL=nonblocking on a window synchronised by "
                    "fences alone before: nothing orders their RMA with the "
                    "target's checkpoint; use them from the window's first "
                    "fence on, or CCC_PROTOCOL=blocking");
}

// Non-blocking protocol, at every site of a rank, in every mode: the
// members of each grouped window decide together whether they checkpoint
// at this site, by an Allreduce on the window's communicator (as the
// blocking protocol has one per site on the world's). They take it together
// if some member wants one (its own wish, a START heard, a fence's) and
// every member is in the same epoch, outside a checkpoint period and
// outside a post/start epoch (which a restart could not re-open);
// otherwise the wish waits for a later site. A rank behind the others of a
// window (they took one at a site where its other windows' members did
// not) catches up. Windows are visited in creation order, and a decision
// to take carries into the later windows' rounds.
int windowsAgree(bool Want, bool Run) {
  bool Any = false, Take = false, Wanted = false, Own = Want || Agreed;
  Want = Own;
  for (uint32_t I = 0; I < L->NWins; ++I) {
    Window &W = L->Wins[I];
    if (!W.Live || !W.Grouped)
      continue;
    Any = true;
    uint64_t In[4] = {~(uint64_t)L->Epoch, L->Epoch, Want || Take,
                      !Run || W.Started || W.Posted},
             Out[4];
    PMPI_Allreduce(In, Out, 4, MPI_UINT64_T, MPI_MAX, W.RealComm);
    uint32_t Min = (uint32_t)~Out[0], Max = (uint32_t)Out[1];
    W.TakeNow = Min == Max && Out[2] && !Out[3];
    Take |= W.TakeNow || (Run && Max > L->Epoch);
    Wanted |= Out[2] != 0;
  }
  if (!Any)
    return kGroupNone;
  if (!Take)
    return Wanted ? kGroupHold : kGroupNone;
  GroupSplit = false;
  for (uint32_t I = 0; I < L->NWins; ++I)
    if (L->Wins[I].Live && L->Wins[I].Grouped && !L->Wins[I].TakeNow)
      GroupSplit = true;
  // Another member began it: no START of this rank's own (one that wants
  // it sends START, or has heard it).
  if (!Own)
    L->Initiated = true;
  Agreed = false;
  return kGroupTake;
}

MPI_Win realWin(MPI_Win H) {
  Window *W = window(H);
  return W ? W->Real : H;
}

MPI_Win programWin(MPI_Win Real) {
  for (uint32_t I = 0; L && I < L->NWins; ++I)
    if (L->Wins[I].Live && L->Wins[I].Real == Real)
      return encodeHandle<MPI_Win>(kHandleWin, I);
  return MPI_WIN_NULL;
}

void programWinAttr(MPI_Win H, int Key, void *Val) {
  Window *W = window(H);
  if (!W)
    return;
  void **P = static_cast<void **>(Val);
  // MPI's address of MPI-placed memory is not the program's.
  if (Key == MPI_WIN_BASE && mpiPlaced(*W) && *P)
    *P = static_cast<char *>(*P) + W->Shift;
  // A window made by MPI_Win_create over ccc's heap in its place.
  static int Allocate = MPI_WIN_FLAVOR_ALLOCATE;
  if (Key == MPI_WIN_CREATE_FLAVOR && W->Flavor == kAllocated)
    *P = &Allocate;
}

void rebuildWindows() {
  for (uint32_t I = 0; I < L->NWins; ++I) {
    Window &W = L->Wins[I];
    W.Real = MPI_WIN_NULL;
    W.RealComm = MPI_COMM_NULL;
    if (!W.Live)
      continue;
    W.RealComm = commOfMembers(W.Size, W.WorldRanks);
    if (makeReal(W, MPI_INFO_NULL) != MPI_SUCCESS)
      fatal("could not re-create window %u", I);
    replayWindowAttributes(handleBits(encodeHandle<MPI_Win>(kHandleWin, I)),
                           false);
  }
  replayWindowAttributes(0, true);
}

int (*windowTake(int (*Take)()))() {
  if (!Take)
    return nullptr;
  RealTake = Take;
  return windowedTake;
}

bool windowsWant(bool Want) {
  if (Agreed) {
    Agreed = false;
    return true;
  }
  if (!Want && !Raise)
    return false;
  for (uint32_t I = 0; I < L->NWins; ++I)
    if (L->Wins[I].Live && L->Wins[I].UsedFence && !L->Wins[I].Grouped) {
      Raise = true; // taken at the site after the next fence
      return false;
    }
  Raise = false; // its windows were freed before a fence raised it
  return true;
}

} // namespace mpi
} // namespace ccc

using namespace ccc::mpi;

namespace {
// The window behind a program handle, for the calls below (Bypass: none).
Window *win(MPI_Win H) { return Bypass ? nullptr : window(H); }
} // namespace

extern "C" {

//===-- Creation and destruction ------------------------------------------===//

int MPI_Win_create(void *Base, MPI_Aint Size, int DispUnit, MPI_Info Info,
                   MPI_Comm C, MPI_Win *Out) {
  if (Bypass || !L)
    return PMPI_Win_create(Base, Size, DispUnit, Info, realComm(C), Out);
  return createWindow(kCreated, Base, Size, DispUnit, Info, C, Out);
}

int MPI_Win_allocate(MPI_Aint Size, int DispUnit, MPI_Info Info, MPI_Comm C,
                     void *BasePtr, MPI_Win *Out) {
  if (Bypass || !L)
    return PMPI_Win_allocate(Size, DispUnit, Info, realComm(C), BasePtr, Out);
  // MPI's own memory, aliased at an address a restart gives again.
  int Err = createWindow(kAllocated, nullptr, Size, DispUnit, Info, C, Out);
  if (Err != MPI_SUCCESS)
    return Err;
  *static_cast<void **>(BasePtr) = window(*Out)->Base;
  return MPI_SUCCESS;
}

int MPI_Win_create_dynamic(MPI_Info Info, MPI_Comm C, MPI_Win *Out) {
  if (Bypass || !L)
    return PMPI_Win_create_dynamic(Info, realComm(C), Out);
  return createWindow(kDynamic, nullptr, 0, 1, Info, C, Out);
}

int MPI_Win_attach(MPI_Win H, void *Base, MPI_Aint Size) {
  Window *W = win(H);
  if (!W)
    return PMPI_Win_attach(H, Base, Size);
  int Err = PMPI_Win_attach(W->Real, Base, Size);
  if (Err != MPI_SUCCESS)
    return Err;
  if (W->NRegions == W->CapRegions) {
    uint32_t Cap = W->CapRegions ? 2 * W->CapRegions : 4;
    auto *N = static_cast<WinRegion *>(saved(Cap * sizeof(WinRegion)));
    if (W->NRegions)
      memcpy(N, W->Regions, W->NRegions * sizeof(WinRegion));
    __ccc_free(W->Regions);
    W->Regions = N;
    W->CapRegions = Cap;
  }
  W->Regions[W->NRegions++] = {Base, Size};
  return MPI_SUCCESS;
}

int MPI_Win_detach(MPI_Win H, const void *Base) {
  Window *W = win(H);
  if (!W)
    return PMPI_Win_detach(H, Base);
  int Err = PMPI_Win_detach(W->Real, Base);
  if (Err != MPI_SUCCESS)
    return Err;
  for (uint32_t I = 0; I < W->NRegions; ++I)
    if (W->Regions[I].Base == Base) {
      W->Regions[I] = W->Regions[--W->NRegions];
      break;
    }
  return MPI_SUCCESS;
}

int MPI_Win_free(MPI_Win *H) {
  Window *W = win(*H);
  if (!W)
    return PMPI_Win_free(H);
  if (NonBlocking)
    lineCheck(*W, "a window was freed");
  int Err = PMPI_Win_free(&W->Real);
  if (Err != MPI_SUCCESS)
    return Err;
  PMPI_Comm_free(&W->RealComm);
  if (W->Flavor == kAllocated && W->Heap)
    __ccc_free(W->Base);
  if (mpiPlaced(*W))
    freeSharedWindow(*W);
  W->Live = false;
  *H = MPI_WIN_NULL;
  return MPI_SUCCESS;
}

#ifndef MPI_Win_c2f
MPI_Fint MPI_Win_c2f(MPI_Win H) {
  uint32_t I;
  if (decodeHandle(H, kHandleWin, &I))
    return encodeHandle<MPI_Fint>(kHandleWin, I);
  return PMPI_Win_c2f(H);
}
#endif

#ifndef MPI_Win_f2c
MPI_Win MPI_Win_f2c(MPI_Fint F) {
  uint32_t I;
  if (decodeHandle(F, kHandleWin, &I))
    return encodeHandle<MPI_Win>(kHandleWin, I);
  return PMPI_Win_f2c(F);
}
#endif

int MPI_Win_set_errhandler(MPI_Win H, MPI_Errhandler E) {
  Window *W = win(H);
  if (!W)
    return PMPI_Win_set_errhandler(H, realErrhandler(E));
  int R = PMPI_Win_set_errhandler(W->Real, realErrhandler(E));
  if (R == MPI_SUCCESS)
    W->Errh = handleBits(E);
  return R;
}

int MPI_Win_call_errhandler(MPI_Win H, int Code) {
  return PMPI_Win_call_errhandler(realWin(H), Code);
}

// The members, as a group of the program's made from MPI_COMM_WORLD's (the
// communicator the window was made on may be gone when a restart makes
// the group again).
int MPI_Win_get_group(MPI_Win H, MPI_Group *Out) {
  Window *W = win(H);
  if (!W)
    return PMPI_Win_get_group(H, Out);
  MPI_Group World;
  int R = MPI_Comm_group(MPI_COMM_WORLD, &World);
  if (R != MPI_SUCCESS)
    return R;
  R = MPI_Group_incl(World, W->Size, W->WorldRanks, Out);
  MPI_Group_free(&World);
  return R;
}

int MPI_Win_get_info(MPI_Win H, MPI_Info *Out) {
  Window *W = win(H);
  if (!W)
    return PMPI_Win_get_info(H, Out);
  MPI_Info Real;
  int R = PMPI_Win_get_info(W->Real, &Real);
  if (R == MPI_SUCCESS)
    adoptInfo(Real, Out);
  return R;
}

// Hints only (MPI may ignore them): given to MPI, not set again after a
// restart, as the info given at creation.
int MPI_Win_set_info(MPI_Win H, MPI_Info Info) {
  return PMPI_Win_set_info(realWin(H), realInfo(Info));
}

int MPI_Win_set_name(MPI_Win H, const char *Name) {
  Window *W = win(H);
  if (!W)
    return PMPI_Win_set_name(H, Name);
  snprintf(W->Name, sizeof(W->Name), "%s", Name);
  return PMPI_Win_set_name(W->Real, Name);
}
}
