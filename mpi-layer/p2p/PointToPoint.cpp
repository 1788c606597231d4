//===- PointToPoint.cpp - Sends, receives, requests, probes ---------------===//
//
// Every message is counted per peer (world rank) when it is sent and when
// the program receives it; at a checkpoint the counts say how many are
// still in flight (Blocking.cpp). Messages the layer received on the
// program's behalf at a checkpoint wait in L->Pending and are delivered
// before anything MPI has: they were sent first.
//
// Requests are entries of the layer's table: after a restart, receives that
// were posted and not complete at the checkpoint are posted again, and
// requests completed at the checkpoint report their saved status. Waits
// and tests are in Completion.cpp.
//
//===----------------------------------------------------------------------===//
#include "mpi-layer/Layer.h"

#include "rt/common/Log.h"

#include <algorithm>
#include <cstring>

namespace ccc {
namespace mpi {

//===-- Counting ----------------------------------------------------------===//

void countSent(MPI_Comm C, int Dest) {
  if (Dest == MPI_PROC_NULL || !L || NonBlocking)
    return;
  int W = worldRank(C, Dest);
  if (W >= 0)
    L->Sent[W]++;
}

void countReceived(MPI_Comm C, int Source) {
  if (Source == MPI_PROC_NULL || Source < 0 || !L || NonBlocking)
    return;
  int W = worldRank(C, Source);
  if (W >= 0)
    L->Recvd[W]++;
}

//===-- Messages received by the layer ------------------------------------===//

static bool matches(const Message *M, MPI_Comm C, int Source, int Tag) {
  return M->Comm == C && (Source == MPI_ANY_SOURCE || Source == M->Source) &&
         (Tag == MPI_ANY_TAG || Tag == M->Tag);
}

Message *takePending(MPI_Comm C, int Source, int Tag, bool Remove) {
  if (!L || Source == MPI_PROC_NULL)
    return nullptr;
  Message *Prev = nullptr;
  for (Message *M = L->Pending; M; Prev = M, M = M->Next) {
    if (!matches(M, C, Source, Tag))
      continue;
    if (Remove) {
      (Prev ? Prev->Next : L->Pending) = M->Next;
      if (L->PendingTail == M)
        L->PendingTail = Prev;
      M->Next = nullptr;
    }
    return M;
  }
  return nullptr;
}

void fillStatus(MPI_Status *S, const Message *M) {
  S->MPI_SOURCE = M->Source;
  S->MPI_TAG = M->Tag;
  PMPI_Status_set_cancelled(S, 0);
  PMPI_Status_set_elements_x(S, MPI_BYTE, (MPI_Count)M->Bytes);
}

// A communicator of this rank alone, for unpackBytes' partial elements (a
// program's own messages to MPI_COMM_SELF must not meet the layer's).
static MPI_Comm SelfComm = MPI_COMM_NULL;

void unpackBytes(const void *Data, size_t Bytes, void *Buf, int Count,
                 MPI_Datatype RealType) {
  int Size;
  PMPI_Type_size(RealType, &Size);
  if (!Size || !Bytes || Count <= 0)
    return;
  size_t Fit = std::min(Bytes, (size_t)Size * Count);
  int Whole = (int)(Fit / Size);
  int Pos = 0;
  if (Whole)
    PMPI_Unpack(Data, (int)Fit, &Pos, Buf, Whole, RealType, Private);
  if ((size_t)Pos == Fit)
    return;
  // A message may end inside an element (its type signature a prefix of
  // the receive's), which MPI_Unpack does not take: MPI itself places the
  // rest, sent as bytes to this rank and received as one element.
  if (SelfComm == MPI_COMM_NULL)
    PMPI_Comm_dup(MPI_COMM_SELF, &SelfComm);
  MPI_Aint Lb, Extent;
  PMPI_Type_get_extent(RealType, &Lb, &Extent);
  PMPI_Sendrecv(static_cast<const char *>(Data) + Pos, (int)(Fit - Pos),
                MPI_BYTE, 0, 0, static_cast<char *>(Buf) + Whole * Extent, 1,
                RealType, 0, 0, SelfComm, MPI_STATUS_IGNORE);
}

void freeSelfComm() {
  if (SelfComm != MPI_COMM_NULL)
    PMPI_Comm_free(&SelfComm);
}

int deliver(Message *M, void *Buf, int Count, MPI_Datatype Type,
            MPI_Status *Status) {
  MPI_Datatype T = realType(Type);
  int Size;
  PMPI_Type_size(T, &Size);
  int R = MPI_SUCCESS;
  if ((size_t)Size * Count < M->Bytes)
    R = MPI_ERR_TRUNCATE;
  // The bytes are the message's packed form.
  unpackBytes(M->Data, M->Bytes, Buf, Count, T);
  MPI_Status Local;
  MPI_Status *S = Status == MPI_STATUS_IGNORE ? &Local : Status;
  fillStatus(S, M);
  S->MPI_ERROR = R;
  __ccc_free(M);
  return R;
}

//===-- Requests ----------------------------------------------------------===//

MPI_Request newRequestGrow(ReqKind Kind, Request **Out) {
  uint32_t I = L->FreeReqHint;
  while (I < L->NReqs && L->Reqs[I].InUse)
    ++I;
  if (I == L->NReqs) {
    if (L->NReqs == L->CapReqs) {
      uint32_t Cap = L->CapReqs ? 2 * L->CapReqs : 256;
      auto *N = static_cast<Request *>(saved(Cap * sizeof(Request)));
      if (L->NReqs)
        memcpy(N, L->Reqs, L->NReqs * sizeof(Request));
      __ccc_free(L->Reqs);
      L->Reqs = N;
      L->CapReqs = Cap;
    }
    ++L->NReqs;
  }
  return takeSlot(I, Kind, Out);
}

// Cells are carved from chunks of the saved heap, never freed: their
// addresses are stable (MPI writes a receive's block while the table may
// move) and an image restores them, free list included.
static void *cellAlloc() {
  constexpr size_t kChunkCells = 256;
  if (!L->FreeCells) {
    char *Chunk = static_cast<char *>(saved(kChunkCells * kCellBytes));
    for (size_t I = 0; I < kChunkCells; ++I) {
      void **Cell = reinterpret_cast<void **>(Chunk + I * kCellBytes);
      *Cell = I + 1 < kChunkCells ? Chunk + (I + 1) * kCellBytes : nullptr;
    }
    L->FreeCells = Chunk;
  }
  void **Cell = static_cast<void **>(L->FreeCells);
  L->FreeCells = *Cell;
  return Cell;
}

uint32_t *newHeader(Request &R, size_t Bytes) {
  releaseHeader(R);
  R.HdrCell = Bytes <= kCellBytes;
  R.Hdr = static_cast<uint32_t *>(R.HdrCell ? cellAlloc() : saved(Bytes));
  return R.Hdr;
}

void releaseHeader(Request &R) {
  if (!R.Hdr)
    return;
  if (R.HdrCell) {
    *reinterpret_cast<void **>(R.Hdr) = L->FreeCells;
    L->FreeCells = R.Hdr;
  } else
    __ccc_free(R.Hdr);
  R.Hdr = nullptr;
  R.HdrCell = false;
}

uint32_t *headerOf(Request &R) {
  return R.Hdr ? R.Hdr : newHeader(R, nb::HeaderBytes);
}

// Frees a request's block, if it owns one: most own none, and pay no call.
template <typename T> static void freeOwned(T *&P) {
  if (P) {
    __ccc_free(P);
    P = nullptr;
  }
}

void releaseSlot(Request &R) {
  uint32_t I = (uint32_t)(&R - L->Reqs);
  R.InUse = false;
  if (R.Persistent)
    releaseFreedType(R.Type);
  releaseHeader(R);
  freeOwned(R.Copy);
  freeOwned(R.OutsArrays);
  freeOwned(R.RealTypes);
  freeOwned(R.RealNew);
  if (I < L->FreeReqHint)
    L->FreeReqHint = I;
}

void releaseRequest(MPI_Request H) {
  uint32_t I;
  if (!decodeHandle(H, kHandleReq, &I))
    return;
  releaseSlot(L->Reqs[I]);
}

Request *liveRequest(MPI_Request H) {
  Request *R = request(H);
  return R && (!R->Persistent || R->Active) ? R : nullptr;
}

void afterRestoreRequests() {
  for (uint32_t I = 0; I < L->NReqs; ++I) {
    Request &R = L->Reqs[I];
    if (!R.InUse || R.Done)
      continue;
    if (R.Kind != ReqKind::Recv)
      fatal("%s request %u was not complete at the checkpoint",
            R.Kind == ReqKind::Send ? "send" : "generalized", I);
    R.Real = MPI_REQUEST_NULL;
    PMPI_Irecv(R.Buf, R.Count, realType(R.Type), R.Peer, R.Tag,
               realComm(R.Comm), &R.Real);
  }
}

// Requests still active (for the checkpoint drain).
void forEachActiveRequest(void (*Fn)(Request &)) {
  for (uint32_t I = 0; I < L->NReqs; ++I)
    if (L->Reqs[I].InUse && !L->Reqs[I].Done)
      Fn(L->Reqs[I]);
}

} // namespace mpi
} // namespace ccc

using namespace ccc::mpi;

//===-- Sends -------------------------------------------------------------===//

typedef int (*BlockingSend)(const void *, int, MPI_Datatype, int, int,
                            MPI_Comm);
typedef int (*NonblockingSend)(const void *, int, MPI_Datatype, int, int,
                               MPI_Comm, MPI_Request *);

static int sendVia(BlockingSend Fn, const void *Buf, int Count,
                   MPI_Datatype Type, int Dest, int Tag, MPI_Comm C) {
  int R = Fn(Buf, Count, realType(Type), Dest, Tag, realComm(C));
  if (R == MPI_SUCCESS)
    countSent(C, Dest);
  return R;
}

static int isendVia(NonblockingSend Fn, const void *Buf, int Count,
                    MPI_Datatype Type, int Dest, int Tag, MPI_Comm C,
                    MPI_Request *Out) {
  Request *R;
  MPI_Request H = newRequest(ReqKind::Send, &R);
  int Err = Fn(Buf, Count, realType(Type), Dest, Tag, realComm(C), &R->Real);
  if (Err != MPI_SUCCESS) {
    releaseRequest(H);
    return Err;
  }
  R->Peer = Dest;
  R->Tag = Tag;
  R->Comm = C;
  countSent(C, Dest);
  *Out = H;
  return Err;
}

extern "C" {

int MPI_Send(const void *B, int N, MPI_Datatype T, int D, int Tag, MPI_Comm C) {
  if (Bypass)
    return PMPI_Send(B, N, T, D, Tag, C);
  if (NonBlocking)
    return nbSend(B, N, T, D, Tag, C, kStandard);
  return sendVia(PMPI_Send, B, N, T, D, Tag, C);
}
int MPI_Ssend(const void *B, int N, MPI_Datatype T, int D, int Tag,
              MPI_Comm C) {
  if (Bypass)
    return PMPI_Ssend(B, N, T, D, Tag, C);
  if (NonBlocking)
    return nbSend(B, N, T, D, Tag, C, kSynchronous);
  return sendVia(PMPI_Ssend, B, N, T, D, Tag, C);
}
int MPI_Rsend(const void *B, int N, MPI_Datatype T, int D, int Tag,
              MPI_Comm C) {
  if (Bypass)
    return PMPI_Rsend(B, N, T, D, Tag, C);
  if (NonBlocking)
    return nbSend(B, N, T, D, Tag, C, kReady);
  return sendVia(PMPI_Rsend, B, N, T, D, Tag, C);
}
int MPI_Isend(const void *B, int N, MPI_Datatype T, int D, int Tag, MPI_Comm C,
              MPI_Request *R) {
  if (Bypass)
    return PMPI_Isend(B, N, T, D, Tag, C, R);
  if (NonBlocking)
    return nbIsend(B, N, T, D, Tag, C, kStandard, R);
  return isendVia(PMPI_Isend, B, N, T, D, Tag, C, R);
}
int MPI_Issend(const void *B, int N, MPI_Datatype T, int D, int Tag, MPI_Comm C,
               MPI_Request *R) {
  if (Bypass)
    return PMPI_Issend(B, N, T, D, Tag, C, R);
  if (NonBlocking)
    return nbIsend(B, N, T, D, Tag, C, kSynchronous, R);
  return isendVia(PMPI_Issend, B, N, T, D, Tag, C, R);
}
int MPI_Irsend(const void *B, int N, MPI_Datatype T, int D, int Tag, MPI_Comm C,
               MPI_Request *R) {
  if (Bypass)
    return PMPI_Irsend(B, N, T, D, Tag, C, R);
  if (NonBlocking)
    return nbIsend(B, N, T, D, Tag, C, kReady, R);
  return isendVia(PMPI_Irsend, B, N, T, D, Tag, C, R);
}

//===-- Receives ----------------------------------------------------------===//

int MPI_Recv(void *B, int N, MPI_Datatype T, int Src, int Tag, MPI_Comm C,
             MPI_Status *Status) {
  if (Bypass)
    return PMPI_Recv(B, N, T, Src, Tag, C, Status);
  if (NonBlocking)
    return nbRecv(B, N, T, Src, Tag, C, Status);
  if (Message *M = takePending(C, Src, Tag, true))
    return KeptError(Status)(deliver(M, B, N, T, Status));
  MPI_Status Local;
  MPI_Status *S = Status == MPI_STATUS_IGNORE ? &Local : Status;
  int R = PMPI_Recv(B, N, realType(T), Src, Tag, realComm(C), S);
  if (messageArrived(R))
    countReceived(C, S->MPI_SOURCE);
  return R;
}

int MPI_Irecv(void *B, int N, MPI_Datatype T, int Src, int Tag, MPI_Comm C,
              MPI_Request *Out) {
  if (Bypass)
    return PMPI_Irecv(B, N, T, Src, Tag, C, Out);
  if (NonBlocking)
    return nbIrecv(B, N, T, Src, Tag, C, Out);
  Request *R;
  MPI_Request H = newRequest(ReqKind::Recv, &R);
  R->Buf = B;
  R->Count = N;
  R->Type = T;
  R->Peer = Src;
  R->Tag = Tag;
  R->Comm = C;
  if (Message *M = takePending(C, Src, Tag, true)) {
    deliver(M, B, N, T, &R->Status);
    R->Done = true;
    *Out = H;
    return MPI_SUCCESS;
  }
  int Err = PMPI_Irecv(B, N, realType(T), Src, Tag, realComm(C), &R->Real);
  if (Err != MPI_SUCCESS) {
    releaseRequest(H);
    return Err;
  }
  *Out = H;
  return Err;
}

int MPI_Sendrecv(const void *SB, int SN, MPI_Datatype ST, int Dest, int STag,
                 void *RB, int RN, MPI_Datatype RT, int Src, int RTag,
                 MPI_Comm C, MPI_Status *Status) {
  if (Bypass)
    return PMPI_Sendrecv(SB, SN, ST, Dest, STag, RB, RN, RT, Src, RTag, C,
                         Status);
  MPI_Request Reqs[2];
  int Err = MPI_Irecv(RB, RN, RT, Src, RTag, C, &Reqs[0]);
  if (Err != MPI_SUCCESS)
    return Err;
  Err = MPI_Isend(SB, SN, ST, Dest, STag, C, &Reqs[1]);
  if (Err != MPI_SUCCESS)
    return Err;
  MPI_Wait(&Reqs[1], MPI_STATUS_IGNORE);
  return MPI_Wait(&Reqs[0], Status);
}

int MPI_Sendrecv_replace(void *B, int N, MPI_Datatype T, int Dest, int STag,
                         int Src, int RTag, MPI_Comm C, MPI_Status *Status) {
  if (Bypass)
    return PMPI_Sendrecv_replace(B, N, T, Dest, STag, Src, RTag, C, Status);
  int Size;
  PMPI_Pack_size(N, realType(T), realComm(C), &Size);
  void *Tmp = scratch(Size);
  int Pos = 0;
  PMPI_Pack(B, N, realType(T), Tmp, Size, &Pos, realComm(C));
  int Err = MPI_Sendrecv(Tmp, Pos, MPI_PACKED, Dest, STag, B, N, T, Src, RTag,
                         C, Status);
  scratchFree(Tmp);
  return Err;
}

//===-- Probes ------------------------------------------------------------===//

int MPI_Probe(int Src, int Tag, MPI_Comm C, MPI_Status *Status) {
  if (Bypass)
    return PMPI_Probe(Src, Tag, C, Status);
  if (NonBlocking) {
    nbProbe(Src, Tag, C, true, Status);
    return MPI_SUCCESS;
  }
  if (Message *M = takePending(C, Src, Tag, false)) {
    if (Status != MPI_STATUS_IGNORE) {
      fillStatus(Status, M);
      if (kProbeSetsError)
        Status->MPI_ERROR = MPI_SUCCESS;
    }
    return MPI_SUCCESS;
  }
  return PMPI_Probe(Src, Tag, realComm(C), Status);
}

int MPI_Iprobe(int Src, int Tag, MPI_Comm C, int *Flag, MPI_Status *Status) {
  if (Bypass)
    return PMPI_Iprobe(Src, Tag, C, Flag, Status);
  if (NonBlocking) {
    *Flag = nbProbe(Src, Tag, C, false, Status);
    return MPI_SUCCESS;
  }
  if (Message *M = takePending(C, Src, Tag, false)) {
    *Flag = 1;
    if (Status != MPI_STATUS_IGNORE) {
      fillStatus(Status, M);
      if (kProbeSetsError)
        Status->MPI_ERROR = MPI_SUCCESS;
    }
    return MPI_SUCCESS;
  }
  return PMPI_Iprobe(Src, Tag, realComm(C), Flag, Status);
}
}
