//===- MatchedProbe.cpp - MPI_Mprobe, MPI_Improbe, MPI_Mrecv, MPI_Imrecv --===//
//
// The layer receives a matched message at once, into a Message of its
// saved heap (the form of the messages it drains at a checkpoint), and the
// MPI_Message the program gets is a ccc handle of a slot holding it. So a
// message matched before a checkpoint and received after it is in the
// image, nothing of MPI's matching state has to survive a restart, and a
// message the layer holds already (drained at a checkpoint, or received by
// a probe under the non-blocking protocol) can be matched like one MPI
// holds. Under the non-blocking protocol the layer's own probe (nbProbe)
// does the receiving: it strips and classifies the header, and logs an
// MPI_Improbe's outcome as MPI_Iprobe's (the same nondeterministic choice)
// so a restart replays it.
//
//===----------------------------------------------------------------------===//
#include "mpi-layer/Layer.h"

#include <cstring>

namespace ccc {
namespace mpi {
namespace {

MPI_Message handleOf(Message *M) {
  uint32_t I = 0;
  while (I < L->NMatched && L->Matched[I])
    ++I;
  if (I == L->NMatched) {
    uint32_t N = L->NMatched ? 2 * L->NMatched : 16;
    auto *T = static_cast<Message **>(saved(N * sizeof(Message *)));
    if (L->NMatched)
      memcpy(T, L->Matched, L->NMatched * sizeof(Message *));
    __ccc_free(L->Matched);
    L->Matched = T;
    L->NMatched = N;
  }
  L->Matched[I] = M;
  return encodeHandle<MPI_Message>(kHandleMsg, I);
}

// The message of handle H, taken out of its slot; null if H is none of the
// layer's.
Message *takeMatched(MPI_Message H) {
  uint32_t I;
  if (!L || !decodeHandle(H, kHandleMsg, &I) || I >= L->NMatched)
    return nullptr;
  Message *M = L->Matched[I];
  L->Matched[I] = nullptr;
  return M;
}

// Blocking protocol: receives the message MPI matched as RM (status S) on C
// (program handle).
Message *receiveMatched(MPI_Message RM, const MPI_Status &S, MPI_Comm C) {
  MPI_Count Bytes;
  PMPI_Get_elements_x(&S, MPI_BYTE, &Bytes);
  auto *M = static_cast<Message *>(saved(sizeof(Message) + Bytes));
  M->Comm = C;
  M->Source = S.MPI_SOURCE;
  M->Tag = S.MPI_TAG;
  M->Bytes = Bytes;
  PMPI_Mrecv(M->Data, (int)Bytes, MPI_BYTE, &RM, MPI_STATUS_IGNORE);
  countReceived(C, S.MPI_SOURCE);
  return M;
}

// Matches a message (Block: waits for one); null if none.
Message *match(int Src, int Tag, MPI_Comm C, bool Block) {
  if (NonBlocking) {
    MPI_Status S;
    if (!nbProbe(Src, Tag, C, Block, &S))
      return nullptr;
    // nbProbe found the first pending message matching (Src, Tag), or
    // appended one: the first one matching what it reported.
    return takePending(C, S.MPI_SOURCE, S.MPI_TAG, true);
  }
  if (Message *M = takePending(C, Src, Tag, true))
    return M;
  MPI_Message RM;
  MPI_Status S;
  int Flag = 1;
  if (Block)
    PMPI_Mprobe(Src, Tag, realComm(C), &RM, &S);
  else
    PMPI_Improbe(Src, Tag, realComm(C), &Flag, &RM, &S);
  return Flag ? receiveMatched(RM, S, C) : nullptr;
}

} // namespace
} // namespace mpi
} // namespace ccc

using namespace ccc::mpi;

extern "C" {

int MPI_Mprobe(int Src, int Tag, MPI_Comm C, MPI_Message *Msg,
               MPI_Status *Status) {
  if (Bypass || Src == MPI_PROC_NULL)
    return PMPI_Mprobe(Src, Tag, realComm(C), Msg, Status);
  Message *M = match(Src, Tag, C, true);
  if (Status != MPI_STATUS_IGNORE)
    fillStatus(Status, M);
  *Msg = handleOf(M);
  return MPI_SUCCESS;
}

int MPI_Improbe(int Src, int Tag, MPI_Comm C, int *Flag, MPI_Message *Msg,
                MPI_Status *Status) {
  if (Bypass || Src == MPI_PROC_NULL)
    return PMPI_Improbe(Src, Tag, realComm(C), Flag, Msg, Status);
  Message *M = match(Src, Tag, C, false);
  *Flag = M != nullptr;
  if (!M)
    return MPI_SUCCESS;
  if (Status != MPI_STATUS_IGNORE)
    fillStatus(Status, M);
  *Msg = handleOf(M);
  return MPI_SUCCESS;
}

int MPI_Mrecv(void *B, int N, MPI_Datatype T, MPI_Message *Msg,
              MPI_Status *Status) {
  if (Bypass)
    return PMPI_Mrecv(B, N, T, Msg, Status);
  Message *M = takeMatched(*Msg);
  if (!M) // MPI_MESSAGE_NO_PROC (or not a message: MPI reports it)
    return PMPI_Mrecv(B, N, realType(T), Msg, Status);
  *Msg = MPI_MESSAGE_NULL;
  return KeptError(Status)(deliver(M, B, N, T, Status));
}

int MPI_Imrecv(void *B, int N, MPI_Datatype T, MPI_Message *Msg,
               MPI_Request *Out) {
  if (Bypass)
    return PMPI_Imrecv(B, N, T, Msg, Out);
  Message *M = takeMatched(*Msg);
  if (!M)
    return PMPI_Imrecv(B, N, realType(T), Msg, Out);
  *Msg = MPI_MESSAGE_NULL;
  // The data is here: a receive request complete from the start.
  Request *R;
  *Out = newRequest(ReqKind::Recv, &R);
  R->Buf = B;
  R->Count = N;
  R->Type = T;
  R->Comm = M->Comm;
  R->Peer = M->Source;
  R->Tag = M->Tag;
  deliver(M, B, N, T, &R->Status);
  R->Done = true;
  return MPI_SUCCESS;
}
}
