//===- Topologies.cpp - Communicators with a process topology -------------===//
//
// MPI_Cart_create, MPI_Cart_sub, MPI_Graph_create, MPI_Dist_graph_create and
// MPI_Dist_graph_create_adjacent make communicators like MPI_Comm_split: an
// object entry keeps the call's arguments (Objects.cpp) and a restart makes
// the same call again in creation order, so the program keeps its handle.
// The topology queries (MPI_Cart_shift, MPI_Cart_coords ...) are generated
// pass-through wrappers: they only need the real communicator.
//
// Rank order: MPI is always asked for reorder = 0, whatever the program
// passed (the standard lets an implementation ignore the hint). A rank of
// the new communicator is then its rank in the parent, in the first run
// and after every restart alike; with reorder = 1 MPI could choose another
// order at restart (other hosts, other load), and the program's saved
// coordinates, neighbours and buffers would no longer match its rank.
// MPI_Dist_graph_create's info hints are not passed either (MPI_INFO_NULL):
// the layer keeps no table of MPI_Info objects to re-create them with.
//
// Recorded integers (Object::Ints), per recipe:
//   CartCreate         ndims, reorder, dims[ndims], periods[ndims]
//   CartSub            ndims, remain_dims[ndims]
//   GraphCreate        nnodes, reorder, index[nnodes], edges[index[nnodes-1]]
//   DistGraphAdjacent  indegree, outdegree, reorder, source weight kind,
//                      destination weight kind, sources[indegree],
//                      sourceweights (if an array), destinations[outdegree],
//                      destweights (if an array)
//   DistGraphCreate    n, reorder, weight kind, total edges, sources[n],
//                      degrees[n], destinations[total], weights (if array)
// A weight kind says what the program passed: an array, MPI_UNWEIGHTED or
// MPI_WEIGHTS_EMPTY (sentinel addresses, meaningless after a restart).
//
//===----------------------------------------------------------------------===//
#include "mpi-layer/Layer.h"

#include <cstring>

namespace ccc {
namespace mpi {

namespace {

enum WeightKind : int { Array = 0, Unweighted = 1, Empty = 2 };

int weightKind(const int *W) {
  if (W == MPI_UNWEIGHTED)
    return Unweighted;
  if (W == MPI_WEIGHTS_EMPTY)
    return Empty;
  return Array;
}

// The weights argument to pass again: the recorded array at *At (which
// advances past it) or the sentinel.
const int *weightsArg(int Kind, const int *&At, int N) {
  if (Kind == Unweighted)
    return MPI_UNWEIGHTED;
  if (Kind == Empty)
    return MPI_WEIGHTS_EMPTY;
  const int *W = At;
  At += N;
  return W;
}

// Appends N ints to the record being built.
struct IntList {
  int *Data;
  int N;
  explicit IntList(int Cap)
      : Data(static_cast<int *>(scratch((Cap ? Cap : 1) * sizeof(int)))), N(0) {
  }
  ~IntList() { scratchFree(Data); }
  void add(int V) { Data[N++] = V; }
  void add(const int *V, int Count) {
    if (Count > 0)
      memcpy(Data + N, V, Count * sizeof(int));
    N += Count > 0 ? Count : 0;
  }
};

int sum(const int *V, int N) {
  int S = 0;
  for (int K = 0; K < N; ++K)
    S += V[K];
  return S;
}

bool anyNegative(const int *V, int N) {
  for (int K = 0; K < N; ++K)
    if (V[K] < 0)
      return true;
  return false;
}

} // namespace

int makeTopology(Object &O) {
  MPI_Comm Parent = realComm(handleFromBits<MPI_Comm>(O.Handles[0]));
  const int *I = O.Ints;
  MPI_Comm *Out = &O.Real.Comm;
  switch (O.How) {
  case Recipe::CartCreate:
    return PMPI_Cart_create(Parent, I[0], I + 2, I + 2 + I[0], 0, Out);
  case Recipe::CartSub:
    return PMPI_Cart_sub(Parent, I + 1, Out);
  case Recipe::GraphCreate: {
    int NNodes = I[0];
    return PMPI_Graph_create(Parent, NNodes, I + 2, I + 2 + NNodes, 0, Out);
  }
  case Recipe::DistGraphAdjacent: {
    int In = I[0], OutDeg = I[1];
    const int *At = I + 5;
    const int *Sources = At;
    At += In;
    const int *SW = weightsArg(I[3], At, In);
    const int *Dests = At;
    At += OutDeg;
    const int *DW = weightsArg(I[4], At, OutDeg);
    return PMPI_Dist_graph_create_adjacent(Parent, In, Sources, SW, OutDeg,
                                           Dests, DW, MPI_INFO_NULL, 0, Out);
  }
  case Recipe::DistGraphCreate: {
    int N = I[0], Total = I[3];
    const int *Sources = I + 4;
    const int *Degrees = Sources + N;
    const int *Dests = Degrees + N;
    const int *At = Dests + Total;
    const int *W = weightsArg(I[2], At, Total);
    return PMPI_Dist_graph_create(Parent, N, Sources, Degrees, Dests, W,
                                  MPI_INFO_NULL, 0, Out);
  }
  default:
    return MPI_ERR_INTERN;
  }
}

} // namespace mpi
} // namespace ccc

using namespace ccc::mpi;

// Arguments whose sizes are invalid go to MPI as they are, before anything
// is recorded: MPI reports the error as the program expects it to (through
// the communicator's error handler).
extern "C" {

int MPI_Cart_create(MPI_Comm C, int NDims, const int Dims[],
                    const int Periods[], int Reorder, MPI_Comm *Out) {
  if (NDims < 0 || (NDims > 0 && (!Dims || !Periods)))
    return PMPI_Cart_create(realComm(C), NDims, Dims, Periods, 0, Out);
  IntList R(2 + 2 * NDims);
  R.add(NDims);
  R.add(Reorder);
  R.add(Dims, NDims);
  R.add(Periods, NDims);
  return createComm(Recipe::CartCreate, C, Out, R.N, R.Data);
}

int MPI_Cart_sub(MPI_Comm C, const int Remain[], MPI_Comm *Out) {
  int Topo = MPI_UNDEFINED, NDims = 0;
  MPI_Comm Real = realComm(C);
  if (Real == MPI_COMM_NULL || PMPI_Topo_test(Real, &Topo) != MPI_SUCCESS ||
      Topo != MPI_CART || PMPI_Cartdim_get(Real, &NDims) != MPI_SUCCESS ||
      (NDims > 0 && !Remain))
    return PMPI_Cart_sub(Real, Remain, Out);
  IntList R(1 + NDims);
  R.add(NDims);
  R.add(Remain, NDims);
  return createComm(Recipe::CartSub, C, Out, R.N, R.Data);
}

int MPI_Graph_create(MPI_Comm C, int NNodes, const int Index[],
                     const int Edges[], int Reorder, MPI_Comm *Out) {
  int NEdges = NNodes > 0 && Index ? Index[NNodes - 1] : 0;
  if (NNodes < 0 || NEdges < 0 || (NNodes > 0 && (!Index || !Edges)))
    return PMPI_Graph_create(realComm(C), NNodes, Index, Edges, 0, Out);
  IntList R(2 + NNodes + NEdges);
  R.add(NNodes);
  R.add(Reorder);
  R.add(Index, NNodes);
  R.add(Edges, NEdges);
  return createComm(Recipe::GraphCreate, C, Out, R.N, R.Data);
}

int MPI_Dist_graph_create_adjacent(MPI_Comm C, int In, const int Sources[],
                                   const int SourceWeights[], int OutDeg,
                                   const int Dests[], const int DestWeights[],
                                   MPI_Info Info, int Reorder, MPI_Comm *Out) {
  if (In < 0 || OutDeg < 0 || (In > 0 && !Sources) || (OutDeg > 0 && !Dests))
    return PMPI_Dist_graph_create_adjacent(realComm(C), In, Sources,
                                           SourceWeights, OutDeg, Dests,
                                           DestWeights, Info, 0, Out);
  int SK = weightKind(SourceWeights), DK = weightKind(DestWeights);
  IntList R(5 + 2 * In + 2 * OutDeg);
  R.add(In);
  R.add(OutDeg);
  R.add(Reorder);
  R.add(SK);
  R.add(DK);
  R.add(Sources, In);
  if (SK == Array)
    R.add(SourceWeights, In);
  R.add(Dests, OutDeg);
  if (DK == Array)
    R.add(DestWeights, OutDeg);
  return createComm(Recipe::DistGraphAdjacent, C, Out, R.N, R.Data);
}

int MPI_Dist_graph_create(MPI_Comm C, int N, const int Sources[],
                          const int Degrees[], const int Dests[],
                          const int Weights[], MPI_Info Info, int Reorder,
                          MPI_Comm *Out) {
  if (N < 0 || (N > 0 && (!Sources || !Degrees)) || anyNegative(Degrees, N) ||
      (sum(Degrees, N) > 0 && !Dests))
    return PMPI_Dist_graph_create(realComm(C), N, Sources, Degrees, Dests,
                                  Weights, Info, 0, Out);
  int Total = sum(Degrees, N), K = weightKind(Weights);
  IntList R(4 + 2 * N + 2 * Total);
  R.add(N);
  R.add(Reorder);
  R.add(K);
  R.add(Total);
  R.add(Sources, N);
  R.add(Degrees, N);
  R.add(Dests, Total);
  if (K == Array)
    R.add(Weights, Total);
  return createComm(Recipe::DistGraphCreate, C, Out, R.N, R.Data);
}
}

//===-- Fortran sentinels -------------------------------------------------===//
//
// MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are variables in Fortran, recognised
// by their addresses (as MPI_BOTTOM is, Fortran.cpp): Open MPI puts each in
// its own common block, MPICH in /MPIFCMB5/ and /MPIFCMB9/. Weak: a C
// program has no Fortran library defining them.

extern "C" {
#ifdef OPEN_MPI
extern int mpi_fortran_unweighted_ __attribute__((weak));
extern int mpi_fortran_weights_empty_ __attribute__((weak));
#define CCC_F_UNWEIGHTED (&mpi_fortran_unweighted_)
#define CCC_F_WEIGHTS_EMPTY (&mpi_fortran_weights_empty_)
#else
extern MPI_Fint mpifcmb5_ __attribute__((weak));
extern MPI_Fint mpifcmb9_ __attribute__((weak));
#define CCC_F_UNWEIGHTED (&mpifcmb5_)
#define CCC_F_WEIGHTS_EMPTY (&mpifcmb9_)
#endif
}

namespace ccc {
namespace mpi {

// A Fortran weights argument as C's: the sentinels become C's.
int *fortranWeights(int *W) {
  auto Is = [W](const void *S) {
    // A missing weak symbol has address 0.
    return reinterpret_cast<uintptr_t>(S) > 4096 && (const void *)W == S;
  };
  if (Is(CCC_F_UNWEIGHTED))
    return MPI_UNWEIGHTED;
  if (Is(CCC_F_WEIGHTS_EMPTY))
    return MPI_WEIGHTS_EMPTY;
  return W;
}

} // namespace mpi
} // namespace ccc
