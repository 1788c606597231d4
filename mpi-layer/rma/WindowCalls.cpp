//===- WindowCalls.cpp - RMA synchronisation and communication calls ------===//
//
// The program's synchronisation calls record the epochs they open and close
// (Windows.cpp completes and re-opens them around checkpoints); its RMA
// calls translate handles and count themselves for the non-blocking
// protocol's check at fences.
//
//===----------------------------------------------------------------------===//
#include "WindowsInternal.h"
#include "mpi-layer/Layer.h"

using namespace ccc::mpi;

namespace {
// The window behind a program handle, for the calls below (Bypass: none).
Window *win(MPI_Win H) { return Bypass ? nullptr : window(H); }
// An RMA call on W: counted for the non-blocking protocol's check.
MPI_Win rma(MPI_Win H) {
  if (Window *W = win(H)) {
    W->Ops++;
    return W->Real;
  }
  return H;
}
} // namespace

extern "C" {

//===-- Synchronisation ---------------------------------------------------===//

int MPI_Win_fence(int Assert, MPI_Win H) {
  Window *W = win(H);
  if (!W)
    return PMPI_Win_fence(Assert, H);
  // A fence asserting MPI_MODE_NOPRECEDE closes no RMA call (every member
  // asserts it): the intervals on both sides count as one for the check,
  // which halves its cost for the NOPRECEDE/NOSUCCEED pattern.
  if (NonBlocking && !(Assert & MPI_MODE_NOPRECEDE))
    lineCheck(*W, "a fence was called", true);
  int Err = PMPI_Win_fence(Assert, W->Real);
  W->UsedFence = true;
  W->FenceOpen = !(Assert & MPI_MODE_NOSUCCEED);
  return Err;
}

int MPI_Win_lock(int Type, int Rank, int Assert, MPI_Win H) {
  Window *W = win(H);
  if (!W)
    return PMPI_Win_lock(Type, Rank, Assert, H);
  passiveCall(*W, "MPI_Win_lock");
  int Err = PMPI_Win_lock(Type, Rank, Assert, W->Real);
  if (Err == MPI_SUCCESS && Rank >= 0 && Rank < W->Size && !W->Locks[Rank]) {
    W->Locks[Rank] = Type;
    W->Held++;
  }
  return Err;
}

int MPI_Win_unlock(int Rank, MPI_Win H) {
  Window *W = win(H);
  if (!W)
    return PMPI_Win_unlock(Rank, H);
  int Err = PMPI_Win_unlock(Rank, W->Real);
  if (Err == MPI_SUCCESS && Rank >= 0 && Rank < W->Size && W->Locks[Rank]) {
    W->Locks[Rank] = 0;
    W->Held--;
  }
  return Err;
}

int MPI_Win_lock_all(int Assert, MPI_Win H) {
  Window *W = win(H);
  if (!W)
    return PMPI_Win_lock_all(Assert, H);
  passiveCall(*W, "MPI_Win_lock_all");
  int Err = PMPI_Win_lock_all(Assert, W->Real);
  if (Err == MPI_SUCCESS) {
    W->LockAll = true;
    W->LockAllAssert = Assert;
  }
  return Err;
}

int MPI_Win_unlock_all(MPI_Win H) {
  Window *W = win(H);
  if (!W)
    return PMPI_Win_unlock_all(H);
  int Err = PMPI_Win_unlock_all(W->Real);
  if (Err == MPI_SUCCESS)
    W->LockAll = false;
  return Err;
}

int MPI_Win_post(MPI_Group G, int Assert, MPI_Win H) {
  Window *W = win(H);
  if (!W)
    return PMPI_Win_post(realGroup(G), Assert, H);
  passiveCall(*W, "MPI_Win_post");
  int Err = PMPI_Win_post(realGroup(G), Assert, W->Real);
  W->Posted = Err == MPI_SUCCESS;
  return Err;
}

int MPI_Win_start(MPI_Group G, int Assert, MPI_Win H) {
  Window *W = win(H);
  if (!W)
    return PMPI_Win_start(realGroup(G), Assert, H);
  passiveCall(*W, "MPI_Win_start");
  int Err = PMPI_Win_start(realGroup(G), Assert, W->Real);
  W->Started = Err == MPI_SUCCESS;
  return Err;
}

int MPI_Win_complete(MPI_Win H) {
  Window *W = win(H);
  if (!W)
    return PMPI_Win_complete(H);
  int Err = PMPI_Win_complete(W->Real);
  W->Started = false;
  return Err;
}

int MPI_Win_wait(MPI_Win H) {
  Window *W = win(H);
  if (!W)
    return PMPI_Win_wait(H);
  int Err = PMPI_Win_wait(W->Real);
  W->Posted = false;
  return Err;
}

int MPI_Win_test(MPI_Win H, int *Flag) {
  Window *W = win(H);
  if (!W)
    return PMPI_Win_test(H, Flag);
  int Err = PMPI_Win_test(W->Real, Flag);
  if (Err == MPI_SUCCESS && *Flag)
    W->Posted = false;
  return Err;
}

int MPI_Win_flush(int Rank, MPI_Win H) {
  return PMPI_Win_flush(Rank, realWin(H));
}
int MPI_Win_flush_all(MPI_Win H) { return PMPI_Win_flush_all(realWin(H)); }
int MPI_Win_flush_local(int Rank, MPI_Win H) {
  return PMPI_Win_flush_local(Rank, realWin(H));
}
int MPI_Win_flush_local_all(MPI_Win H) {
  return PMPI_Win_flush_local_all(realWin(H));
}
int MPI_Win_sync(MPI_Win H) { return PMPI_Win_sync(realWin(H)); }

//===-- Communication -----------------------------------------------------===//

int MPI_Put(const void *O, int OC, MPI_Datatype OT, int Rank, MPI_Aint Disp,
            int TC, MPI_Datatype TT, MPI_Win H) {
  return PMPI_Put(O, OC, realType(OT), Rank, Disp, TC, realType(TT), rma(H));
}

int MPI_Get(void *O, int OC, MPI_Datatype OT, int Rank, MPI_Aint Disp, int TC,
            MPI_Datatype TT, MPI_Win H) {
  return PMPI_Get(O, OC, realType(OT), Rank, Disp, TC, realType(TT), rma(H));
}

int MPI_Accumulate(const void *O, int OC, MPI_Datatype OT, int Rank,
                   MPI_Aint Disp, int TC, MPI_Datatype TT, MPI_Op Op,
                   MPI_Win H) {
  return PMPI_Accumulate(O, OC, realType(OT), Rank, Disp, TC, realType(TT),
                         realOp(Op), rma(H));
}

int MPI_Get_accumulate(const void *O, int OC, MPI_Datatype OT, void *Res,
                       int RC, MPI_Datatype RT, int Rank, MPI_Aint Disp, int TC,
                       MPI_Datatype TT, MPI_Op Op, MPI_Win H) {
  return PMPI_Get_accumulate(O, OC, realType(OT), Res, RC, realType(RT), Rank,
                             Disp, TC, realType(TT), realOp(Op), rma(H));
}

int MPI_Fetch_and_op(const void *O, void *Res, MPI_Datatype T, int Rank,
                     MPI_Aint Disp, MPI_Op Op, MPI_Win H) {
  return PMPI_Fetch_and_op(O, Res, realType(T), Rank, Disp, realOp(Op), rma(H));
}

int MPI_Compare_and_swap(const void *O, const void *Cmp, void *Res,
                         MPI_Datatype T, int Rank, MPI_Aint Disp, MPI_Win H) {
  return PMPI_Compare_and_swap(O, Cmp, Res, realType(T), Rank, Disp, rma(H));
}

// Request-based forms: a table slot over MPI's request, complete as far as
// the layer is concerned (GComplete): the checkpoint waits for it after the
// flushes, as for a completed generalized request, so no image holds an
// RMA request open.
#define CCC_RMA_REQUEST(CALL)                                                  \
  if (Bypass)                                                                  \
    return CALL(Out);                                                          \
  Request *R;                                                                  \
  MPI_Request Slot = newRequest(ReqKind::Generalized, &R);                     \
  int Err = CALL(&R->Real);                                                    \
  if (Err != MPI_SUCCESS) {                                                    \
    releaseRequest(Slot);                                                      \
    return Err;                                                                \
  }                                                                            \
  R->GComplete = true;                                                         \
  *Out = Slot;                                                                 \
  return MPI_SUCCESS;

int MPI_Rput(const void *O, int OC, MPI_Datatype OT, int Rank, MPI_Aint Disp,
             int TC, MPI_Datatype TT, MPI_Win H, MPI_Request *Out) {
  auto Call = [&](MPI_Request *Q) {
    return PMPI_Rput(O, OC, realType(OT), Rank, Disp, TC, realType(TT), rma(H),
                     Q);
  };
  CCC_RMA_REQUEST(Call)
}

int MPI_Rget(void *O, int OC, MPI_Datatype OT, int Rank, MPI_Aint Disp, int TC,
             MPI_Datatype TT, MPI_Win H, MPI_Request *Out) {
  auto Call = [&](MPI_Request *Q) {
    return PMPI_Rget(O, OC, realType(OT), Rank, Disp, TC, realType(TT), rma(H),
                     Q);
  };
  CCC_RMA_REQUEST(Call)
}

int MPI_Raccumulate(const void *O, int OC, MPI_Datatype OT, int Rank,
                    MPI_Aint Disp, int TC, MPI_Datatype TT, MPI_Op Op,
                    MPI_Win H, MPI_Request *Out) {
  auto Call = [&](MPI_Request *Q) {
    return PMPI_Raccumulate(O, OC, realType(OT), Rank, Disp, TC, realType(TT),
                            realOp(Op), rma(H), Q);
  };
  CCC_RMA_REQUEST(Call)
}

int MPI_Rget_accumulate(const void *O, int OC, MPI_Datatype OT, void *Res,
                        int RC, MPI_Datatype RT, int Rank, MPI_Aint Disp,
                        int TC, MPI_Datatype TT, MPI_Op Op, MPI_Win H,
                        MPI_Request *Out) {
  auto Call = [&](MPI_Request *Q) {
    return PMPI_Rget_accumulate(O, OC, realType(OT), Res, RC, realType(RT),
                                Rank, Disp, TC, realType(TT), realOp(Op),
                                rma(H), Q);
  };
  CCC_RMA_REQUEST(Call)
}
#undef CCC_RMA_REQUEST
}
