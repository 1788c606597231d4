//===- CollectivesOverP2P.cpp - Collectives for the non-blocking protocol -===//
//
// Under CCC_PROTOCOL=nonblocking a collective may cross a recovery line:
// some ranks call it before their checkpoint, others after. Built from the
// protocol's own point-to-point messages, every piece of a collective is
// classified, logged or suppressed like any message, so a restart replays
// it correctly (C3, section 4.3, with the end points as streams of
// messages). They run on the layer's communicator (world ranks) with the
// program communicator's number as tag, so they never match the program's
// receives. Reductions combine in rank order: results are deterministic and
// need no log. Linear algorithms: meant for correctness at the rank counts
// of checkpointed test jobs, not for speed (see docs/mpi.md).
//
//===----------------------------------------------------------------------===//
#include "Layer.h"

#include <cstring>

namespace ccc {
namespace mpi {
namespace {

struct Group {
  MPI_Comm C;
  int Rank, Size, Tag;
};

Group group(MPI_Comm C) {
  Group G;
  G.C = C;
  PMPI_Comm_rank(realComm(C), &G.Rank);
  PMPI_Comm_size(realComm(C), &G.Size);
  uint32_t I;
  if (C == MPI_COMM_WORLD)
    G.Tag = 1;
  else if (C == MPI_COMM_SELF)
    G.Tag = 2;
  else if (decodeHandle(C, kHandleObj, &I))
    G.Tag = 3 + (int)I;
  else
    G.Tag = 0;
  return G;
}

int sendTo(const Group &G, int R, const void *B, int N, MPI_Datatype T) {
  return nbSend(B, N, T, worldRank(G.C, R), G.Tag, collHandle(), 0);
}

int isendTo(const Group &G, int R, const void *B, int N, MPI_Datatype T,
            MPI_Request *Req) {
  return nbIsend(B, N, T, worldRank(G.C, R), G.Tag, collHandle(), 0, Req);
}

int recvFrom(const Group &G, int R, void *B, int N, MPI_Datatype T) {
  return nbRecv(B, N, T, worldRank(G.C, R), G.Tag, collHandle(),
                MPI_STATUS_IGNORE);
}

MPI_Aint extent(MPI_Datatype T) {
  MPI_Aint Lb, Ext;
  PMPI_Type_get_extent(realType(T), &Lb, &Ext);
  return Ext;
}

char *at(const void *B, MPI_Aint Off) {
  return static_cast<char *>(const_cast<void *>(B)) + Off;
}

// A temporary buffer for N elements of T; Base is where element 0 goes.
struct Temp {
  char *Mem = nullptr, *Base = nullptr;
  Temp(int N, MPI_Datatype T) {
    MPI_Aint Lb, Ext, TLb, TExt;
    PMPI_Type_get_extent(realType(T), &Lb, &Ext);
    PMPI_Type_get_true_extent(realType(T), &TLb, &TExt);
    size_t Bytes = N > 0 ? (size_t)(N - 1) * Ext + TExt : 1;
    Mem = static_cast<char *>(scratch(Bytes ? Bytes : 1));
    Base = Mem - TLb;
  }
  ~Temp() { scratchFree(Mem); }
};

void copy(const void *From, void *To, int N, MPI_Datatype T) {
  PMPI_Sendrecv(From, N, realType(T), 0, 0, To, N, realType(T), 0, 0,
                MPI_COMM_SELF, MPI_STATUS_IGNORE);
}

void waitAll(int N, MPI_Request *Reqs) {
  MPI_Waitall(N, Reqs, MPI_STATUSES_IGNORE);
}

} // namespace

int p2pBcast(void *B, int N, MPI_Datatype T, int Root, MPI_Comm C) {
  Group G = group(C);
  if (G.Rank != Root)
    return recvFrom(G, Root, B, N, T);
  for (int R = 0; R < G.Size; ++R)
    if (R != Root)
      sendTo(G, R, B, N, T);
  return MPI_SUCCESS;
}

int p2pBarrier(MPI_Comm C) {
  Group G = group(C);
  char X = 0;
  if (G.Rank != 0) {
    sendTo(G, 0, &X, 0, MPI_BYTE);
    return recvFrom(G, 0, &X, 0, MPI_BYTE);
  }
  for (int R = 1; R < G.Size; ++R)
    recvFrom(G, R, &X, 0, MPI_BYTE);
  for (int R = 1; R < G.Size; ++R)
    sendTo(G, R, &X, 0, MPI_BYTE);
  return MPI_SUCCESS;
}

int p2pReduce(const void *S, void *Out, int N, MPI_Datatype T, MPI_Op Op,
              int Root, MPI_Comm C) {
  Group G = group(C);
  const void *Mine = S == MPI_IN_PLACE ? Out : S;
  if (G.Rank != Root)
    return sendTo(G, Root, Mine, N, T);
  // Acc = v[0] op (v[1] op (... op v[n-1])), the order MPI defines.
  Temp Acc(N, T), In(N, T);
  for (int R = G.Size - 1; R >= 0; --R) {
    const void *V = Mine;
    if (R != Root) {
      recvFrom(G, R, In.Base, N, T);
      V = In.Base;
    }
    if (R == G.Size - 1)
      copy(V, Acc.Base, N, T);
    else
      PMPI_Reduce_local(V, Acc.Base, N, realType(T), realOp(Op));
  }
  copy(Acc.Base, Out, N, T);
  return MPI_SUCCESS;
}

int p2pAllreduce(const void *S, void *Out, int N, MPI_Datatype T, MPI_Op Op,
                 MPI_Comm C) {
  Group G = group(C);
  if (G.Rank == 0)
    p2pReduce(S, Out, N, T, Op, 0, C);
  else
    p2pReduce(S == MPI_IN_PLACE ? Out : S, nullptr, N, T, Op, 0, C);
  return p2pBcast(Out, N, T, 0, C);
}

int p2pScan(const void *S, void *Out, int N, MPI_Datatype T, MPI_Op Op,
            MPI_Comm C, bool Exclusive) {
  Group G = group(C);
  Temp Mine(N, T), Prev(N, T);
  copy(S == MPI_IN_PLACE ? Out : S, Mine.Base, N, T);
  if (G.Rank > 0) {
    recvFrom(G, G.Rank - 1, Prev.Base, N, T);
    if (Exclusive)
      copy(Prev.Base, Out, N, T);
    // Mine = prefix op mine.
    PMPI_Reduce_local(Prev.Base, Mine.Base, N, realType(T), realOp(Op));
  }
  if (!Exclusive)
    copy(Mine.Base, Out, N, T);
  if (G.Rank + 1 < G.Size)
    sendTo(G, G.Rank + 1, Mine.Base, N, T);
  return MPI_SUCCESS;
}

int p2pGatherv(const void *S, int SN, MPI_Datatype ST, void *Out, const int *RN,
               const int *Displs, int RNAll, MPI_Datatype RT, int Root,
               MPI_Comm C) {
  Group G = group(C);
  if (G.Rank != Root)
    return sendTo(G, Root, S, SN, ST);
  MPI_Aint Ext = extent(RT);
  for (int R = 0; R < G.Size; ++R) {
    int Count = RN ? RN[R] : RNAll;
    MPI_Aint Off = (RN ? (MPI_Aint)Displs[R] : (MPI_Aint)R * RNAll) * Ext;
    if (R == Root) {
      if (S != MPI_IN_PLACE)
        copyTyped(S, SN, ST, at(Out, Off), Count, RT);
    } else {
      recvFrom(G, R, at(Out, Off), Count, RT);
    }
  }
  return MPI_SUCCESS;
}

int p2pScatterv(const void *S, const int *SN, const int *Displs, int SNAll,
                MPI_Datatype ST, void *Out, int RN, MPI_Datatype RT, int Root,
                MPI_Comm C) {
  Group G = group(C);
  if (G.Rank != Root)
    return recvFrom(G, Root, Out, RN, RT);
  MPI_Aint Ext = extent(ST);
  for (int R = 0; R < G.Size; ++R) {
    int Count = SN ? SN[R] : SNAll;
    MPI_Aint Off = (SN ? (MPI_Aint)Displs[R] : (MPI_Aint)R * SNAll) * Ext;
    if (R == Root) {
      if (Out != MPI_IN_PLACE)
        copyTyped(at(S, Off), Count, ST, Out, RN, RT);
    } else {
      sendTo(G, R, at(S, Off), Count, ST);
    }
  }
  return MPI_SUCCESS;
}

int p2pAlltoallv(const void *S, const int *SN, const int *SD, int SNAll,
                 MPI_Datatype ST, void *Out, const int *RN, const int *RD,
                 int RNAll, MPI_Datatype RT, MPI_Comm C) {
  Group G = group(C);
  MPI_Aint SExt = extent(ST), RExt = extent(RT);
  // In place: what to send is in Out; keep a copy.
  char *Copy = nullptr;
  if (S == MPI_IN_PLACE) {
    MPI_Aint Last = 0;
    for (int R = 0; R < G.Size; ++R) {
      MPI_Aint End = ((RN ? RD[R] : R * RNAll) + (RN ? RN[R] : RNAll)) * RExt;
      if (End > Last)
        Last = End;
    }
    Copy = static_cast<char *>(scratch(Last ? Last : 1));
    memcpy(Copy, Out, Last);
    S = Copy;
    SN = RN;
    SD = RD;
    SNAll = RNAll;
    ST = RT;
    SExt = RExt;
  }
  auto *Reqs =
      static_cast<MPI_Request *>(scratch(G.Size * sizeof(MPI_Request)));
  int NReq = 0;
  for (int I = 1; I <= G.Size; ++I) {
    int R = (G.Rank + I) % G.Size; // everyone starts with a different peer
    MPI_Aint Off = (SN ? (MPI_Aint)SD[R] : (MPI_Aint)R * SNAll) * SExt;
    if (R != G.Rank)
      isendTo(G, R, at(S, Off), SN ? SN[R] : SNAll, ST, &Reqs[NReq++]);
  }
  for (int I = 1; I <= G.Size; ++I) {
    int R = (G.Rank - I + G.Size) % G.Size;
    MPI_Aint ROff = (RN ? (MPI_Aint)RD[R] : (MPI_Aint)R * RNAll) * RExt;
    if (R == G.Rank) {
      MPI_Aint SOff = (SN ? (MPI_Aint)SD[R] : (MPI_Aint)R * SNAll) * SExt;
      copyTyped(at(S, SOff), SN ? SN[R] : SNAll, ST, at(Out, ROff),
                RN ? RN[R] : RNAll, RT);
    } else {
      recvFrom(G, R, at(Out, ROff), RN ? RN[R] : RNAll, RT);
    }
  }
  waitAll(NReq, Reqs);
  scratchFree(Reqs);
  scratchFree(Copy);
  return MPI_SUCCESS;
}

int p2pAllgatherv(const void *S, int SN, MPI_Datatype ST, void *Out,
                  const int *RN, const int *Displs, int RNAll, MPI_Datatype RT,
                  MPI_Comm C) {
  Group G = group(C);
  MPI_Aint Ext = extent(RT);
  if (S == MPI_IN_PLACE) {
    MPI_Aint Off =
        (RN ? (MPI_Aint)Displs[G.Rank] : (MPI_Aint)G.Rank * RNAll) * Ext;
    S = at(Out, Off);
    SN = RN ? RN[G.Rank] : RNAll;
    ST = RT;
    if (G.Rank == 0) {
      // Rank 0's block is in place already; gather the rest.
      for (int R = 1; R < G.Size; ++R) {
        MPI_Aint O = (RN ? (MPI_Aint)Displs[R] : (MPI_Aint)R * RNAll) * Ext;
        recvFrom(G, R, at(Out, O), RN ? RN[R] : RNAll, RT);
      }
    } else {
      sendTo(G, 0, S, SN, ST);
    }
  } else {
    p2pGatherv(S, SN, ST, Out, RN, Displs, RNAll, RT, 0, C);
  }
  for (int R = 0; R < G.Size; ++R) {
    MPI_Aint O = (RN ? (MPI_Aint)Displs[R] : (MPI_Aint)R * RNAll) * Ext;
    p2pBcast(at(Out, O), RN ? RN[R] : RNAll, RT, 0, C);
  }
  return MPI_SUCCESS;
}

// Copies between two typed buffers with possibly different datatypes (as a
// message to oneself would).
void copyTyped(const void *From, int FN, MPI_Datatype FT, void *To, int TN,
               MPI_Datatype TT) {
  PMPI_Sendrecv(From, FN, realType(FT), 0, 0, To, TN, realType(TT), 0, 0,
                MPI_COMM_SELF, MPI_STATUS_IGNORE);
}

} // namespace mpi
} // namespace ccc
