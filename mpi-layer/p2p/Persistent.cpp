//===- Persistent.cpp - MPI_Send_init, MPI_Recv_init, MPI_Start -----------===//
//
// A persistent request is a slot of the layer's request table holding the
// operation's recipe (buffer, count, datatype, peer, tag, communicator, send
// mode); MPI never sees a persistent request. MPI_Start runs the layer's
// own MPI_Isend/Issend/Irsend/Irecv (or its buffered send) and moves the
// request it made into the persistent slot, so each start is an ordinary
// send or receive operation for either protocol: counted, piggybacked and
// classified, drained or logged at a checkpoint, and posted again after a
// restart while active. An inactive persistent request needs nothing from
// MPI, so after a restart it is simply there again, with the same handle.
//
//===----------------------------------------------------------------------===//
#include "mpi-layer/Layer.h"

#include <cstring>

namespace ccc {
namespace mpi {
namespace {

MPI_Request makePersistent(ReqKind Kind, uint8_t Mode, const void *Buf,
                           int Count, MPI_Datatype Type, int Peer, int Tag,
                           MPI_Comm C) {
  Request *R;
  MPI_Request H = newRequest(Kind, &R);
  R->Persistent = true;
  R->Active = false;
  R->Done = true; // inactive: completes at once with an empty status
  R->Status.MPI_SOURCE = MPI_ANY_SOURCE;
  R->Status.MPI_TAG = MPI_ANY_TAG;
  R->Status.MPI_ERROR = MPI_SUCCESS;
  R->SendMode = Mode;
  R->Buf = const_cast<void *>(Buf);
  R->Count = Count;
  R->Type = Type;
  R->Peer = Peer;
  R->Tag = Tag;
  R->Comm = C;
  return H;
}

// Starts persistent request H (a ccc handle of an inactive one).
int start(MPI_Request H) {
  uint32_t P;
  decodeHandle(H, kHandleReq, &P);
  Request Recipe = L->Reqs[P];
  MPI_Request Op = MPI_REQUEST_NULL;
  int Err;
  if (Recipe.Kind == ReqKind::Recv) {
    Err = MPI_Irecv(Recipe.Buf, Recipe.Count, Recipe.Type, Recipe.Peer,
                    Recipe.Tag, Recipe.Comm, &Op);
  } else {
    typedef int (*Fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm,
                      MPI_Request *);
    static const Fn Fns[4] = {MPI_Isend, MPI_Issend, bufferedSend, MPI_Irsend};
    Err = Fns[Recipe.SendMode & 3](Recipe.Buf, Recipe.Count, Recipe.Type,
                                   Recipe.Peer, Recipe.Tag, Recipe.Comm, &Op);
  }
  if (Err != MPI_SUCCESS)
    return Err;
  // The table may have grown: index again. The operation's fields (real
  // request, header block, receive operation id, done/status) move into
  // the persistent slot, whose recipe stays.
  Request *Q = request(Op);
  Request &R = L->Reqs[P];
  releaseHeader(R);
  __ccc_free(R.Copy);
  R = *Q;
  R.Buf = Recipe.Buf;
  R.Count = Recipe.Count;
  R.Type = Recipe.Type;
  R.Peer = Recipe.Peer;
  R.Tag = Recipe.Tag;
  R.Comm = Recipe.Comm;
  R.Persistent = true;
  R.Active = true;
  R.SendMode = Recipe.SendMode;
  R.Orphan = false;
  Q->Hdr = nullptr; // owned by the persistent slot now
  Q->HdrCell = false;
  Q->Copy = nullptr;
  releaseRequest(Op);
  return MPI_SUCCESS;
}

// MPI's own error for a bad request argument, through the error handler of
// MPI_COMM_WORLD as MPI would report it.
int badRequest() {
  return PMPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_REQUEST),
         MPI_ERR_REQUEST;
}

} // namespace
bool typeHeld(MPI_Datatype T) {
  for (uint32_t I = 0; I < L->NReqs; ++I) {
    const Request &R = L->Reqs[I];
    if (R.InUse && R.Persistent && R.Type == T)
      return true;
  }
  return false;
}

} // namespace mpi
} // namespace ccc

using namespace ccc::mpi;

extern "C" {

int MPI_Send_init(const void *B, int N, MPI_Datatype T, int D, int Tag,
                  MPI_Comm C, MPI_Request *Out) {
  if (Bypass)
    return PMPI_Send_init(B, N, T, D, Tag, C, Out);
  *Out = makePersistent(ReqKind::Send, 0, B, N, T, D, Tag, C);
  return MPI_SUCCESS;
}

int MPI_Ssend_init(const void *B, int N, MPI_Datatype T, int D, int Tag,
                   MPI_Comm C, MPI_Request *Out) {
  if (Bypass)
    return PMPI_Ssend_init(B, N, T, D, Tag, C, Out);
  *Out = makePersistent(ReqKind::Send, 1, B, N, T, D, Tag, C);
  return MPI_SUCCESS;
}

int MPI_Bsend_init(const void *B, int N, MPI_Datatype T, int D, int Tag,
                   MPI_Comm C, MPI_Request *Out) {
  if (Bypass)
    return PMPI_Bsend_init(B, N, T, D, Tag, C, Out);
  *Out = makePersistent(ReqKind::Send, 2, B, N, T, D, Tag, C);
  return MPI_SUCCESS;
}

int MPI_Rsend_init(const void *B, int N, MPI_Datatype T, int D, int Tag,
                   MPI_Comm C, MPI_Request *Out) {
  if (Bypass)
    return PMPI_Rsend_init(B, N, T, D, Tag, C, Out);
  *Out = makePersistent(ReqKind::Send, 3, B, N, T, D, Tag, C);
  return MPI_SUCCESS;
}

int MPI_Recv_init(void *B, int N, MPI_Datatype T, int Src, int Tag, MPI_Comm C,
                  MPI_Request *Out) {
  if (Bypass)
    return PMPI_Recv_init(B, N, T, Src, Tag, C, Out);
  *Out = makePersistent(ReqKind::Recv, 0, B, N, T, Src, Tag, C);
  return MPI_SUCCESS;
}

int MPI_Start(MPI_Request *H) {
  if (Bypass)
    return PMPI_Start(H);
  Request *R = request(*H);
  if (!R || !R->Persistent || R->Active)
    return badRequest();
  return start(*H);
}

int MPI_Startall(int N, MPI_Request Hs[]) {
  if (Bypass)
    return PMPI_Startall(N, Hs);
  for (int I = 0; I < N; ++I) {
    Request *R = request(Hs[I]);
    if (!R || !R->Persistent || R->Active)
      return badRequest();
  }
  for (int I = 0; I < N; ++I)
    if (int Err = start(Hs[I]); Err != MPI_SUCCESS)
      return Err;
  return MPI_SUCCESS;
}
}
