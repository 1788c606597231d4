//===- ProtocolCollectives.cpp - C3: collectives at their end points ------===//
//
// Part of the non-blocking protocol (Protocol.cpp): how a collective is
// classified, logged when it crosses the recovery line, and emulated from
// the log after a restart.
//
//===----------------------------------------------------------------------===//
#include "Layer.h"
#include "ProtocolInternal.h"

#include "../rt/Log.h"

#include <cstring>

namespace ccc {
namespace mpi {
using namespace nb;

//===-- Collectives at their end points (C3, section 4.3) -----------------===//
//
// MPI's own collective moves the data. Before it every member publishes
// its header word (epoch, logging bit) with a small Allgather, so each
// receiving end point can classify each stream as a receive would. When
// the members' epochs differ the collective crossed a recovery line: the
// members past their checkpoint (all logging: none can have heard every
// Checkpoint-Initiated, the one from a member before its checkpoint is not
// sent yet) record the header words and the late streams' data. A restart
// re-executes that collective only on those members; they find the record
// and emulate it with point-to-point: late streams from the log, streams to
// members before their checkpoint suppressed, the rest sent on CollComm.
// Members whose epochs agree all re-execute it or none does, so they call
// MPI's collective again. Collective streams are counted like messages.

namespace {

int collTag(MPI_Comm C) {
  if (C == MPI_COMM_WORLD)
    return 1;
  if (C == MPI_COMM_SELF)
    return 2;
  Object *O = object(C);
  return O ? O->CollTag : 0;
}

size_t findColl(uint64_t Seq, MPI_Comm C) {
  if (L->M != Mode::Restore)
    return RP.N;
  for (size_t I = 0; I < RP.N; ++I)
    if (!RP.Used[I] && RP.Recs[I].Kind == RecKind::Coll &&
        RP.Recs[I].Op == Seq && RP.Recs[I].Comm == handleBits(C))
      return I;
  return RP.N;
}

// Classifies the streams of collective Seq once MPI completed it.
void classifyColl(MPI_Comm C, uint64_t Seq, int N, int Me, const uint32_t *Hdrs,
                  const CollBlock *In, const CollBlock *Out) {
  uint32_t Max = 0, Min = ~0u;
  for (int S = 0; S < N; ++S) {
    uint32_t E = Hdrs[S] >> 1;
    Max = E > Max ? E : Max;
    Min = E < Min ? E : Min;
  }
  bool Record = Min != Max && L->Epoch == Max;
  if (Record && L->M != Mode::NonDetLog && L->M != Mode::RecvOnlyLog)
    fatal("protocol error: collective across the line in mode %s",
          modeName(L->M));
  Buffer Data;
  if (Record)
    Data.append(Hdrs, N * sizeof(uint32_t));
  int NLate = 0, NEarly = 0;
  bool StopLogging = false;
  for (int S = 0; S < N; ++S) {
    if (S == Me || In[S].Count < 0)
      continue;
    int W = worldRank(C, S);
    uint32_t E = Hdrs[S] >> 1;
    if (E + 1 == L->Epoch) {
      L->LateGot[W]++;
      NLate++;
      MPI_Datatype T = realType(In[S].Type);
      int Cap;
      PMPI_Pack_size(In[S].Count, T, Private, &Cap);
      char *P = static_cast<char *>(scratch(Cap ? Cap : 1));
      int Pos = 0;
      PMPI_Pack(In[S].Buf, In[S].Count, T, P, Cap, &Pos, Private);
      uint64_t Len = Pos;
      Data.append(&Len, sizeof(Len));
      Data.append(P, Len);
      scratchFree(P);
    } else if (E == L->Epoch) {
      L->RecvEp[W]++;
      StopLogging |= L->M == Mode::NonDetLog && !(Hdrs[S] & 1);
    } else if (E == L->Epoch + 1) {
      L->EarlyEp[W]++;
      L->Initiated = true;
      NEarly++;
    } else {
      fatal("protocol error: collective with rank %d of epoch %u in epoch %u",
            W, E, L->Epoch);
    }
  }
  for (int D = 0; D < N; ++D)
    if (D != Me && Out[D].Count >= 0)
      L->SentEp[worldRank(C, D)]++;
  if (Record) {
    record(RecKind::Coll, 0, Seq, handleBits(C), 0, 0, Data.Data, Data.Len, 0);
    TRACE("%d epoch %u: collective %llu crossed the line: %d late streams "
          "logged",
          L->Rank, L->Epoch, (unsigned long long)Seq, NLate);
  }
  if (NEarly)
    TRACE("%d epoch %u: collective %llu: %d early streams", L->Rank, L->Epoch,
          (unsigned long long)Seq, NEarly);
  __libc_free(Data.Data);
  if (StopLogging)
    toRecvOnly("collective with a rank that stopped logging");
  if (NLate)
    checkPeriod();
}

// Re-executes collective record I on the members past the line.
void emulateColl(size_t I, MPI_Comm C, int N, int Me, const CollBlock *In,
                 const CollBlock *Out) {
  const char *P = RP.Payload[I];
  const uint32_t *Hdrs = reinterpret_cast<const uint32_t *>(P);
  const char *Q = P + N * sizeof(uint32_t);
  uint32_t Max = 0;
  for (int S = 0; S < N; ++S)
    Max = (Hdrs[S] >> 1) > Max ? Hdrs[S] >> 1 : Max;
  if (Max != L->Epoch || (Hdrs[Me] >> 1) != Max)
    fatal("restart replay diverged: a logged collective does not match this "
          "rank (is the program deterministic apart from MPI?)");
  int Tag = collTag(C);
  auto *Reqs = static_cast<MPI_Request *>(scratch(2 * N * sizeof(MPI_Request)));
  int NR = 0, FromLog = 0, Suppressed = 0;
  for (int S = 0; S < N; ++S) {
    if (S == Me || In[S].Count < 0)
      continue;
    MPI_Datatype T = realType(In[S].Type);
    if ((Hdrs[S] >> 1) != Max) {
      uint64_t Len;
      memcpy(&Len, Q, sizeof(Len));
      int Pos = 0;
      PMPI_Unpack(Q + sizeof(Len), (int)Len, &Pos, In[S].Buf, In[S].Count, T,
                  Private);
      Q += sizeof(Len) + Len;
      FromLog++;
    } else {
      PMPI_Irecv(In[S].Buf, In[S].Count, T, worldRank(C, S), Tag, CollComm,
                 &Reqs[NR++]);
      L->RecvEp[worldRank(C, S)]++;
    }
  }
  for (int D = 0; D < N; ++D) {
    if (D == Me || Out[D].Count < 0)
      continue;
    int W = worldRank(C, D);
    L->SentEp[W]++;
    if ((Hdrs[D] >> 1) == Max)
      PMPI_Isend(Out[D].Buf, Out[D].Count, realType(Out[D].Type), W, Tag,
                 CollComm, &Reqs[NR++]);
    else
      Suppressed++;
  }
  if (In[Me].Count >= 0 && Out[Me].Count >= 0)
    copyTyped(Out[Me].Buf, Out[Me].Count, Out[Me].Type, In[Me].Buf,
              In[Me].Count, In[Me].Type);
  PMPI_Waitall(NR, Reqs, MPI_STATUSES_IGNORE);
  scratchFree(Reqs);
  TRACE("%d epoch %u: collective %llu re-executed across the line: %d "
        "streams from the log, %d suppressed",
        L->Rank, L->Epoch, (unsigned long long)RP.Recs[I].Op, FromLog,
        Suppressed);
  use(I);
}

} // namespace

int nbCollective(MPI_Comm C, const CollBlock *In, const CollBlock *Out,
                 NativeColl Native, void *Arg, bool Carries) {
  nbProgress();
  MPI_Comm RC = realComm(C);
  int N, Me;
  PMPI_Comm_size(RC, &N);
  PMPI_Comm_rank(RC, &Me);
  uint32_t Mine = L->Epoch << 1 | (L->M == Mode::NonDetLog ? 1 : 0);
  if (N == 1) {
    uint32_t Hdr;
    return Native ? Native(Arg, Mine, &Hdr) : MPI_SUCCESS;
  }
  uint64_t Seq = L->CollSeq++;
  size_t I = findColl(Seq, C);
  if (I < RP.N) {
    emulateColl(I, C, N, Me, In, Out);
    return MPI_SUCCESS;
  }
  auto *Hdrs = static_cast<uint32_t *>(scratch(N * sizeof(uint32_t)));
  // Before MPI's collective, not alongside it: an Iallgather left pending
  // during a large MPI_Alltoallv made it 20 times slower (Open MPI 4.1).
  if (!Carries || !Native)
    PMPI_Allgather(&Mine, 1, MPI_UINT32_T, Hdrs, 1, MPI_UINT32_T, RC);
  int R = Native ? Native(Arg, Mine, Hdrs) : MPI_SUCCESS;
  if (R == MPI_SUCCESS)
    classifyColl(C, Seq, N, Me, Hdrs, In, Out);
  scratchFree(Hdrs);
  return R;
}

} // namespace mpi
} // namespace ccc
