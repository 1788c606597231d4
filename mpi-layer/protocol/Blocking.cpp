//===- Blocking.cpp - CCC_PROTOCOL=blocking: all ranks stop, drain, save --===//
//
// The simple coordinated protocol: every ccc_checkpoint() is a collective
// call (all ranks must execute the same sequence of sites). At each site
// the ranks agree whether any of them wants a checkpoint (timer, signal or
// a forced site); if so, each receives every message still in flight to it
// (the per-peer send and receive counts say how many), saves, and rank 0
// commits the version once every rank's image is durable. Drained messages
// are part of the saved state and are delivered to the program's next
// matching receives, in the order they were sent.
//
//===----------------------------------------------------------------------===//
#include "mpi-layer/Layer.h"

#include "rt/common/Log.h"
#include "rt/process/Parallel.h"
#include "rt/process/Supervision.h"
#include "rt/store/Store.h"

#include "ccc.h"
#include "ccc/abi.h"

#include <cstring>

namespace ccc {
namespace mpi {

void forEachActiveRequest(void (*Fn)(Request &));
bool testRequest(Request &R);
void waitRequest(Request &R);

namespace {

uint64_t *Expected; // [Size], scratch during a drain

bool allReceived() {
  for (int P = 0; P < L->Size; ++P)
    if (L->Recvd[P] < Expected[P])
      return false;
  return true;
}

// Receives one message that no posted request of the program matches, from
// any communicator the program can use. True if one was received.
bool drainOne(MPI_Comm C) {
  int Flag = 0;
  MPI_Status S;
  PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, realComm(C), &Flag, &S);
  if (!Flag)
    return false;
  MPI_Count Bytes;
  PMPI_Get_elements_x(&S, MPI_BYTE, &Bytes);
  auto *M = static_cast<Message *>(saved(sizeof(Message) + Bytes));
  M->Comm = C;
  M->Source = S.MPI_SOURCE;
  M->Tag = S.MPI_TAG;
  M->Bytes = Bytes;
  PMPI_Recv(M->Data, (int)Bytes, MPI_BYTE, S.MPI_SOURCE, S.MPI_TAG, realComm(C),
            MPI_STATUS_IGNORE);
  (L->PendingTail ? L->PendingTail->Next : L->Pending) = M;
  L->PendingTail = M;
  countReceived(C, S.MPI_SOURCE);
  CCC_DEBUG("drained a message of %lld bytes from %d (tag %d)",
            (long long)Bytes, S.MPI_SOURCE, S.MPI_TAG);
  return true;
}

} // namespace

void drainForCheckpoint() {
  Expected = static_cast<uint64_t *>(scratch(L->Size * sizeof(uint64_t)));
  // Expected[P]: how many messages P has sent to this rank, ever.
  PMPI_Alltoall(L->Sent, 1, MPI_UINT64_T, Expected, 1, MPI_UINT64_T, Private);
  while (!allReceived()) {
    forEachActiveRequest([](Request &R) {
      if (R.Kind == ReqKind::Recv)
        testRequest(R);
    });
    drainOne(MPI_COMM_WORLD);
    for (uint32_t I = 0; I < L->NObjs; ++I)
      if (L->Objs[I].Kind == ObjKind::Comm && L->Objs[I].Live &&
          L->Objs[I].Real.Comm != MPI_COMM_NULL) // MPI_Comm_idup: not yet
        drainOne(objectHandle<MPI_Comm>(I));
  }
  scratchFree(Expected);
  // Every message is now with its receiver, so every send completes; the
  // image must not hold a send request a restart could not re-create. Nor a
  // non-blocking collective: the sites are collective, so every member
  // started the collectives open at this one and they complete.
  forEachActiveRequest([](Request &R) {
    if (R.Kind == ReqKind::Send || R.Kind == ReqKind::Coll)
      waitRequest(R);
  });
  forEachActiveRequest([](Request &R) {
    if (R.Orphan && testRequest(R))
      releaseSlot(R);
  });
}

bool commitVersion(uint64_t V, bool AllOk, const char *What) {
  if (!AllOk) {
    logMessage("checkpoint %llu not committed: a rank could not write %s; "
               "the previous committed checkpoint is kept",
               (unsigned long long)V, What);
    return false;
  }
  char Err[kPathMax + 128];
  injectBeforeCommit();
  // The record names the protocol: a restart continues under it.
  if (!writeCommit(storeDir(), storeName(), V, L->Size, Err, sizeof(Err),
                   NonBlocking ? "nonblocking" : "blocking",
                   L->ThreadRequested)) {
    logMessage("checkpoint %llu not committed: %s; the previous committed "
               "checkpoint is kept",
               (unsigned long long)V, Err);
    return false;
  }
  noteCommitted(V);
  // Rank 0 deletes only the commit records that left CCC_KEEP; each rank
  // deletes its own files (RankPruning.h), so no step here grows with the
  // job.
  pruneCommitRecords(V);
  CCC_INFO("checkpoint %llu committed (%d ranks)", (unsigned long long)V,
           L->Size);
  return true;
}

int siteBlocking(int Kind, int (*Take)()) {
  __ccc_pending = 1; // every site is collective under this protocol
  // Bit 0: a checkpoint is wanted; bit 1: a rank was sent SIGTERM, the job
  // stops after it.
  uint64_t Want = (Kind == CCC_SITE_FORCE || takeRequest()) |
                  (uint64_t)stopRequested() << 1,
           Any;
  PMPI_Allreduce(&Want, &Any, 1, MPI_UINT64_T, MPI_BOR, Private);
  if (!Any)
    return CCC_NONE;
  refuseIfUnsupported();
  drainForCheckpoint();
  uint64_t V = nextVersion();
  int R = Take();
  __ccc_pending = 1; // the runtime clears it after each checkpoint
  if (R == CCC_RESTARTED)
    return R;
  uint64_t Ok = R == CCC_TAKEN, AllOk;
  PMPI_Allreduce(&Ok, &AllOk, 1, MPI_UINT64_T, MPI_MIN, Private);
  uint64_t Committed = 0;
  if (L->Rank == 0)
    Committed = commitVersion(V, AllOk, "its image");
  PMPI_Bcast(&Committed, 1, MPI_UINT64_T, 0, Private);
  // Every rank knows of the commit here, so it prunes now rather than at
  // its next checkpoint.
  if (Committed)
    pruneOwnFiles();
  if (Committed && (Any & 2))
    exitStopped(V);
  if (Any & 2 && L->Rank == 0)
    logMessage("SIGTERM: checkpoint %llu was not committed, the job goes on",
               (unsigned long long)V);
  return Committed ? CCC_TAKEN : CCC_NONE;
}

} // namespace mpi
} // namespace ccc
