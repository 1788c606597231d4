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
};

// The program's window H, or null (a handle the layer does not know).
Window *window(MPI_Win H);

// A window of the program's over C, its handle in *Out (for kShared, Base is
// MPI's and set in the window).
int createWindow(uint8_t Flavor, void *Base, MPI_Aint Bytes, int DispUnit,
                 MPI_Info Info, MPI_Comm C, MPI_Win *Out);

// Non-blocking protocol: the line check at a collective synchronisation of
// W (fence, create, free).
void lineCheck(Window &W, const char *What);

// Notes a call that the non-blocking protocol cannot order with the
// checkpoints: the next checkpoint stops the job (blocking: nothing).
void nonBlockingOnly(const char *Fn);

// WindowShared.cpp: the flavor kShared's part of a checkpoint (before the
// image: this rank's part to its shadow) and of a restart (the segment made
// again, aliased at the first run's addresses, this rank's part restored).
void saveSharedWindow(Window &W);
int makeSharedWindow(Window &W, MPI_Info Info);
void freeSharedWindow(Window &W);

} // namespace mpi
} // namespace ccc

#endif
