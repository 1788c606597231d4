//===- NeighbourCollectives.cpp - MPI_(I)neighbor_* -----------------------===//
//
// Neighbourhood collectives on Cartesian, graph and distributed-graph
// communicators, blocking and non-blocking: MPI's own calls, with their
// outputs (one block per in-neighbour) described for the non-blocking
// protocol as any collective's (Collectives.cpp, NonblockingCollectives.cpp).
//
//===----------------------------------------------------------------------===//
#include "CollectiveCalls.h"

using namespace ccc::mpi;

namespace {

int inDegree(MPI_Comm C) { return typeArrayLength(C, true, true); }
int outDegree(MPI_Comm C) { return typeArrayLength(C, true, false); }

// The real datatypes of a Neighbor_alltoallw, out-neighbours' then
// in-neighbours' (scratch; the caller frees them).
MPI_Datatype *neighbourTypes(MPI_Comm C, const MPI_Datatype *STs,
                             const MPI_Datatype *RTs) {
  int NO = outDegree(C), NI = inDegree(C);
  auto *T = static_cast<MPI_Datatype *>(
      scratch((NO + NI ? NO + NI : 1) * sizeof(MPI_Datatype)));
  for (int I = 0; I < NO; ++I)
    T[I] = realType(STs[I]);
  for (int I = 0; I < NI; ++I)
    T[NO + I] = realType(RTs[I]);
  return T;
}

} // namespace

extern "C" {

int MPI_Neighbor_allgather(const void *S, int SN, MPI_Datatype ST, void *R,
                           int RN, MPI_Datatype RT, MPI_Comm C) {
  if (Bypass)
    return PMPI_Neighbor_allgather(S, SN, ST, R, RN, RT, C);
  return runCollective(
      C, [&] { return oneOutput(R, RN * inDegree(C), RT); },
      [&] {
        return PMPI_Neighbor_allgather(S, SN, realType(ST), R, RN, realType(RT),
                                       realComm(C));
      });
}

int MPI_Neighbor_allgatherv(const void *S, int SN, MPI_Datatype ST, void *R,
                            const int RN[], const int Displs[], MPI_Datatype RT,
                            MPI_Comm C) {
  if (Bypass)
    return PMPI_Neighbor_allgatherv(S, SN, ST, R, RN, Displs, RT, C);
  return runCollective(
      C, [&] { return blockOutputs(R, inDegree(C), RN, Displs, RT); },
      [&] {
        return PMPI_Neighbor_allgatherv(S, SN, realType(ST), R, RN, Displs,
                                        realType(RT), realComm(C));
      });
}

int MPI_Neighbor_alltoall(const void *S, int SN, MPI_Datatype ST, void *R,
                          int RN, MPI_Datatype RT, MPI_Comm C) {
  if (Bypass)
    return PMPI_Neighbor_alltoall(S, SN, ST, R, RN, RT, C);
  return runCollective(
      C, [&] { return oneOutput(R, RN * inDegree(C), RT); },
      [&] {
        return PMPI_Neighbor_alltoall(S, SN, realType(ST), R, RN, realType(RT),
                                      realComm(C));
      });
}

int MPI_Neighbor_alltoallv(const void *S, const int SN[], const int SD[],
                           MPI_Datatype ST, void *R, const int RN[],
                           const int RD[], MPI_Datatype RT, MPI_Comm C) {
  if (Bypass)
    return PMPI_Neighbor_alltoallv(S, SN, SD, ST, R, RN, RD, RT, C);
  return runCollective(
      C, [&] { return blockOutputs(R, inDegree(C), RN, RD, RT); },
      [&] {
        return PMPI_Neighbor_alltoallv(S, SN, SD, realType(ST), R, RN, RD,
                                       realType(RT), realComm(C));
      });
}

int MPI_Neighbor_alltoallw(const void *S, const int SN[], const MPI_Aint SD[],
                           const MPI_Datatype STs[], void *R, const int RN[],
                           const MPI_Aint RD[], const MPI_Datatype RTs[],
                           MPI_Comm C) {
  if (Bypass)
    return PMPI_Neighbor_alltoallw(S, SN, SD, STs, R, RN, RD, RTs, C);
  return runCollective(
      C, [&] { return typedOutputs(R, inDegree(C), RN, RD, true, RTs); },
      [&] {
        MPI_Datatype *T = neighbourTypes(C, STs, RTs);
        int E = PMPI_Neighbor_alltoallw(S, SN, SD, T, R, RN, RD,
                                        T + outDegree(C), realComm(C));
        scratchFree(T);
        return E;
      });
}

int MPI_Ineighbor_allgather(const void *S, int SN, MPI_Datatype ST, void *R,
                            int RN, MPI_Datatype RT, MPI_Comm C,
                            MPI_Request *Q) {
  if (Bypass)
    return PMPI_Ineighbor_allgather(S, SN, ST, R, RN, RT, C, Q);
  return startCollective(
      C, [&] { return oneOutput(R, RN * inDegree(C), RT); }, Q,
      [&](MPI_Request *RQ) {
        return PMPI_Ineighbor_allgather(S, SN, realType(ST), R, RN,
                                        realType(RT), realComm(C), RQ);
      });
}

int MPI_Ineighbor_allgatherv(const void *S, int SN, MPI_Datatype ST, void *R,
                             const int RN[], const int Displs[],
                             MPI_Datatype RT, MPI_Comm C, MPI_Request *Q) {
  if (Bypass)
    return PMPI_Ineighbor_allgatherv(S, SN, ST, R, RN, Displs, RT, C, Q);
  return startCollective(
      C, [&] { return blockOutputs(R, inDegree(C), RN, Displs, RT); }, Q,
      [&](MPI_Request *RQ) {
        return PMPI_Ineighbor_allgatherv(S, SN, realType(ST), R, RN, Displs,
                                         realType(RT), realComm(C), RQ);
      });
}

int MPI_Ineighbor_alltoall(const void *S, int SN, MPI_Datatype ST, void *R,
                           int RN, MPI_Datatype RT, MPI_Comm C,
                           MPI_Request *Q) {
  if (Bypass)
    return PMPI_Ineighbor_alltoall(S, SN, ST, R, RN, RT, C, Q);
  return startCollective(
      C, [&] { return oneOutput(R, RN * inDegree(C), RT); }, Q,
      [&](MPI_Request *RQ) {
        return PMPI_Ineighbor_alltoall(S, SN, realType(ST), R, RN, realType(RT),
                                       realComm(C), RQ);
      });
}

int MPI_Ineighbor_alltoallv(const void *S, const int SN[], const int SD[],
                            MPI_Datatype ST, void *R, const int RN[],
                            const int RD[], MPI_Datatype RT, MPI_Comm C,
                            MPI_Request *Q) {
  if (Bypass)
    return PMPI_Ineighbor_alltoallv(S, SN, SD, ST, R, RN, RD, RT, C, Q);
  return startCollective(
      C, [&] { return blockOutputs(R, inDegree(C), RN, RD, RT); }, Q,
      [&](MPI_Request *RQ) {
        return PMPI_Ineighbor_alltoallv(S, SN, SD, realType(ST), R, RN, RD,
                                        realType(RT), realComm(C), RQ);
      });
}

int MPI_Ineighbor_alltoallw(const void *S, const int SN[], const MPI_Aint SD[],
                            const MPI_Datatype STs[], void *R, const int RN[],
                            const MPI_Aint RD[], const MPI_Datatype RTs[],
                            MPI_Comm C, MPI_Request *Q) {
  if (Bypass)
    return PMPI_Ineighbor_alltoallw(S, SN, SD, STs, R, RN, RD, RTs, C, Q);
  int NO = outDegree(C), NI = inDegree(C);
  MPI_Datatype *Types = keepRealTypes(NO, STs, NI, RTs);
  return startCollective(
      C, [&] { return typedOutputs(R, NI, RN, RD, true, RTs); }, Q,
      [&](MPI_Request *RQ) {
        return PMPI_Ineighbor_alltoallw(S, SN, SD, Types, R, RN, RD, Types + NO,
                                        realComm(C), RQ);
      },
      Types);
}
}
