//===- WindowsInternal.h - window state of Window*.cpp --------*- C++ -*-===//
//
// What the layer keeps of a window (Windows.cpp: creation, checkpoints,
// restart; WindowCalls.cpp: synchronisation and RMA calls;
// WindowShared.cpp: MPI_Win_allocate_shared).
//
//===----------------------------------------------------------------------===//
#ifndef CCC_MPI_WINDOWSINTERNAL_H
#define CCC_MPI_WINDOWSINTERNAL_H

#include <mpi.h>

#include <cstdint>

namespace ccc {
namespace mpi {

enum Flavor : uint8_t { kCreated, kAllocated, kDynamic, kShared };

struct WinRegion {
  void *Base;
  MPI_Aint Bytes;
};

struct Window {
  bool Live;
  uint8_t Flavor;
  MPI_Win Real;      // this process's MPI window (re-created)
  MPI_Comm RealComm; // the layer's communicator over the members
  int Size;
  int *WorldRanks; // [Size] in window rank order
  void *Base;
  MPI_Aint Bytes;
  int DispUnit;
  WinRegion *Regions; // MPI_Win_attach'ed, not yet detached
  uint32_t NRegions, CapRegions;
  // Epochs open at this rank.
  bool UsedFence; // the program synchronises it with fences
  bool FenceOpen; // the last fence did not say MPI_MODE_NOSUCCEED
  bool LockAll;   // MPI_Win_lock_all held
  int LockAllAssert;
  int *Locks; // [Size]: 0, or the lock type of the lock held on that rank
  int Held;   // locks held
  bool Started, Posted; // post/start/complete/wait epochs
  // Non-blocking protocol: RMA calls since the last fence, and whether
  // this rank's checkpoint fell in the fence epoch open now (its verdict
  // comes at the next fence; the period waits for it).
  uint64_t Ops;
  bool Verdict;
  // Non-blocking protocol: the members checkpoint together, at the same
  // site (passive target, post/start epochs, shared memory; every window
  // until its first checked fence shows no member used the first two);
  // this rank used passive target or post/start on it; the members agreed
  // at this site to checkpoint together.
  bool Grouped, Passive, TakeNow;
  char Name[MPI_MAX_OBJECT_NAME];
  uint64_t Errh; // program handle of the error handler set, 0 if none
  // kShared (WindowShared.cpp): MPI maps the node's segment; the program's
  // addresses are those of the first run. After a restart the segment MPI
  // maps again is aliased there (program address = MPI's + Shift).
  void *Shadow;           // this rank's part, copied at each checkpoint
  uintptr_t SegLo, SegHi; // the segment in the first run
  MPI_Aint *Offsets;      // [Size] each rank's part from SegLo (-1: empty)
  intptr_t Shift;
  bool Solo; // MPI_Win_allocate_shared on one process: made as kAllocated
  // kAllocated: MPI placed the memory (an own shared mapping, aliased in the
  // arena as kShared's segment is: SegLo/SegHi, Shift, Shadow), unless some
  // member's was private memory, which cannot be mapped twice: then the
  // window is made over ccc's saved heap by MPI_Win_create (Heap).
  bool Heap;
};

// The program's window H, or null (a handle the layer does not know).
Window *window(MPI_Win H);

// A window of the program's over C, its handle in *Out (for kShared, Base is
// MPI's and set in the window).
int createWindow(uint8_t Flavor, void *Base, MPI_Aint Bytes, int DispUnit,
                 MPI_Info Info, MPI_Comm C, MPI_Win *Out);

// Non-blocking protocol: the line check at a collective synchronisation of
// W (fence, create, free).
void lineCheck(Window &W, const char *What, bool AtFence = false);

// Passive target or post/start call Fn on W. Non-blocking protocol: its
// members checkpoint together if W is grouped; on a fence-mode window
// nothing orders its RMA with the checkpoints: the next checkpoint stops
// the job (blocking: nothing).
void passiveCall(Window &W, const char *Fn);

// WindowShared.cpp: the flavor kShared's part of a checkpoint (before the
// image: this rank's part to its shadow) and of a restart (the segment made
// again, aliased at the first run's addresses, this rank's part restored).
void saveSharedWindow(Window &W);
int makeSharedWindow(Window &W, MPI_Info Info);
void freeSharedWindow(Window &W);

// WindowShared.cpp: MPI_Win_allocate's window made by MPI (first run, or
// again after a restart with this rank's part restored), its memory
// aliased at the first run's address; or over ccc's heap (Heap).
int makeAllocatedWindow(Window &W, MPI_Info Info);

// Whether W's memory is MPI's (kept by a shadow copy at each checkpoint).
inline bool mpiPlaced(const Window &W) {
  return W.Flavor == kShared || (W.Flavor == kAllocated && !W.Heap);
}

} // namespace mpi
} // namespace ccc

#endif
