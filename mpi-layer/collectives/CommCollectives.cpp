//===- CommCollectives.cpp - MPI_Comm_idup, MPI_Comm_disconnect -----------===//
//
// The communicator calls that are collectives of their parent (or of the
// communicator itself) beyond making or freeing an object, numbered with
// its collectives under the non-blocking protocol.
//
// MPI_Comm_idup (and MPICH's MPI_Comm_idup_with_info): MPI's own
// non-blocking duplication, under a request of the layer's table
// (ReqKind::Coll with Request::NewComm), so that the program's progress and
// overlap are what they are without ccc. The new communicator's object is
// entered in the table when the call starts, with the parent's members and
// no MPI communicator yet: the program gets its handle at once, as MPI
// hands it out, and may use it once the request completes, when the object
// receives the real handle MPI wrote into the request's own block.
//
// Across a checkpoint:
//   - Blocking protocol: the sites are collective, so every member started
//     the duplication open at one; the drain completes it before the image.
//   - Non-blocking protocol: the call is numbered with the parent's
//     collectives. If some members started it before their checkpoint and
//     others after, a restart could not make it again (the former would
//     replay it while restoring, the latter re-execute the call later), so
//     that line is not committed (ProtocolCollectives.cpp). On a committed
//     line every member started it before its checkpoint: the restart makes
//     the communicator again with the other objects, in creation order
//     (MPI_Comm_dup, blocking: every member replays it), and the request
//     open at the checkpoint is complete.
// The new communicator's key in the protocol's control messages is derived
// from the parent's and the call's number; agreeing on a tag, as the
// blocking constructors do, would be a blocking collective.
//
// MPI_Comm_disconnect frees a communicator once its pending communication
// completed, and synchronises its members to know that (Open MPI: a
// barrier). It is numbered as a collective: a member past the recovery line
// re-executes one that crossed the line from the log (the others will not
// call it again) and only frees its communicator, as MPI_Comm_free does.
//
//===----------------------------------------------------------------------===//
#include "CollectiveCalls.h"
#include "mpi-layer/objects/CommunicatorCalls.h"
#include "mpi-layer/protocol/ProtocolInternal.h"

namespace ccc {
namespace mpi {
using namespace nb;

namespace {

int startIdup(MPI_Comm C, MPI_Info Info, bool WithInfo, MPI_Comm *Out,
              MPI_Request *Q) {
  uint64_t H[] = {handleBits(C), handleBits(Info)};
  uint32_t Idx = recordObject(
      ObjKind::Comm, WithInfo ? Recipe::CommDupWithInfo : Recipe::CommDup, 0,
      nullptr, 0, nullptr, WithInfo ? 2 : 1, H);
  L->Objs[Idx].Real.Comm = MPI_COMM_NULL; // until the request completes
  recordMembersFrom(L->Objs[Idx], realComm(C));
  Request *R;
  MPI_Request Handle = newRequest(ReqKind::Coll, &R);
  R->Comm = C;
  R->NewComm = Idx + 1;
  R->RealNew = static_cast<MPI_Comm *>(saved(sizeof(MPI_Comm)));
  *R->RealNew = MPI_COMM_NULL;
  int E;
#ifdef MPICH
  if (WithInfo)
    E = PMPI_Comm_idup_with_info(realComm(C), realInfo(Info), R->RealNew,
                                 &R->Real);
  else
#endif
    E = PMPI_Comm_idup(realComm(C), R->RealNew, &R->Real);
  if (E != MPI_SUCCESS) {
    releaseRequest(Handle);
    L->NObjs--; // nothing was made (the entry is the last one)
    return E;
  }
  if (NonBlocking)
    L->Objs[Idx].Key = nbIdupStarted(C);
  *Out = objectHandle<MPI_Comm>(Idx);
  *Q = Handle;
  return MPI_SUCCESS;
}

} // namespace

void idupCompleted(Request &R) {
  uint64_t New = handleBits(objectHandle<MPI_Comm>(R.NewComm - 1));
  L->Objs[R.NewComm - 1].Real.Comm = *R.RealNew;
  __ccc_free(R.RealNew);
  R.RealNew = nullptr;
  R.NewComm = 0;
  recordCopiedAttributes(New, false);
}

void idupRestored(Request &R) {
  // The communicator was made again with the other objects.
  __ccc_free(R.RealNew);
  R.RealNew = nullptr;
  R.NewComm = 0;
  completeEmpty(R);
  TRACE("%d epoch %u: communicator duplication open at the checkpoint made "
        "again",
        L->Rank, L->Epoch);
}

} // namespace mpi
} // namespace ccc

using namespace ccc::mpi;

extern "C" {

int MPI_Comm_idup(MPI_Comm C, MPI_Comm *Out, MPI_Request *Q) {
  if (Bypass)
    return PMPI_Comm_idup(C, Out, Q);
  return startIdup(C, MPI_INFO_NULL, false, Out, Q);
}

int MPI_Comm_disconnect(MPI_Comm *C) {
  Object *O = Bypass ? nullptr : object(*C);
  if (!O) // CCC_DISABLE=1, or MPI's own communicator
    return PMPI_Comm_disconnect(C);
  if (O->Kind != ObjKind::Comm || !O->Live)
    return MPI_ERR_COMM;
  uint32_t Idx = (uint32_t)(O - L->Objs);
  int R = runCollective(
      *C, [] { return noOutputs(); },
      [&] { return PMPI_Comm_disconnect(&L->Objs[Idx].Real.Comm); });
  // Disconnected, MPI's handle is null; replayed from the log, the
  // communicator is freed here.
  return R == MPI_SUCCESS ? MPI_Comm_free(C) : R;
}

#ifdef MPICH
int MPI_Comm_idup_with_info(MPI_Comm C, MPI_Info Info, MPI_Comm *Out,
                            MPI_Request *Q) {
  if (Bypass)
    return PMPI_Comm_idup_with_info(C, Info, Out, Q);
  return startIdup(C, Info, true, Out, Q);
}
#endif
}
