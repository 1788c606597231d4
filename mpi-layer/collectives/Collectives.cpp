//===- Collectives.cpp - Collective operations ----------------------------===//
//
// Every collective is MPI's own call on the program's data, so a ccc build
// computes the bits a build without ccc does. Under the blocking protocol
// every rank takes its checkpoint at the same collective site, so no
// collective crosses a recovery line: the layer only translates handles.
// Under the non-blocking protocol each call also says where its results
// land (its outputs at this rank), which the protocol logs while a
// checkpoint is open and puts back when a restart re-executes a collective
// that crossed the line (ProtocolCollectives.cpp). Non-blocking collectives:
// NonblockingCollectives.cpp; neighbourhood ones: NeighbourCollectives.cpp.
//
//===----------------------------------------------------------------------===//
#include "CollectiveCalls.h"

using namespace ccc::mpi;

extern "C" {

int MPI_Barrier(MPI_Comm C) {
  if (Bypass)
    return PMPI_Barrier(C);
  return runCollective(
      C, [] { return noOutputs(); }, [&] { return PMPI_Barrier(realComm(C)); });
}

int MPI_Bcast(void *B, int N, MPI_Datatype T, int Root, MPI_Comm C) {
  if (Bypass)
    return PMPI_Bcast(B, N, T, Root, C);
  return runCollective(
      C,
      [&] {
        return isRoot(C, Root) || !fromRoot(C, Root) ? noOutputs()
                                                     : oneOutput(B, N, T);
      },
      [&] { return PMPI_Bcast(B, N, realType(T), Root, realComm(C)); });
}

int MPI_Reduce(const void *S, void *R, int N, MPI_Datatype T, MPI_Op Op,
               int Root, MPI_Comm C) {
  if (Bypass)
    return PMPI_Reduce(S, R, N, T, Op, Root, C);
  return runCollective(
      C, [&] { return isRoot(C, Root) ? oneOutput(R, N, T) : noOutputs(); },
      [&] {
        return PMPI_Reduce(S, R, N, realType(T), realOp(Op), Root, realComm(C));
      });
}

int MPI_Allreduce(const void *S, void *R, int N, MPI_Datatype T, MPI_Op Op,
                  MPI_Comm C) {
  if (Bypass)
    return PMPI_Allreduce(S, R, N, T, Op, C);
  return runCollective(
      C, [&] { return oneOutput(R, N, T); },
      [&] {
        return PMPI_Allreduce(S, R, N, realType(T), realOp(Op), realComm(C));
      });
}

int MPI_Scan(const void *S, void *R, int N, MPI_Datatype T, MPI_Op Op,
             MPI_Comm C) {
  if (Bypass)
    return PMPI_Scan(S, R, N, T, Op, C);
  return runCollective(
      C, [&] { return oneOutput(R, N, T); },
      [&] { return PMPI_Scan(S, R, N, realType(T), realOp(Op), realComm(C)); });
}

int MPI_Exscan(const void *S, void *R, int N, MPI_Datatype T, MPI_Op Op,
               MPI_Comm C) {
  if (Bypass)
    return PMPI_Exscan(S, R, N, T, Op, C);
  return runCollective(
      C, [&] { return oneOutput(R, N, T); },
      [&] {
        return PMPI_Exscan(S, R, N, realType(T), realOp(Op), realComm(C));
      });
}

int MPI_Gather(const void *S, int SN, MPI_Datatype ST, void *R, int RN,
               MPI_Datatype RT, int Root, MPI_Comm C) {
  if (Bypass)
    return PMPI_Gather(S, SN, ST, R, RN, RT, Root, C);
  return runCollective(
      C,
      [&] {
        return isRoot(C, Root) ? oneOutput(R, RN * peerCount(C), RT)
                               : noOutputs();
      },
      [&] {
        return PMPI_Gather(S, SN, realType(ST), R, RN, realType(RT), Root,
                           realComm(C));
      });
}

int MPI_Gatherv(const void *S, int SN, MPI_Datatype ST, void *R, const int RN[],
                const int Displs[], MPI_Datatype RT, int Root, MPI_Comm C) {
  if (Bypass)
    return PMPI_Gatherv(S, SN, ST, R, RN, Displs, RT, Root, C);
  return runCollective(
      C,
      [&] {
        return isRoot(C, Root) ? blockOutputs(R, peerCount(C), RN, Displs, RT)
                               : noOutputs();
      },
      [&] {
        return PMPI_Gatherv(S, SN, realType(ST), R, RN, Displs, realType(RT),
                            Root, realComm(C));
      });
}

int MPI_Scatter(const void *S, int SN, MPI_Datatype ST, void *R, int RN,
                MPI_Datatype RT, int Root, MPI_Comm C) {
  if (Bypass)
    return PMPI_Scatter(S, SN, ST, R, RN, RT, Root, C);
  return runCollective(
      C,
      [&] {
        return R == MPI_IN_PLACE || !fromRoot(C, Root) ? noOutputs()
                                                       : oneOutput(R, RN, RT);
      },
      [&] {
        return PMPI_Scatter(S, SN, realType(ST), R, RN, realType(RT), Root,
                            realComm(C));
      });
}

int MPI_Scatterv(const void *S, const int SN[], const int Displs[],
                 MPI_Datatype ST, void *R, int RN, MPI_Datatype RT, int Root,
                 MPI_Comm C) {
  if (Bypass)
    return PMPI_Scatterv(S, SN, Displs, ST, R, RN, RT, Root, C);
  return runCollective(
      C,
      [&] {
        return R == MPI_IN_PLACE || !fromRoot(C, Root) ? noOutputs()
                                                       : oneOutput(R, RN, RT);
      },
      [&] {
        return PMPI_Scatterv(S, SN, Displs, realType(ST), R, RN, realType(RT),
                             Root, realComm(C));
      });
}

int MPI_Allgather(const void *S, int SN, MPI_Datatype ST, void *R, int RN,
                  MPI_Datatype RT, MPI_Comm C) {
  if (Bypass)
    return PMPI_Allgather(S, SN, ST, R, RN, RT, C);
  return runCollective(
      C, [&] { return oneOutput(R, RN * peerCount(C), RT); },
      [&] {
        return PMPI_Allgather(S, SN, realType(ST), R, RN, realType(RT),
                              realComm(C));
      });
}

int MPI_Allgatherv(const void *S, int SN, MPI_Datatype ST, void *R,
                   const int RN[], const int Displs[], MPI_Datatype RT,
                   MPI_Comm C) {
  if (Bypass)
    return PMPI_Allgatherv(S, SN, ST, R, RN, Displs, RT, C);
  return runCollective(
      C, [&] { return blockOutputs(R, peerCount(C), RN, Displs, RT); },
      [&] {
        return PMPI_Allgatherv(S, SN, realType(ST), R, RN, Displs, realType(RT),
                               realComm(C));
      });
}

int MPI_Alltoall(const void *S, int SN, MPI_Datatype ST, void *R, int RN,
                 MPI_Datatype RT, MPI_Comm C) {
  if (Bypass)
    return PMPI_Alltoall(S, SN, ST, R, RN, RT, C);
  return runCollective(
      C, [&] { return oneOutput(R, RN * peerCount(C), RT); },
      [&] {
        return PMPI_Alltoall(S, SN, realType(ST), R, RN, realType(RT),
                             realComm(C));
      });
}

int MPI_Alltoallv(const void *S, const int SN[], const int SD[],
                  MPI_Datatype ST, void *R, const int RN[], const int RD[],
                  MPI_Datatype RT, MPI_Comm C) {
  if (Bypass)
    return PMPI_Alltoallv(S, SN, SD, ST, R, RN, RD, RT, C);
  return runCollective(
      C, [&] { return blockOutputs(R, peerCount(C), RN, RD, RT); },
      [&] {
        return PMPI_Alltoallv(S, SN, SD, realType(ST), R, RN, RD, realType(RT),
                              realComm(C));
      });
}

int MPI_Alltoallw(const void *S, const int SN[], const int SD[],
                  const MPI_Datatype STs[], void *R, const int RN[],
                  const int RD[], const MPI_Datatype RTs[], MPI_Comm C) {
  if (Bypass)
    return PMPI_Alltoallw(S, SN, SD, STs, R, RN, RD, RTs, C);
  int Size = peerCount(C);
  return runCollective(
      C, [&] { return typedOutputs(R, Size, RN, RD, false, RTs); },
      [&] {
        auto *Types = static_cast<MPI_Datatype *>(
            scratch(2 * Size * sizeof(MPI_Datatype)));
        for (int I = 0; I < Size; ++I) {
          Types[I] = S == MPI_IN_PLACE ? MPI_DATATYPE_NULL : realType(STs[I]);
          Types[Size + I] = realType(RTs[I]);
        }
        int E = PMPI_Alltoallw(S, SN, SD, Types, R, RN, RD, Types + Size,
                               realComm(C));
        scratchFree(Types);
        return E;
      });
}

int MPI_Reduce_scatter_block(const void *S, void *R, int N, MPI_Datatype T,
                             MPI_Op Op, MPI_Comm C) {
  if (Bypass)
    return PMPI_Reduce_scatter_block(S, R, N, T, Op, C);
  return runCollective(
      C, [&] { return oneOutput(R, N, T); },
      [&] {
        return PMPI_Reduce_scatter_block(S, R, N, realType(T), realOp(Op),
                                         realComm(C));
      });
}

int MPI_Reduce_scatter(const void *S, void *R, const int N[], MPI_Datatype T,
                       MPI_Op Op, MPI_Comm C) {
  if (Bypass)
    return PMPI_Reduce_scatter(S, R, N, T, Op, C);
  return runCollective(
      C, [&] { return oneOutput(R, N[commRank(C)], T); },
      [&] {
        return PMPI_Reduce_scatter(S, R, N, realType(T), realOp(Op),
                                   realComm(C));
      });
}

//===-- Queries that take handles -----------------------------------------===//

int MPI_Comm_rank(MPI_Comm C, int *R) { return PMPI_Comm_rank(realComm(C), R); }
int MPI_Comm_size(MPI_Comm C, int *N) { return PMPI_Comm_size(realComm(C), N); }
int MPI_Type_size(MPI_Datatype T, int *N) {
  return PMPI_Type_size(realType(T), N);
}
int MPI_Type_get_extent(MPI_Datatype T, MPI_Aint *Lb, MPI_Aint *Extent) {
  return PMPI_Type_get_extent(realType(T), Lb, Extent);
}
int MPI_Get_count(const MPI_Status *S, MPI_Datatype T, int *N) {
  return PMPI_Get_count(S, realType(T), N);
}
int MPI_Get_elements(const MPI_Status *S, MPI_Datatype T, int *N) {
  return PMPI_Get_elements(S, realType(T), N);
}
int MPI_Group_size(MPI_Group G, int *N) {
  return PMPI_Group_size(realGroup(G), N);
}
int MPI_Group_rank(MPI_Group G, int *R) {
  return PMPI_Group_rank(realGroup(G), R);
}
int MPI_Group_translate_ranks(MPI_Group A, int N, const int RA[], MPI_Group B,
                              int RB[]) {
  return PMPI_Group_translate_ranks(realGroup(A), N, RA, realGroup(B), RB);
}
int MPI_Pack(const void *In, int N, MPI_Datatype T, void *Out, int Size,
             int *Pos, MPI_Comm C) {
  return PMPI_Pack(In, N, realType(T), Out, Size, Pos, realComm(C));
}
int MPI_Unpack(const void *In, int Size, int *Pos, void *Out, int N,
               MPI_Datatype T, MPI_Comm C) {
  return PMPI_Unpack(In, Size, Pos, Out, N, realType(T), realComm(C));
}
int MPI_Pack_size(int N, MPI_Datatype T, MPI_Comm C, int *Size) {
  return PMPI_Pack_size(N, realType(T), realComm(C), Size);
}
}

extern "C" {
int MPI_Get_elements_x(const MPI_Status *S, MPI_Datatype T, MPI_Count *N) {
  return PMPI_Get_elements_x(S, realType(T), N);
}
// Keyvals translated by MPI_Comm_get_attr (Attributes.cpp).
int MPI_Attr_get(MPI_Comm C, int Key, void *Value, int *Flag) {
  return MPI_Comm_get_attr(C, Key, Value, Flag);
}
int MPI_Abort(MPI_Comm C, int Code) { return PMPI_Abort(realComm(C), Code); }
// Memory from MPI_Alloc_mem is program data: it lives in the saved heap.
int MPI_Alloc_mem(MPI_Aint Size, MPI_Info Info, void *Base) {
  if (Bypass)
    return PMPI_Alloc_mem(Size, Info, Base);
  void *P = __ccc_malloc(Size ? (size_t)Size : 1);
  if (!P)
    return MPI_ERR_NO_MEM;
  *static_cast<void **>(Base) = P;
  return MPI_SUCCESS;
}
int MPI_Free_mem(void *P) {
  if (Bypass)
    return PMPI_Free_mem(P);
  __ccc_free(P);
  return MPI_SUCCESS;
}
}
