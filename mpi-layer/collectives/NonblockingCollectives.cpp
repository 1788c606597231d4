//===- NonblockingCollectives.cpp - MPI_Ibarrier ... MPI_Iexscan ----------===//
//
// Each is MPI's own non-blocking collective, started on the program's data
// under a request of the layer's table (ReqKind::Coll), so the program's
// handle survives a restart. Under the non-blocking protocol the request
// also keeps the call's outputs: one started before this rank's checkpoint
// and still open there is completed, after a restart, from the outputs
// logged when it completed (no member starts it again); one started after
// it is re-executed as a blocking collective is (ProtocolCollectives.cpp).
// Under the blocking protocol every member has started the collectives open
// at a checkpoint site, so the drain completes them before the image.
//
//===----------------------------------------------------------------------===//
#include "CollectiveCalls.h"

namespace ccc {
namespace mpi {

// Each array starts on an 8-byte boundary.
static size_t round8(size_t N) { return (N + 7) & ~(size_t)7; }

void keepOutputs(Request &R, const CollOutputs &O) {
  R.Outs = O;
  keepOutputArrays(R);
}

void keepOutputArrays(Request &R) {
  const CollOutputs &O = R.Outs;
  R.HasOuts = true;
  bool Arrays = O.S == CollOutputs::Blocks || O.S == CollOutputs::BlocksW ||
                O.S == CollOutputs::BlocksWA;
  if (!Arrays)
    return;
  size_t N = (size_t)O.N;
  size_t DBytes =
      N * (O.S == CollOutputs::BlocksWA ? sizeof(MPI_Aint) : sizeof(int));
  size_t TBytes = O.Types ? N * sizeof(MPI_Datatype) : 0;
  size_t CBytes = N * sizeof(int);
  char *P = static_cast<char *>(
      saved(round8(DBytes) + round8(TBytes) + (CBytes ? CBytes : 1)));
  R.OutsArrays = P;
  memcpy(P, O.Displs, DBytes);
  R.Outs.Displs = P;
  P += round8(DBytes);
  if (O.Types) {
    memcpy(P, O.Types, TBytes);
    R.Outs.Types = reinterpret_cast<MPI_Datatype *>(P);
    P += round8(TBytes);
  }
  memcpy(P, O.Counts, CBytes);
  R.Outs.Counts = reinterpret_cast<int *>(P);
}

MPI_Datatype *keepRealTypes(int NS, const MPI_Datatype *Send, int NR,
                            const MPI_Datatype *Recv) {
  auto *T = static_cast<MPI_Datatype *>(
      saved((NS + NR ? NS + NR : 1) * sizeof(MPI_Datatype)));
  for (int I = 0; I < NS; ++I)
    T[I] = Send ? realType(Send[I]) : MPI_DATATYPE_NULL;
  for (int I = 0; I < NR; ++I)
    T[NS + I] = realType(Recv[I]);
  return T;
}

} // namespace mpi
} // namespace ccc

using namespace ccc::mpi;

extern "C" {

int MPI_Ibarrier(MPI_Comm C, MPI_Request *Q) {
  if (Bypass)
    return PMPI_Ibarrier(C, Q);
  return startCollective(
      C, [] { return noOutputs(); }, Q,
      [&](MPI_Request *RQ) { return PMPI_Ibarrier(realComm(C), RQ); });
}

int MPI_Ibcast(void *B, int N, MPI_Datatype T, int Root, MPI_Comm C,
               MPI_Request *Q) {
  if (Bypass)
    return PMPI_Ibcast(B, N, T, Root, C, Q);
  return startCollective(
      C,
      [&] {
        return isRoot(C, Root) || !fromRoot(C, Root) ? noOutputs()
                                                     : oneOutput(B, N, T);
      },
      Q,
      [&](MPI_Request *RQ) {
        return PMPI_Ibcast(B, N, realType(T), Root, realComm(C), RQ);
      });
}

int MPI_Ireduce(const void *S, void *R, int N, MPI_Datatype T, MPI_Op Op,
                int Root, MPI_Comm C, MPI_Request *Q) {
  if (Bypass)
    return PMPI_Ireduce(S, R, N, T, Op, Root, C, Q);
  return startCollective(
      C, [&] { return isRoot(C, Root) ? oneOutput(R, N, T) : noOutputs(); }, Q,
      [&](MPI_Request *RQ) {
        return PMPI_Ireduce(S, R, N, realType(T), realOp(Op), Root, realComm(C),
                            RQ);
      });
}

int MPI_Iallreduce(const void *S, void *R, int N, MPI_Datatype T, MPI_Op Op,
                   MPI_Comm C, MPI_Request *Q) {
  if (Bypass)
    return PMPI_Iallreduce(S, R, N, T, Op, C, Q);
  return startCollective(
      C, [&] { return oneOutput(R, N, T); }, Q,
      [&](MPI_Request *RQ) {
        return PMPI_Iallreduce(S, R, N, realType(T), realOp(Op), realComm(C),
                               RQ);
      });
}

int MPI_Iscan(const void *S, void *R, int N, MPI_Datatype T, MPI_Op Op,
              MPI_Comm C, MPI_Request *Q) {
  if (Bypass)
    return PMPI_Iscan(S, R, N, T, Op, C, Q);
  return startCollective(
      C, [&] { return oneOutput(R, N, T); }, Q,
      [&](MPI_Request *RQ) {
        return PMPI_Iscan(S, R, N, realType(T), realOp(Op), realComm(C), RQ);
      });
}

int MPI_Iexscan(const void *S, void *R, int N, MPI_Datatype T, MPI_Op Op,
                MPI_Comm C, MPI_Request *Q) {
  if (Bypass)
    return PMPI_Iexscan(S, R, N, T, Op, C, Q);
  return startCollective(
      C, [&] { return oneOutput(R, N, T); }, Q,
      [&](MPI_Request *RQ) {
        return PMPI_Iexscan(S, R, N, realType(T), realOp(Op), realComm(C), RQ);
      });
}

int MPI_Igather(const void *S, int SN, MPI_Datatype ST, void *R, int RN,
                MPI_Datatype RT, int Root, MPI_Comm C, MPI_Request *Q) {
  if (Bypass)
    return PMPI_Igather(S, SN, ST, R, RN, RT, Root, C, Q);
  return startCollective(
      C,
      [&] {
        return isRoot(C, Root) ? oneOutput(R, RN * peerCount(C), RT)
                               : noOutputs();
      },
      Q,
      [&](MPI_Request *RQ) {
        return PMPI_Igather(S, SN, realType(ST), R, RN, realType(RT), Root,
                            realComm(C), RQ);
      });
}

int MPI_Igatherv(const void *S, int SN, MPI_Datatype ST, void *R,
                 const int RN[], const int Displs[], MPI_Datatype RT, int Root,
                 MPI_Comm C, MPI_Request *Q) {
  if (Bypass)
    return PMPI_Igatherv(S, SN, ST, R, RN, Displs, RT, Root, C, Q);
  return startCollective(
      C,
      [&] {
        return isRoot(C, Root) ? blockOutputs(R, peerCount(C), RN, Displs, RT)
                               : noOutputs();
      },
      Q,
      [&](MPI_Request *RQ) {
        return PMPI_Igatherv(S, SN, realType(ST), R, RN, Displs, realType(RT),
                             Root, realComm(C), RQ);
      });
}

int MPI_Iscatter(const void *S, int SN, MPI_Datatype ST, void *R, int RN,
                 MPI_Datatype RT, int Root, MPI_Comm C, MPI_Request *Q) {
  if (Bypass)
    return PMPI_Iscatter(S, SN, ST, R, RN, RT, Root, C, Q);
  return startCollective(
      C,
      [&] {
        return R == MPI_IN_PLACE || !fromRoot(C, Root) ? noOutputs()
                                                       : oneOutput(R, RN, RT);
      },
      Q,
      [&](MPI_Request *RQ) {
        return PMPI_Iscatter(S, SN, realType(ST), R, RN, realType(RT), Root,
                             realComm(C), RQ);
      });
}

int MPI_Iscatterv(const void *S, const int SN[], const int Displs[],
                  MPI_Datatype ST, void *R, int RN, MPI_Datatype RT, int Root,
                  MPI_Comm C, MPI_Request *Q) {
  if (Bypass)
    return PMPI_Iscatterv(S, SN, Displs, ST, R, RN, RT, Root, C, Q);
  return startCollective(
      C,
      [&] {
        return R == MPI_IN_PLACE || !fromRoot(C, Root) ? noOutputs()
                                                       : oneOutput(R, RN, RT);
      },
      Q,
      [&](MPI_Request *RQ) {
        return PMPI_Iscatterv(S, SN, Displs, realType(ST), R, RN, realType(RT),
                              Root, realComm(C), RQ);
      });
}

int MPI_Iallgather(const void *S, int SN, MPI_Datatype ST, void *R, int RN,
                   MPI_Datatype RT, MPI_Comm C, MPI_Request *Q) {
  if (Bypass)
    return PMPI_Iallgather(S, SN, ST, R, RN, RT, C, Q);
  return startCollective(
      C, [&] { return oneOutput(R, RN * peerCount(C), RT); }, Q,
      [&](MPI_Request *RQ) {
        return PMPI_Iallgather(S, SN, realType(ST), R, RN, realType(RT),
                               realComm(C), RQ);
      });
}

int MPI_Iallgatherv(const void *S, int SN, MPI_Datatype ST, void *R,
                    const int RN[], const int Displs[], MPI_Datatype RT,
                    MPI_Comm C, MPI_Request *Q) {
  if (Bypass)
    return PMPI_Iallgatherv(S, SN, ST, R, RN, Displs, RT, C, Q);
  return startCollective(
      C, [&] { return blockOutputs(R, peerCount(C), RN, Displs, RT); }, Q,
      [&](MPI_Request *RQ) {
        return PMPI_Iallgatherv(S, SN, realType(ST), R, RN, Displs,
                                realType(RT), realComm(C), RQ);
      });
}

int MPI_Ialltoall(const void *S, int SN, MPI_Datatype ST, void *R, int RN,
                  MPI_Datatype RT, MPI_Comm C, MPI_Request *Q) {
  if (Bypass)
    return PMPI_Ialltoall(S, SN, ST, R, RN, RT, C, Q);
  return startCollective(
      C, [&] { return oneOutput(R, RN * peerCount(C), RT); }, Q,
      [&](MPI_Request *RQ) {
        return PMPI_Ialltoall(S, SN, realType(ST), R, RN, realType(RT),
                              realComm(C), RQ);
      });
}

int MPI_Ialltoallv(const void *S, const int SN[], const int SD[],
                   MPI_Datatype ST, void *R, const int RN[], const int RD[],
                   MPI_Datatype RT, MPI_Comm C, MPI_Request *Q) {
  if (Bypass)
    return PMPI_Ialltoallv(S, SN, SD, ST, R, RN, RD, RT, C, Q);
  return startCollective(
      C, [&] { return blockOutputs(R, peerCount(C), RN, RD, RT); }, Q,
      [&](MPI_Request *RQ) {
        return PMPI_Ialltoallv(S, SN, SD, realType(ST), R, RN, RD, realType(RT),
                               realComm(C), RQ);
      });
}

int MPI_Ialltoallw(const void *S, const int SN[], const int SD[],
                   const MPI_Datatype STs[], void *R, const int RN[],
                   const int RD[], const MPI_Datatype RTs[], MPI_Comm C,
                   MPI_Request *Q) {
  if (Bypass)
    return PMPI_Ialltoallw(S, SN, SD, STs, R, RN, RD, RTs, C, Q);
  int Size = peerCount(C);
  MPI_Datatype *Types =
      keepRealTypes(Size, S == MPI_IN_PLACE ? nullptr : STs, Size, RTs);
  return startCollective(
      C, [&] { return typedOutputs(R, Size, RN, RD, false, RTs); }, Q,
      [&](MPI_Request *RQ) {
        return PMPI_Ialltoallw(S, SN, SD, Types, R, RN, RD, Types + Size,
                               realComm(C), RQ);
      },
      Types);
}

int MPI_Ireduce_scatter_block(const void *S, void *R, int N, MPI_Datatype T,
                              MPI_Op Op, MPI_Comm C, MPI_Request *Q) {
  if (Bypass)
    return PMPI_Ireduce_scatter_block(S, R, N, T, Op, C, Q);
  return startCollective(
      C, [&] { return oneOutput(R, N, T); }, Q,
      [&](MPI_Request *RQ) {
        return PMPI_Ireduce_scatter_block(S, R, N, realType(T), realOp(Op),
                                          realComm(C), RQ);
      });
}

int MPI_Ireduce_scatter(const void *S, void *R, const int N[], MPI_Datatype T,
                        MPI_Op Op, MPI_Comm C, MPI_Request *Q) {
  if (Bypass)
    return PMPI_Ireduce_scatter(S, R, N, T, Op, C, Q);
  return startCollective(
      C, [&] { return oneOutput(R, N[commRank(C)], T); }, Q,
      [&](MPI_Request *RQ) {
        return PMPI_Ireduce_scatter(S, R, N, realType(T), realOp(Op),
                                    realComm(C), RQ);
      });
}
}
