//===- CollectivesAtEndPoints.cpp - Collectives, non-blocking protocol ----===//
//
// Under CCC_PROTOCOL=nonblocking a collective may cross a recovery line:
// some members call it before their checkpoint, others after. Each
// collective here is described by its streams (what this rank sends to and
// receives from each member) and run by nbCollective (Protocol.cpp): MPI's
// own algorithm moves the data, the protocol classifies the streams at
// their end points, and a restart re-executes a collective that crossed the
// line from the streams and the log (C3, section 4.3).
//
// Reductions gather the members' contributions (MPI_Gather, MPI_Allgather,
// MPI_Alltoallv) and combine them here in rank order, as C3 does for
// MPI_Reduce: the result is then the same bits whether MPI's collective ran
// or a restart re-executed it from the log, and does not depend on where
// checkpoints fell. The cost is memory and bandwidth: members x count per
// reduction, except large Allreduces (slices, see nbAllreduce).
//
//===----------------------------------------------------------------------===//
#include "Layer.h"

#include <cstring>

namespace ccc {
namespace mpi {
namespace {

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
  Temp(int64_t N, MPI_Datatype T) {
    MPI_Aint Lb, Ext, TLb, TExt;
    PMPI_Type_get_extent(realType(T), &Lb, &Ext);
    PMPI_Type_get_true_extent(realType(T), &TLb, &TExt);
    size_t Bytes = N > 0 ? (size_t)(N - 1) * Ext + TExt : 1;
    Mem = static_cast<char *>(scratch(Bytes ? Bytes : 1));
    Base = Mem - TLb;
  }
  ~Temp() { scratchFree(Mem); }
  Temp(const Temp &) = delete;
  Temp &operator=(const Temp &) = delete;
};

// The streams of one call: every member starts with none.
struct Streams {
  MPI_Comm C;
  int Size, Rank;
  CollBlock *In, *Out;
  explicit Streams(MPI_Comm Comm) : C(Comm) {
    refuseInterCollective(C);
    PMPI_Comm_size(realComm(C), &Size);
    PMPI_Comm_rank(realComm(C), &Rank);
    In = static_cast<CollBlock *>(scratch(2 * Size * sizeof(CollBlock)));
    Out = In + Size;
    for (int I = 0; I < 2 * Size; ++I)
      In[I] = {nullptr, -1, MPI_BYTE};
  }
  ~Streams() { scratchFree(In); }
  Streams(const Streams &) = delete;
  Streams &operator=(const Streams &) = delete;

  // Runs the collective; F() calls MPI's.
  template <typename F> int run(F Native) {
    return nbCollective(
        C, In, Out,
        [](void *A, uint32_t, uint32_t *) { return (*static_cast<F *>(A))(); },
        &Native, false);
  }
  // The same, F(Mine, Hdrs) carrying the header words with the data.
  template <typename F> int runCarrying(F Native) {
    return nbCollective(
        C, In, Out,
        [](void *A, uint32_t Mine, uint32_t *Hdrs) {
          return (*static_cast<F *>(A))(Mine, Hdrs);
        },
        &Native, true);
  }
};

// Combines Size blocks of N elements at Base in rank order, leaving
// v[0] op (v[1] op (... op v[Size-1])) in the last block; returns it.
char *combineInOrder(char *Base, int Size, int N, MPI_Datatype T, MPI_Op Op) {
  MPI_Aint Blk = (MPI_Aint)N * extent(T);
  char *Acc = Base + (Size - 1) * Blk;
  for (int R = Size - 2; R >= 0; --R)
    PMPI_Reduce_local(Base + R * Blk, Acc, N, realType(T), realOp(Op));
  return Acc;
}

// Small contiguous blocks travel with the header word in front (one
// collective instead of two): each member's slot is 8 bytes of header, then
// its block. Send: Size slots (Alltoall) or one (Allgather); the received
// slots' headers go to Hdrs and their blocks to Recv + r * Bytes.
int carried(MPI_Comm RC, int Size, bool ToEach, uint32_t Mine, uint32_t *Hdrs,
            const char *Send, int Bytes, char *Recv) {
  int Slot = 8 + Bytes;
  int NOut = ToEach ? Size : 1;
  char *Out = static_cast<char *>(scratch((size_t)(NOut + Size) * Slot));
  char *In = Out + (size_t)NOut * Slot;
  for (int D = 0; D < NOut; ++D) {
    memcpy(Out + D * Slot, &Mine, 4);
    memset(Out + D * Slot + 4, 0, 4);
    memcpy(Out + D * Slot + 8, Send + (size_t)D * Bytes, Bytes);
  }
  int E = ToEach ? PMPI_Alltoall(Out, Slot, MPI_BYTE, In, Slot, MPI_BYTE, RC)
                 : PMPI_Allgather(Out, Slot, MPI_BYTE, In, Slot, MPI_BYTE, RC);
  for (int R = 0; E == MPI_SUCCESS && R < Size; ++R) {
    memcpy(&Hdrs[R], In + (size_t)R * Slot, 4);
    memcpy(Recv + (size_t)R * Bytes, In + (size_t)R * Slot + 8, Bytes);
  }
  scratchFree(Out);
  return E;
}

} // namespace

int nbBarrier(MPI_Comm C) {
  Streams S(C);
  return nbCollective(C, S.In, S.Out, nullptr, nullptr, false);
}

int nbBcast(void *B, int N, MPI_Datatype T, int Root, MPI_Comm C) {
  Streams S(C);
  if (S.Rank == Root) {
    for (int D = 0; D < S.Size; ++D)
      if (D != Root)
        S.Out[D] = {B, N, T};
  } else {
    S.In[Root] = {B, N, T};
  }
  return S.run(
      [&] { return PMPI_Bcast(B, N, realType(T), Root, realComm(C)); });
}

int nbGatherv(const void *Snd, int SN, MPI_Datatype ST, void *Out,
              const int *RN, const int *Displs, int RNAll, MPI_Datatype RT,
              int Root, MPI_Comm C) {
  Streams S(C);
  void *Mine = const_cast<void *>(Snd);
  if (S.Rank != Root) {
    S.Out[Root] = {Mine, SN, ST};
  } else {
    MPI_Aint Ext = extent(RT);
    for (int R = 0; R < S.Size; ++R) {
      int Count = RN ? RN[R] : RNAll;
      MPI_Aint Off = (RN ? (MPI_Aint)Displs[R] : (MPI_Aint)R * RNAll) * Ext;
      if (R != Root || Snd != MPI_IN_PLACE)
        S.In[R] = {at(Out, Off), Count, RT};
    }
    if (Snd != MPI_IN_PLACE)
      S.Out[Root] = {Mine, SN, ST};
  }
  return S.run([&] {
    MPI_Comm RC = realComm(C);
    if (RN)
      return PMPI_Gatherv(Snd, SN, realType(ST), Out, RN, Displs, realType(RT),
                          Root, RC);
    return PMPI_Gather(Snd, SN, realType(ST), Out, RNAll, realType(RT), Root,
                       RC);
  });
}

int nbScatterv(const void *Snd, const int *SN, const int *Displs, int SNAll,
               MPI_Datatype ST, void *Out, int RN, MPI_Datatype RT, int Root,
               MPI_Comm C) {
  Streams S(C);
  if (S.Rank != Root) {
    S.In[Root] = {Out, RN, RT};
  } else {
    MPI_Aint Ext = extent(ST);
    for (int R = 0; R < S.Size; ++R) {
      int Count = SN ? SN[R] : SNAll;
      MPI_Aint Off = (SN ? (MPI_Aint)Displs[R] : (MPI_Aint)R * SNAll) * Ext;
      if (R != Root || Out != MPI_IN_PLACE)
        S.Out[R] = {at(Snd, Off), Count, ST};
    }
    if (Out != MPI_IN_PLACE)
      S.In[Root] = {Out, RN, RT};
  }
  return S.run([&] {
    MPI_Comm RC = realComm(C);
    if (SN)
      return PMPI_Scatterv(Snd, SN, Displs, realType(ST), Out, RN, realType(RT),
                           Root, RC);
    return PMPI_Scatter(Snd, SNAll, realType(ST), Out, RN, realType(RT), Root,
                        RC);
  });
}

int nbAllgatherv(const void *Snd, int SN, MPI_Datatype ST, void *Out,
                 const int *RN, const int *Displs, int RNAll, MPI_Datatype RT,
                 MPI_Comm C) {
  Streams S(C);
  MPI_Aint Ext = extent(RT);
  auto Block = [&](int R) {
    MPI_Aint Off = (RN ? (MPI_Aint)Displs[R] : (MPI_Aint)R * RNAll) * Ext;
    return CollBlock{at(Out, Off), RN ? RN[R] : RNAll, RT};
  };
  CollBlock Mine = Snd == MPI_IN_PLACE
                       ? Block(S.Rank)
                       : CollBlock{const_cast<void *>(Snd), SN, ST};
  for (int R = 0; R < S.Size; ++R) {
    if (R == S.Rank && Snd == MPI_IN_PLACE)
      continue;
    S.In[R] = Block(R);
    S.Out[R] = Mine;
  }
  int Bytes =
      RN || Snd == MPI_IN_PLACE ? -1 : contiguousBytes(SN, realType(ST));
  if (Bytes >= 0 && Bytes == contiguousBytes(RNAll, realType(RT)))
    return S.runCarrying([&](uint32_t Word, uint32_t *Hdrs) {
      return carried(realComm(C), S.Size, false, Word, Hdrs,
                     static_cast<const char *>(Snd), Bytes,
                     static_cast<char *>(Out));
    });
  return S.run([&] {
    MPI_Comm RC = realComm(C);
    if (RN)
      return PMPI_Allgatherv(Snd, SN, realType(ST), Out, RN, Displs,
                             realType(RT), RC);
    return PMPI_Allgather(Snd, SN, realType(ST), Out, RNAll, realType(RT), RC);
  });
}

// Alltoall, Alltoallv and Alltoallw: per-member counts, displacements (in
// elements, or in bytes with per-member types) and types.
int nbAlltoallw(const void *Snd, const int *SN, const int *SD, int SNAll,
                const MPI_Datatype *STs, MPI_Datatype ST, void *Out,
                const int *RN, const int *RD, int RNAll,
                const MPI_Datatype *RTs, MPI_Datatype RT, MPI_Comm C) {
  Streams S(C);
  auto Count = [](const int *N, int All, int R) { return N ? N[R] : All; };
  auto Off = [](const int *D, int All, int R, MPI_Datatype T, bool Bytes) {
    MPI_Aint E = Bytes ? 1 : extent(T);
    return (D ? (MPI_Aint)D[R] : (MPI_Aint)R * All) * E;
  };
  bool W = RTs != nullptr;
  // In place: what to send is in Out; it travels from a copy.
  char *Copy = nullptr;
  if (Snd == MPI_IN_PLACE) {
    MPI_Aint Last = 0;
    for (int R = 0; R < S.Size; ++R) {
      MPI_Datatype T = W ? RTs[R] : RT;
      MPI_Aint End =
          Off(RD, RNAll, R, T, W) + (MPI_Aint)Count(RN, RNAll, R) * extent(T);
      Last = End > Last ? End : Last;
    }
    Copy = static_cast<char *>(scratch(Last ? Last : 1));
    memcpy(Copy, Out, Last);
    Snd = Copy;
    SN = RN, SD = RD, SNAll = RNAll, STs = RTs, ST = RT;
  }
  for (int R = 0; R < S.Size; ++R) {
    MPI_Datatype TS = W ? STs[R] : ST, TR = W ? RTs[R] : RT;
    S.Out[R] = {at(Snd, Off(SD, SNAll, R, TS, W)), Count(SN, SNAll, R), TS};
    S.In[R] = {at(Out, Off(RD, RNAll, R, TR, W)), Count(RN, RNAll, R), TR};
  }
  int Bytes = W || SN || RN ? -1 : contiguousBytes(SNAll, realType(ST));
  if (Bytes >= 0 && Bytes == contiguousBytes(RNAll, realType(RT)) &&
      (int64_t)Bytes * S.Size <= 64 * 1024) {
    int Err = S.runCarrying([&](uint32_t Word, uint32_t *Hdrs) {
      return carried(realComm(C), S.Size, true, Word, Hdrs,
                     static_cast<const char *>(Snd), Bytes,
                     static_cast<char *>(Out));
    });
    scratchFree(Copy);
    return Err;
  }
  int Err = S.run([&] {
    MPI_Comm RC = realComm(C);
    if (W) {
      auto *Types = static_cast<MPI_Datatype *>(
          scratch(2 * S.Size * sizeof(MPI_Datatype)));
      for (int R = 0; R < S.Size; ++R) {
        Types[R] = realType(STs[R]);
        Types[S.Size + R] = realType(RTs[R]);
      }
      int E =
          PMPI_Alltoallw(Snd, SN, SD, Types, Out, RN, RD, Types + S.Size, RC);
      scratchFree(Types);
      return E;
    }
    if (SN)
      return PMPI_Alltoallv(Snd, SN, SD, realType(ST), Out, RN, RD,
                            realType(RT), RC);
    return PMPI_Alltoall(Snd, SNAll, realType(ST), Out, RNAll, realType(RT),
                         RC);
  });
  scratchFree(Copy);
  return Err;
}

int nbReduce(const void *Snd, void *Out, int N, MPI_Datatype T, MPI_Op Op,
             int Root, MPI_Comm C) {
  Streams S(C);
  void *Mine = const_cast<void *>(Snd == MPI_IN_PLACE ? Out : Snd);
  if (S.Rank != Root) {
    S.Out[Root] = {Mine, N, T};
    return S.run([&] {
      return PMPI_Gather(Mine, N, realType(T), nullptr, N, realType(T), Root,
                         realComm(C));
    });
  }
  Temp All((int64_t)S.Size * N, T);
  MPI_Aint Blk = (MPI_Aint)N * extent(T);
  for (int R = 0; R < S.Size; ++R)
    S.In[R] = {All.Base + R * Blk, N, T};
  S.Out[Root] = {Mine, N, T};
  int Err = S.run([&] {
    return PMPI_Gather(Mine, N, realType(T), All.Base, N, realType(T), Root,
                       realComm(C));
  });
  if (Err == MPI_SUCCESS && N > 0)
    copyTyped(combineInOrder(All.Base, S.Size, N, T, Op), N, T, Out, N, T);
  return Err;
}

// Every member's contribution to every member, for Allreduce and the scans.
static int gatherAll(Streams &S, Temp &All, const void *Mine, int N,
                     MPI_Datatype T) {
  MPI_Aint Blk = (MPI_Aint)N * extent(T);
  for (int R = 0; R < S.Size; ++R) {
    S.In[R] = {All.Base + R * Blk, N, T};
    S.Out[R] = {const_cast<void *>(Mine), N, T};
  }
  int Bytes = contiguousBytes(N, realType(T));
  if (Bytes >= 0)
    return S.runCarrying([&](uint32_t Word, uint32_t *Hdrs) {
      return carried(realComm(S.C), S.Size, false, Word, Hdrs,
                     static_cast<const char *>(Mine), Bytes, All.Base);
    });
  return S.run([&] {
    return PMPI_Allgather(Mine, N, realType(T), All.Base, N, realType(T),
                          realComm(S.C));
  });
}

// Allreduce of at least kSliceBytes: each member combines one slice of the
// vector (Reduce_scatter), then the slices are gathered (Allgatherv): twice
// the vector moved instead of members x. Each element is still combined in
// rank order, so the bits are those of the small path.
constexpr int64_t kSliceBytes = 64 * 1024;

int nbAllreduce(const void *Snd, void *Out, int N, MPI_Datatype T, MPI_Op Op,
                MPI_Comm C) {
  Streams S(C);
  if ((int64_t)N * extent(T) >= kSliceBytes && N >= S.Size) {
    int *Counts = static_cast<int *>(scratch(2 * S.Size * sizeof(int)));
    int *Displs = Counts + S.Size;
    for (int R = 0, D = 0; R < S.Size; ++R) {
      Counts[R] = N / S.Size + (R < N % S.Size);
      Displs[R] = D;
      D += Counts[R];
    }
    Temp Slice(Counts[S.Rank], T);
    int Err = nbReduceScatter(Snd == MPI_IN_PLACE ? Out : Snd, Slice.Base,
                              Counts, 0, T, Op, C);
    if (Err == MPI_SUCCESS)
      Err = nbAllgatherv(Slice.Base, Counts[S.Rank], T, Out, Counts, Displs, 0,
                         T, C);
    scratchFree(Counts);
    return Err;
  }
  Temp All((int64_t)S.Size * N, T);
  int Err = gatherAll(S, All, Snd == MPI_IN_PLACE ? Out : Snd, N, T);
  if (Err == MPI_SUCCESS && N > 0)
    copyTyped(combineInOrder(All.Base, S.Size, N, T, Op), N, T, Out, N, T);
  return Err;
}

int nbScan(const void *Snd, void *Out, int N, MPI_Datatype T, MPI_Op Op,
           MPI_Comm C, bool Exclusive) {
  Streams S(C);
  Temp All((int64_t)S.Size * N, T);
  int Err = gatherAll(S, All, Snd == MPI_IN_PLACE ? Out : Snd, N, T);
  int Last = Exclusive ? S.Rank - 1 : S.Rank;
  if (Err != MPI_SUCCESS || N <= 0 || Last < 0)
    return Err; // Exscan leaves rank 0's buffer as it was
  // prefix[j] = prefix[j-1] op v[j], left to right.
  MPI_Aint Blk = (MPI_Aint)N * extent(T);
  for (int R = 1; R <= Last; ++R)
    PMPI_Reduce_local(All.Base + (R - 1) * Blk, All.Base + R * Blk, N,
                      realType(T), realOp(Op));
  copyTyped(All.Base + Last * Blk, N, T, Out, N, T);
  return Err;
}

// Reduce_scatter(_block): member r's block of every contribution goes to r.
int nbReduceScatter(const void *Snd, void *Out, const int *N, int NAll,
                    MPI_Datatype T, MPI_Op Op, MPI_Comm C) {
  Streams S(C);
  int *Counts = static_cast<int *>(scratch(3 * S.Size * sizeof(int)));
  int *Displs = Counts + S.Size, *RDispls = Displs + S.Size;
  for (int R = 0, D = 0; R < S.Size; ++R) {
    Counts[R] = N ? N[R] : NAll;
    Displs[R] = D;
    D += Counts[R];
  }
  int Own = Counts[S.Rank];
  const void *Mine = Snd == MPI_IN_PLACE ? Out : Snd;
  Temp All((int64_t)S.Size * Own, T);
  MPI_Aint Ext = extent(T);
  for (int R = 0; R < S.Size; ++R) {
    RDispls[R] = R * Own;
    S.Out[R] = {at(Mine, Displs[R] * Ext), Counts[R], T};
    S.In[R] = {All.Base + RDispls[R] * Ext, Own, T};
  }
  int *OwnCounts = static_cast<int *>(scratch(S.Size * sizeof(int)));
  for (int R = 0; R < S.Size; ++R)
    OwnCounts[R] = Own;
  int Err = S.run([&] {
    return PMPI_Alltoallv(Mine, Counts, Displs, realType(T), All.Base,
                          OwnCounts, RDispls, realType(T), realComm(C));
  });
  if (Err == MPI_SUCCESS && Own > 0)
    copyTyped(combineInOrder(All.Base, S.Size, Own, T, Op), Own, T, Out, Own,
              T);
  scratchFree(OwnCounts);
  scratchFree(Counts);
  return Err;
}

// Copies between two typed buffers with possibly different datatypes (as a
// message to oneself would).
void copyTyped(const void *From, int FN, MPI_Datatype FT, void *To, int TN,
               MPI_Datatype TT) {
  // The common case, one contiguous type on both sides: a copy (a message
  // to oneself costs a few hundred ns, as much as a small reduction).
  if (FT == TT && FN <= TN) {
    int Size = elementBytesIfContiguous(realType(FT));
    if (Size >= 0) {
      if (From != To)
        memmove(To, From, (size_t)FN * Size);
      return;
    }
  }
  PMPI_Sendrecv(From, FN, realType(FT), 0, 0, To, TN, realType(TT), 0, 0,
                MPI_COMM_SELF, MPI_STATUS_IGNORE);
}

} // namespace mpi
} // namespace ccc
