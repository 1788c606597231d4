//===- GeneralizedRequests.cpp - MPI_Grequest_start, _complete ------------===//
//
// A generalized request is a slot of the layer's request table over MPI's
// own generalized request, made with the program's callbacks: MPI's
// MPI_Wait/Test/Cancel (through the layer's completion functions) call
// them as usual.
//
// Across a checkpoint: the operation behind an incomplete generalized
// request is the program's (a thread, an I/O library), which the layer
// cannot re-create after a restart. So a rank with one open (started,
// MPI_Grequest_complete not called yet) writes no image: the checkpoint is
// not committed (the previous committed one survives), and a later one is
// taken once none is open. One completed and not yet waited for is
// completed by the layer at the checkpoint (its query and free callbacks
// run then, after MPI_Grequest_complete as MPI allows), so its status is in
// the image.
//
//===----------------------------------------------------------------------===//
#include "mpi-layer/Layer.h"

#include "rt/common/Log.h"

#include "ccc.h"

namespace ccc {
namespace mpi {
namespace {

int (*RealTake)();

int guardedTake() {
  uint32_t Open = 0;
  for (uint32_t I = 0; I < L->NReqs; ++I) {
    Request &R = L->Reqs[I];
    if (!R.InUse || R.Kind != ReqKind::Generalized || R.Done)
      continue;
    if (!R.GComplete) {
      ++Open;
      continue;
    }
    MPI_Status S;
    PMPI_Wait(&R.Real, &S);
    R.Real = MPI_REQUEST_NULL;
    R.Status = S;
    R.Done = true;
  }
  if (Open) {
    ccc::logMessage("checkpoint not written on rank %d: %u generalized "
                    "request(s) open (MPI_Grequest_complete not called), "
                    "which a restart could not re-create",
                    L->Rank, Open);
    return CCC_NONE;
  }
  return RealTake();
}

} // namespace


int (*guardTake(int (*Take)()))() {
  if (!Take)
    return nullptr;
  RealTake = Take;
  return guardedTake;
}

} // namespace mpi
} // namespace ccc

using namespace ccc::mpi;

extern "C" {

int MPI_Grequest_start(MPI_Grequest_query_function *Query,
                       MPI_Grequest_free_function *Free,
                       MPI_Grequest_cancel_function *Cancel, void *Extra,
                       MPI_Request *Out) {
  if (Bypass)
    return PMPI_Grequest_start(Query, Free, Cancel, Extra, Out);
  Request *R;
  MPI_Request H = newRequest(ReqKind::Generalized, &R);
  int Err = PMPI_Grequest_start(Query, Free, Cancel, Extra, &R->Real);
  if (Err != MPI_SUCCESS) {
    releaseRequest(H);
    return Err;
  }
  *Out = H;
  return MPI_SUCCESS;
}

int MPI_Grequest_complete(MPI_Request H) {
  if (Bypass)
    return PMPI_Grequest_complete(H);
  Request *R = request(H);
  if (!R || R->Kind != ReqKind::Generalized)
    return PMPI_Grequest_complete(H); // MPI reports the bad request
  R->GComplete = true;
  return PMPI_Grequest_complete(R->Real);
}
}
