//===- ProtocolMessages.cpp - C3: messages, headers, log replay -----------===//
//
// Part of the non-blocking protocol (Protocol.cpp): the header each message
// carries, how a send or receive is classified (intra-epoch, late, early)
// and logged, and how a restart replays late messages, wildcard choices and
// test outcomes from the log and suppresses early sends.
//
//===----------------------------------------------------------------------===//
#include "ProtocolInternal.h"
#include "mpi-layer/Layer.h"

#include "rt/common/Log.h"

#include <cstring>

namespace ccc {
namespace mpi {
namespace nb {

//===-- Piggybacking ------------------------------------------------------===//

// A datatype for the header followed by Count elements of Type at Buf
// (absolute addresses: used with MPI_BOTTOM).
MPI_Datatype withHeader(uint32_t *Hdr, const void *Buf, int Count,
                        MPI_Datatype Type) {
  int Lens[2] = {HeaderBytes / 4, Count};
  MPI_Aint Displs[2];
  PMPI_Get_address(Hdr, &Displs[0]);
  PMPI_Get_address(Buf, &Displs[1]);
  MPI_Datatype Types[2] = {MPI_UINT32_T, Type};
  MPI_Datatype T;
  PMPI_Type_create_struct(2, Lens, Displs, Types, &T);
  PMPI_Type_commit(&T);
  return T;
}

// Small messages travel as one byte buffer, the header then the data:
// copied when the datatype is contiguous, packed by MPI (MPI_Pack) when it
// is not. A datatype made and freed per message costs more than either: a
// Sendrecv of a 64-element MPI_Type_vector column took 2.8 us through the
// layer that way against 1.3 us without it (Open MPI). Packed data of a
// non-contiguous type stays within 4 KiB with its header: Open MPI sends a
// longer contiguous buffer by its rendezvous protocol, which made a
// 512-element column (4 KiB) cost 1.8x plain's against 1.2x by the struct
// datatype. It is the same byte stream as the struct datatype sends, so
// either side may use either form.
constexpr int kPackMax = 4096;
constexpr int kPackMaxStrided = kPackMax - kBaseHeaderBytes;

// Per real datatype: its size, and whether its elements lie contiguous.
// Three type queries per message were a good part of the layer's cost on
// small messages; the cache is emptied whenever the program frees a
// datatype (MPI may reuse the handle).
struct TypeShape {
  MPI_Datatype Type;
  int Size;
  bool Contiguous;
  bool Valid;
};
TypeShape Shapes[32];

__attribute__((noinline)) const TypeShape &shapeSlow(MPI_Datatype Type,
                                                     TypeShape &E) {
  int Size;
  PMPI_Type_size(Type, &Size);
  MPI_Aint Lb, Ext, TLb, TExt;
  PMPI_Type_get_extent(Type, &Lb, &Ext);
  PMPI_Type_get_true_extent(Type, &TLb, &TExt);
  bool Contiguous = Lb == 0 && TLb == 0 && Ext == Size && TExt == Size;
  E = {Type, Size, Contiguous, true};
  return E;
}

inline const TypeShape &shapeOf(MPI_Datatype Type) {
  uint64_t H = handleBits(Type);
  TypeShape &E = Shapes[(H ^ H >> 5 ^ H >> 12) % 32];
  if (E.Valid && E.Type == Type)
    return E;
  return shapeSlow(Type, E);
}

// Its size if its elements lie contiguous, else -1.
inline int contiguousSize(MPI_Datatype Type) {
  const TypeShape &E = shapeOf(Type);
  return E.Contiguous ? E.Size : -1;
}

// The bytes of Count elements of Type if the message travels packed
// (at most kPackMax, kPackMaxStrided if Type is not contiguous), else -1;
// *Contiguous: whether Type is (one cache lookup per message).
inline int packedBytes(int Count, MPI_Datatype Type, bool *Contiguous) {
  const TypeShape &E = shapeOf(Type);
  *Contiguous = E.Contiguous;
  if (Count < 0 ||
      (int64_t)Count * E.Size > (E.Contiguous ? kPackMax : kPackMaxStrided))
    return -1;
  return Count * E.Size;
}

// Count elements of Type at Buf, N bytes (packedBytes), to Out.
inline void packData(char *Out, const void *Buf, int Count, MPI_Datatype Type,
                     int N, bool Contiguous) {
  if (Contiguous) {
    memcpy(Out, Buf, N);
    return;
  }
  int Pos = 0;
  PMPI_Pack(Buf, Count, Type, Out, N, &Pos, Private);
}

// A message MPI truncated without delivering its header (MPICH delivers
// nothing of a truncated message): the protocol cannot tell which side of
// a recovery line it was sent on, so no later checkpoint could be proven
// consistent.
[[noreturn]] void headerMissing(const MPI_Status &S) {
  fatal("a message from rank %d (tag %d) was truncated (the receive posted "
        "fewer bytes than were sent) and MPI delivered none of it; under "
        "CCC_PROTOCOL=nonblocking the layer needs its first %d bytes",
        S.MPI_SOURCE, S.MPI_TAG, HeaderBytes);
}

// The status the program sees: as if there were no header.
void stripHeader(MPI_Status &S) {
  MPI_Count Bytes = statusBytes(S);
  if (Bytes < HeaderBytes)
    headerMissing(S);
  setStatusBytes(S, Bytes - HeaderBytes);
}

// A packed message (Msg: header, then data) to the program's buffer of
// Count elements of Type (packedBytes of them: N; Contiguous as it said);
// strips the header from the status. A truncated message's status may count
// more than arrived (Open MPI counts what was sent), so at most N bytes are
// unpacked.
void unpackReceived(const char *Msg, void *Buf, int Count, MPI_Datatype Type,
                    int N, bool Contiguous, MPI_Status &S) {
  MPI_Count Bytes = statusBytes(S);
  if (Bytes < HeaderBytes)
    headerMissing(S);
  MPI_Count Data = Bytes - HeaderBytes;
  if (Data > N)
    Data = N;
  if (Data && Contiguous)
    memcpy(Buf, Msg + HeaderBytes, Data);
  else if (Data)
    unpackBytes(Msg + HeaderBytes, Data, Buf, Count, Type);
  setStatusBytes(S, Bytes - HeaderBytes);
}

bool isWild(int Src, int Tag) {
  return Src == MPI_ANY_SOURCE || Tag == MPI_ANY_TAG;
}

// True if the send to world rank W with the next sequence number must be
// suppressed (its receiver got it before its checkpoint).
bool suppress(int W, uint64_t *Place) {
  if (L->M != Mode::Restore || !WE)
    return false;
  WasEarly &E = WE[W];
  if (E.Next >= E.N || E.Seqs[E.Next] != L->SentEp[W])
    return false;
  E.Next++;
  WasEarlyLeft--;
  TRACE("%d epoch %u: send to %d (seq %llu) suppressed: it was early", L->Rank,
        L->Epoch, W, (unsigned long long)L->SentEp[W]);
  L->SentEp[W]++;
  (*Place)++; // its receiver counted it
  maybeEndRestore();
  return true;
}

// Place: the message's place on its channel, carried only for the check.
void fillHeader(uint32_t *Hdr, int W, uint64_t Place) {
  Hdr[0] = L->Epoch << 1 | (L->M == Mode::NonDetLog ? 1 : 0);
  Hdr[1] = (uint32_t)L->SentEp[W];
  if (CheckPlaces) {
    Hdr[2] = (uint32_t)Place;
    Hdr[3] = (uint32_t)(Place >> 32);
  }
}

// Classifies a message the layer received (header Hdr, program status S
// already stripped) for receive operation Op posted with (Src, Tag) on C,
// the layer's posting number Posted; counts its place on its channel.
// Data/Bytes: the message in packed form, for the log (may be null: then
// Buf/Count/Type are packed on demand).
void classify(const uint32_t *Hdr, MPI_Comm C, int Src, int Tag, uint64_t Op,
              uint64_t Posted, const MPI_Status &S, const void *Packed,
              size_t PackedBytes, const void *Buf, MPI_Datatype Type) {
  int W = worldRank(C, S.MPI_SOURCE);
  if (W < 0)
    fatal("protocol error: message from unknown rank %d", S.MPI_SOURCE);
  placeReceived(C, S.MPI_SOURCE, S.MPI_TAG, Posted, Hdr);
  uint32_t E = Hdr[0] >> 1;
  bool SenderLogging = Hdr[0] & 1;
  if (E + 1 == L->Epoch) {
    L->LateGot[W]++;
    if (!Packed) {
      // Pack what arrived, in the program's datatype. A message may end
      // inside an element: the element is packed whole (it lies in the
      // receive buffer) and the packed bytes cut to what arrived.
      MPI_Count Bytes = 0;
      PMPI_Get_elements_x(&S, MPI_BYTE, &Bytes);
      MPI_Datatype RT = realType(Type);
      int Size;
      PMPI_Type_size(RT, &Size);
      int K = Size ? (int)((Bytes + Size - 1) / Size) : 0;
      int Cap;
      PMPI_Pack_size(K, RT, Private, &Cap);
      char *P = static_cast<char *>(scratch(Cap));
      int Pos = 0;
      if (K)
        PMPI_Pack(Buf, K, RT, P, Cap, &Pos, Private);
      record(RecKind::Late, 0, Op, handleBits(C), S.MPI_SOURCE, S.MPI_TAG, P,
             Pos < Bytes ? Pos : (int)Bytes, 0);
      scratchFree(P);
    } else {
      record(RecKind::Late, 0, Op, handleBits(C), S.MPI_SOURCE, S.MPI_TAG,
             Packed, PackedBytes, 0);
    }
    TRACE("%d epoch %u: late message from %d (tag %d) logged", L->Rank,
          L->Epoch, W, S.MPI_TAG);
    checkPeriod();
  } else if (E == L->Epoch) {
    L->RecvEp[W]++;
    if (L->M == Mode::NonDetLog) {
      if (!SenderLogging) {
        toRecvOnly("message from a rank that stopped logging");
      } else if (isWild(Src, Tag)) {
        record(RecKind::Wild, 0, Op, handleBits(C), S.MPI_SOURCE, S.MPI_TAG,
               nullptr, 0, 0);
        TRACE("%d epoch %u: wildcard receive matched %d (tag %d): logged",
              L->Rank, L->Epoch, W, S.MPI_TAG);
      }
    }
  } else if (E == L->Epoch + 1) {
    L->EarlyEp[W]++;
    if (L->NEarly == L->CapEarly) {
      uint32_t Cap = L->CapEarly ? 2 * L->CapEarly : 64;
      auto *N = static_cast<EarlyEntry *>(saved(Cap * sizeof(EarlyEntry)));
      if (L->NEarly)
        memcpy(N, L->Early, L->NEarly * sizeof(EarlyEntry));
      __ccc_free(L->Early);
      L->Early = N;
      L->CapEarly = Cap;
    }
    L->Early[L->NEarly++] = {W, Hdr[1]};
    L->Initiated = true;
    TRACE("%d epoch %u: early message from %d (seq %u) registered", L->Rank,
          L->Epoch, W, Hdr[1]);
  } else {
    fatal("protocol error: message of epoch %u from rank %d in epoch %u", E, W,
          L->Epoch);
  }
}

//===-- Replay ------------------------------------------------------------===//

bool compatible(const Record &R, MPI_Comm C, int Src, int Tag) {
  return R.Comm == handleBits(C) && (Src == MPI_ANY_SOURCE || Src == R.Src) &&
         (Tag == MPI_ANY_TAG || Tag == R.Tag);
}

void use(size_t I) {
  RP.Used[I] = true;
  RP.Left--;
  maybeEndRestore();
}

// For receive operation Op with (Src, Tag) on C during Restore: a late
// message from the log as a Message (saved heap, freed by deliver()), or
// null; a logged wildcard choice narrows Src and Tag. Posted: the layer's
// posting number of the receive (its place's order).
Message *resolve(uint64_t Op, MPI_Comm C, int *Src, int *Tag, uint64_t Posted) {
  if (L->M != Mode::Restore || !RP.N)
    return nullptr;
  size_t Found = RP.N;
  for (size_t I = 0; I < RP.N && Found == RP.N; ++I)
    if (!RP.Used[I] &&
        (RP.Recs[I].Kind == RecKind::Late ||
         RP.Recs[I].Kind == RecKind::Wild) &&
        RP.Recs[I].Op == Op && compatible(RP.Recs[I], C, *Src, *Tag))
      Found = I;
  if (Found < RP.N && RP.Recs[Found].Kind == RecKind::Wild) {
    *Src = RP.Recs[Found].Src;
    *Tag = RP.Recs[Found].Tag;
    TRACE("%d epoch %u: wildcard receive replayed from %d (tag %d)", L->Rank,
          L->Epoch, *Src, *Tag);
    use(Found);
    return nullptr;
  }
  // A late message: this operation's own, or (after the replayed part, when
  // execution may differ) the oldest one it can match, as MPI would.
  for (size_t I = 0; I < RP.N && Found == RP.N; ++I)
    if (!RP.Used[I] && RP.Recs[I].Kind == RecKind::Late &&
        compatible(RP.Recs[I], C, *Src, *Tag))
      Found = I;
  if (Found == RP.N)
    return nullptr;
  const Record &R = RP.Recs[Found];
  placeReceived(C, R.Src, R.Tag, Posted, nullptr); // not in our image
  auto *M = static_cast<Message *>(saved(sizeof(Message) + R.Bytes));
  M->Comm = C;
  M->Source = R.Src;
  M->Tag = R.Tag;
  M->Bytes = R.Bytes;
  memcpy(M->Data, RP.Payload[Found], R.Bytes);
  TRACE("%d epoch %u: late message from %d (tag %d) replayed from the log",
        L->Rank, L->Epoch, R.Src, R.Tag);
  use(Found);
  return M;
}

// Data was checked by readMessageLog: every record's payload is in it.
void loadReplay(char *Data, size_t Len) {
  RP = Replay();
  RP.Data = Data;
  size_t N = forEachLogRecord(Data, Len, [](const Record &, const char *) {});
  RP.Recs = static_cast<Record *>(scratch(N * sizeof(Record)));
  RP.Payload = static_cast<char **>(scratch(N * sizeof(char *)));
  RP.Used = static_cast<bool *>(scratch(N));
  size_t I = 0;
  forEachLogRecord(Data, Len, [&](const Record &R, const char *Payload) {
    RP.Recs[I] = R;
    RP.Payload[I] = const_cast<char *>(Payload);
    RP.Used[I++] = false;
  });
  RP.N = RP.Left = N;
}

// Exchanges the early registries: each rank learns which of its own sends
// (by destination and sequence number) were received early. Sparse, as
// the protocol's other traffic: a rank sends one message to each rank
// whose messages it received early, and nothing to the others; how many
// messages are coming is learnt without a count from everyone (which
// would be O(P) words per rank at restart) by synchronous sends and a
// non-blocking barrier entered once they are matched (Hoefler, Siebert
// and Lumsdaine's NBX): when the barrier completes, every rank's sends
// have been received. O(k) messages for k senders, O(log P) for the
// barrier.
void exchangeEarly() {
  int Size = L->Size;
  WE = static_cast<WasEarly *>(scratch(Size * sizeof(WasEarly)));
  for (int Q = 0; Q < Size; ++Q)
    WE[Q] = WasEarly();
  WasEarlyLeft = 0;
  // The sequence numbers grouped by sender: counts, offsets, then fill.
  int *At = static_cast<int *>(scratch((Size + 1) * sizeof(int)));
  memset(At, 0, (Size + 1) * sizeof(int));
  for (uint32_t I = 0; I < L->NEarly; ++I)
    At[L->Early[I].Src + 1]++;
  int Peers = 0;
  for (int Q = 0; Q < Size; ++Q) {
    Peers += At[Q + 1] > 0;
    At[Q + 1] += At[Q];
  }
  auto *SendBuf = static_cast<uint64_t *>(scratch((L->NEarly + 1) * 8));
  int *Fill = static_cast<int *>(scratch((Size + 1) * sizeof(int)));
  memcpy(Fill, At, (Size + 1) * sizeof(int));
  for (uint32_t I = 0; I < L->NEarly; ++I)
    SendBuf[Fill[L->Early[I].Src]++] = L->Early[I].Seq;
  auto *Reqs =
      static_cast<MPI_Request *>(scratch((Peers + 1) * sizeof(MPI_Request)));
  int NReqs = 0;
  for (int Q = 0; Q < Size; ++Q)
    if (At[Q + 1] > At[Q])
      PMPI_Issend(SendBuf + At[Q], At[Q + 1] - At[Q], MPI_UINT64_T, Q,
                  kEarlyTag, Private, &Reqs[NReqs++]);
  MPI_Request Barrier = MPI_REQUEST_NULL;
  for (bool Done = false; !Done;) {
    int Flag = 0;
    MPI_Status S;
    PMPI_Iprobe(MPI_ANY_SOURCE, kEarlyTag, Private, &Flag, &S);
    if (Flag) {
      int N = 0;
      PMPI_Get_count(&S, MPI_UINT64_T, &N);
      WasEarly &E = WE[S.MPI_SOURCE];
      E.Seqs = static_cast<uint64_t *>(scratch((N + 1) * 8));
      E.N = (uint32_t)N;
      PMPI_Recv(E.Seqs, N, MPI_UINT64_T, S.MPI_SOURCE, kEarlyTag, Private,
                MPI_STATUS_IGNORE);
      // Sorted, so sends are matched in order.
      for (uint32_t A = 1; A < E.N; ++A)
        for (uint32_t B = A; B > 0 && E.Seqs[B - 1] > E.Seqs[B]; --B) {
          uint64_t T = E.Seqs[B];
          E.Seqs[B] = E.Seqs[B - 1];
          E.Seqs[B - 1] = T;
        }
      WasEarlyLeft += E.N;
      continue;
    }
    if (Barrier == MPI_REQUEST_NULL) {
      int Sent = 0;
      PMPI_Testall(NReqs, Reqs, &Sent, MPI_STATUSES_IGNORE);
      if (Sent)
        PMPI_Ibarrier(Private, &Barrier);
    } else {
      int Passed = 0;
      PMPI_Test(&Barrier, &Passed, MPI_STATUS_IGNORE);
      Done = Passed;
    }
  }
  TRACE("%d epoch %u: %u early messages registered here (from %d ranks), "
        "%llu sends to suppress",
        L->Rank, L->Epoch, L->NEarly, Peers, (unsigned long long)WasEarlyLeft);
  L->NEarly = 0;
  scratchFree(Reqs);
  scratchFree(SendBuf);
  scratchFree(Fill);
  scratchFree(At);
}

} // namespace nb
using namespace nb;

//===-- Sends and receives ------------------------------------------------===//

int nbSend(const void *Buf, int Count, MPI_Datatype Type, int Dest, int Tag,
           MPI_Comm C, int Kind) {
  nbProgress();
  MPI_Comm RC = realComm(C);
  MPI_Datatype RT = realType(Type);
  typedef int (*Fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
  static const Fn Fns[4] = {PMPI_Send, PMPI_Ssend, PMPI_Bsend, PMPI_Rsend};
  if (Dest == MPI_PROC_NULL)
    return Fns[Kind](Buf, Count, RT, Dest, Tag, RC);
  int W = worldRank(C, Dest);
  if (W < 0)
    return Fns[Kind](Buf, Count, RT, Dest, Tag, RC); // MPI reports the error
  if (Kind != kBuffered && nbCheckpointOpen()) {
    // A synchronous or large send blocks in MPI until its receive is
    // posted, which may come only after the commit: a request waited for
    // while answering control messages (waitOne), as in nbRecv.
    MPI_Request H;
    int E = nbIsend(Buf, Count, Type, Dest, Tag, C, Kind, &H);
    return E == MPI_SUCCESS ? MPI_Wait(&H, MPI_STATUS_IGNORE) : E;
  }
  uint64_t &Place = sentOn(C, W, Tag);
  if (suppress(W, &Place))
    return MPI_SUCCESS;
  int R;
  bool Contiguous;
  if (int N = packedBytes(Count, RT, &Contiguous); N >= 0) {
    alignas(8) char Msg[kMaxHeaderBytes + kPackMax];
    fillHeader(reinterpret_cast<uint32_t *>(Msg), W, Place);
    packData(Msg + HeaderBytes, Buf, Count, RT, N, Contiguous);
    R = Fns[Kind](Msg, HeaderBytes + N, MPI_BYTE, Dest, Tag, RC);
  } else {
    uint32_t Hdr[kMaxHeaderBytes / 4];
    fillHeader(Hdr, W, Place);
    MPI_Datatype T = withHeader(Hdr, Buf, Count, RT);
    R = Fns[Kind](MPI_BOTTOM, 1, T, Dest, Tag, RC);
    PMPI_Type_free(&T);
  }
  if (R == MPI_SUCCESS) {
    L->SentEp[W]++;
    Place++;
  }
  return R;
}

int nbIsend(const void *Buf, int Count, MPI_Datatype Type, int Dest, int Tag,
            MPI_Comm C, int Kind, MPI_Request *Out) {
  nbProgress();
  MPI_Comm RC = realComm(C);
  MPI_Datatype RT = realType(Type);
  typedef int (*Fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm,
                    MPI_Request *);
  static const Fn Fns[4] = {PMPI_Isend, PMPI_Issend, PMPI_Ibsend, PMPI_Irsend};
  Request *R;
  MPI_Request H = newRequest(ReqKind::Send, &R);
  R->Peer = Dest;
  R->Tag = Tag;
  R->Comm = C;
  int W = Dest == MPI_PROC_NULL ? -1 : worldRank(C, Dest);
  int Err;
  bool Contiguous;
  uint64_t Unused = 0;
  uint64_t &Place = W < 0 ? Unused : sentOn(C, W, Tag);
  if (W < 0) {
    R->Raw = true;
    Err = Fns[Kind](Buf, Count, RT, Dest, Tag, RC, &R->Real);
  } else if (suppress(W, &Place)) {
    R->Done = true;
    R->Status.MPI_ERROR = MPI_SUCCESS;
    Err = MPI_SUCCESS;
  } else if (int N = packedBytes(Count, RT, &Contiguous); N >= 0) {
    // The block lives until the request is released.
    auto *Msg = reinterpret_cast<char *>(newHeader(*R, HeaderBytes + N));
    R->Packed = true;
    fillHeader(R->Hdr, W, Place);
    packData(Msg + HeaderBytes, Buf, Count, RT, N, Contiguous);
    Err = Fns[Kind](Msg, HeaderBytes + N, MPI_BYTE, Dest, Tag, RC, &R->Real);
    if (Err == MPI_SUCCESS)
      L->SentEp[W]++, Place++;
  } else {
    uint32_t *Hdr = headerOf(*R);
    fillHeader(Hdr, W, Place);
    MPI_Datatype T = withHeader(Hdr, Buf, Count, RT);
    Err = Fns[Kind](MPI_BOTTOM, 1, T, Dest, Tag, RC, &R->Real);
    PMPI_Type_free(&T);
    if (Err == MPI_SUCCESS)
      L->SentEp[W]++, Place++;
  }
  if (Err != MPI_SUCCESS) {
    releaseRequest(H);
    return Err;
  }
  *Out = H;
  return MPI_SUCCESS;
}

int nbRecv(void *Buf, int Count, MPI_Datatype Type, int Src, int Tag,
           MPI_Comm C, MPI_Status *Status) {
  nbProgress();
  if (Message *M = takePending(C, Src, Tag, true))
    return KeptError(Status)(deliver(M, Buf, Count, Type, Status));
  if (nbCheckpointOpen() && Src != MPI_PROC_NULL) {
    // A request waited for while answering control messages (waitOne).
    MPI_Request H;
    int E = nbIrecv(Buf, Count, Type, Src, Tag, C, &H);
    return E == MPI_SUCCESS ? MPI_Wait(&H, Status) : E;
  }
  MPI_Status Local;
  MPI_Status *S = Status == MPI_STATUS_IGNORE ? &Local : Status;
  MPI_Datatype RT = realType(Type);
  if (Src == MPI_PROC_NULL)
    return PMPI_Recv(Buf, Count, RT, Src, Tag, realComm(C), S);
  uint64_t Op = ++L->RecvSeq;
  int PSrc = Src, PTag = Tag;
  uint64_t Posted = newPosting();
  if (Message *M = resolve(Op, C, &Src, &Tag, Posted))
    return KeptError(Status)(deliver(M, Buf, Count, Type, Status));
  int R;
  bool Contiguous;
  if (int N = packedBytes(Count, RT, &Contiguous); N >= 0) {
    alignas(8) char Msg[kMaxHeaderBytes + kPackMax];
    R = PMPI_Recv(Msg, HeaderBytes + N, MPI_BYTE, Src, Tag, realComm(C), S);
    if (messageArrived(R)) {
      unpackReceived(Msg, Buf, Count, RT, N, Contiguous, *S);
      classify(reinterpret_cast<uint32_t *>(Msg), C, PSrc, PTag, Op, Posted, *S,
               nullptr, 0, Buf, Type);
    }
    return R;
  }
  uint32_t Hdr[kMaxHeaderBytes / 4];
  MPI_Datatype T = withHeader(Hdr, Buf, Count, RT);
  R = PMPI_Recv(MPI_BOTTOM, 1, T, Src, Tag, realComm(C), S);
  PMPI_Type_free(&T);
  if (messageArrived(R)) {
    stripHeader(*S);
    classify(Hdr, C, PSrc, PTag, Op, Posted, *S, nullptr, 0, Buf, Type);
  }
  return R;
}

// Posts receive request R (Op already assigned) to MPI, unless the log
// completes it. A request open across the line keeps its posting number:
// a restart posts those again in that order (nbAfterRestore).
void postReceive(Request &R) {
  int Src = R.Peer, Tag = R.Tag;
  if (!R.Posted && Src != MPI_PROC_NULL)
    R.Posted = newPosting();
  if (Message *M = resolve(R.Op, R.Comm, &Src, &Tag, R.Posted)) {
    deliver(M, R.Buf, R.Count, R.Type, &R.Status);
    R.Done = true;
    R.Posted = 0;
    postingEnded();
    return;
  }
  if (Src == MPI_PROC_NULL) {
    R.Raw = true;
    PMPI_Irecv(R.Buf, R.Count, realType(R.Type), Src, Tag, realComm(R.Comm),
               &R.Real);
    return;
  }
  bool Contiguous;
  if (int N = packedBytes(R.Count, realType(R.Type), &Contiguous); N >= 0) {
    newHeader(R, HeaderBytes + N);
    R.Packed = true;
    PMPI_Irecv(R.Hdr, HeaderBytes + N, MPI_BYTE, Src, Tag, realComm(R.Comm),
               &R.Real);
    return;
  }
  R.Packed = false;
  uint32_t *Hdr = headerOf(R);
  MPI_Datatype T = withHeader(Hdr, R.Buf, R.Count, realType(R.Type));
  PMPI_Irecv(MPI_BOTTOM, 1, T, Src, Tag, realComm(R.Comm), &R.Real);
  PMPI_Type_free(&T);
}

int nbIrecv(void *Buf, int Count, MPI_Datatype Type, int Src, int Tag,
            MPI_Comm C, MPI_Request *Out) {
  nbProgress();
  Request *R;
  MPI_Request H = newRequest(ReqKind::Recv, &R);
  R->Buf = Buf;
  R->Count = Count;
  R->Type = Type;
  R->Peer = Src;
  R->Tag = Tag;
  R->Comm = C;
  if (Message *M = takePending(C, Src, Tag, true)) {
    deliver(M, Buf, Count, Type, &R->Status);
    R->Done = true;
    *Out = H;
    return MPI_SUCCESS;
  }
  if (Src != MPI_PROC_NULL)
    R->Op = ++L->RecvSeq;
  postReceive(*R);
  *Out = H;
  return MPI_SUCCESS;
}

void nbCompleted(Request &R, MPI_Status &S) {
  if (R.Raw || R.Kind != ReqKind::Recv)
    return;
  uint64_t Posted = R.Posted;
  R.Posted = 0; // its outcome is known: it holds up no other place
  if (statusCancelled(S)) {
    postingEnded();
    return;
  }
  if (R.Packed) {
    MPI_Datatype RT = realType(R.Type);
    bool Contiguous;
    int N = packedBytes(R.Count, RT, &Contiguous);
    unpackReceived(reinterpret_cast<char *>(R.Hdr), R.Buf, R.Count, RT, N,
                   Contiguous, S);
  } else
    stripHeader(S);
  classify(headerOf(R), R.Comm, R.Peer, R.Tag, R.Op, Posted, S, nullptr, 0,
           R.Buf, R.Type);
}

// PMPI_Probe that, while a checkpoint is open, keeps answering control
// messages.
static void probeAnswering(int Src, int Tag, MPI_Comm RealC, MPI_Status *S) {
  int Flag;
  if (!pollWhileCheckpointOpen([&] {
        PMPI_Iprobe(Src, Tag, RealC, &Flag, S);
        return Flag != 0;
      }))
    PMPI_Probe(Src, Tag, RealC, S);
}

// Probes see messages as the program would: the layer receives a probed
// message into L->Pending (classifying it then) and reports that.
bool nbProbe(int Src, int Tag, MPI_Comm C, bool Block, MPI_Status *Status) {
  nbProgress();
  if (Src == MPI_PROC_NULL) {
    int Flag = 1;
    if (Block)
      PMPI_Probe(Src, Tag, realComm(C), Status);
    else
      PMPI_Iprobe(Src, Tag, realComm(C), &Flag, Status);
    return Flag;
  }
  Event E = Block ? Event::Probe : Event::Iprobe;
  int64_t V[3];
  int NV;
  bool Replayed = replayEvent(E, V, 3, &NV);
  if (Replayed) {
    if (!V[0])
      return false;
    Src = (int)V[1];
    Tag = (int)V[2];
  }
  Message *M = takePending(C, Src, Tag, false);
  if (!M) {
    uint64_t Op = 0;
    int RSrc = Src, RTag = Tag;
    // A late message in the log is older than anything MPI holds.
    if (L->M == Mode::Restore) {
      Op = ++L->RecvSeq;
      M = resolve(Op, C, &RSrc, &RTag, newPosting());
    }
    if (!M) {
      MPI_Status S;
      int Flag = 1;
      if (Block || Replayed)
        probeAnswering(RSrc, RTag, realComm(C), &S);
      else
        PMPI_Iprobe(RSrc, RTag, realComm(C), &Flag, &S);
      if (!Flag) {
        if (Op)
          --L->RecvSeq; // nothing received: no operation
        int64_t Zero = 0;
        logEvent(E, &Zero, 1);
        return false;
      }
      if (!Op)
        Op = ++L->RecvSeq;
      MPI_Count Bytes;
      PMPI_Get_elements_x(&S, MPI_BYTE, &Bytes);
      char *Raw = static_cast<char *>(scratch(Bytes));
      uint64_t Posted = newPosting();
      PMPI_Recv(Raw, (int)Bytes, MPI_BYTE, S.MPI_SOURCE, S.MPI_TAG, realComm(C),
                &S);
      uint32_t Hdr[kMaxHeaderBytes / 4];
      memcpy(Hdr, Raw, HeaderBytes);
      size_t Data = Bytes - HeaderBytes;
      M = static_cast<Message *>(saved(sizeof(Message) + Data));
      M->Comm = C;
      M->Source = S.MPI_SOURCE;
      M->Tag = S.MPI_TAG;
      M->Bytes = Data;
      memcpy(M->Data, Raw + HeaderBytes, Data);
      scratchFree(Raw);
      stripHeader(S);
      classify(Hdr, C, Src, Tag, Op, Posted, S, M->Data, Data, nullptr,
               MPI_BYTE);
    }
    (L->PendingTail ? L->PendingTail->Next : L->Pending) = M;
    L->PendingTail = M;
  }
  int64_t Got[3] = {1, M->Source, M->Tag};
  logEvent(E, Got, 3);
  if (Status != MPI_STATUS_IGNORE) {
    Status->MPI_SOURCE = M->Source;
    Status->MPI_TAG = M->Tag;
    if (kProbeSetsError)
      Status->MPI_ERROR = MPI_SUCCESS;
    PMPI_Status_set_cancelled(Status, 0);
    PMPI_Status_set_elements_x(Status, MPI_BYTE, (MPI_Count)M->Bytes);
  }
  return true;
}

int elementBytesIfContiguous(MPI_Datatype RealType) {
  return contiguousSize(RealType);
}

void forgetTypeShapes() {
  for (TypeShape &E : Shapes)
    E.Valid = false;
}

//===-- Nondeterministic outcomes -----------------------------------------===//

void logEvent(Event E, const int64_t *Vals, int NVals) {
  if (L->M != Mode::NonDetLog)
    return;
  record(RecKind::Event, (uint8_t)E, 0, 0, 0, 0, Vals, NVals * 8, NVals);
}

bool replayEvent(Event E, int64_t *Vals, int MaxVals, int *NVals) {
  if (L->M != Mode::Restore)
    return false;
  while (RP.NextEvent < RP.N && (RP.Recs[RP.NextEvent].Kind != RecKind::Event ||
                                 RP.Used[RP.NextEvent]))
    RP.NextEvent++;
  if (RP.NextEvent >= RP.N)
    return false;
  const Record &R = RP.Recs[RP.NextEvent];
  if (R.Ev != (uint8_t)E)
    fatal("restart replay diverged: the log has event %d where the program "
          "made call %d (is the program deterministic apart from MPI?)",
          R.Ev, (int)E);
  int N = R.NVals < MaxVals ? R.NVals : MaxVals;
  memcpy(Vals, RP.Payload[RP.NextEvent], N * 8);
  *NVals = R.NVals;
  static const char *const Names[] = {"Test",    "Testany", "Testsome",
                                      "Testall", "Waitany", "Waitsome",
                                      "Iprobe",  "Probe"};
  TRACE("%d epoch %u: %s outcome replayed from the log (%lld)", L->Rank,
        L->Epoch, Names[R.Ev], (long long)(N ? Vals[0] : 0));
  use(RP.NextEvent);
  return true;
}

} // namespace mpi
} // namespace ccc
