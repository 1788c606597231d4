//===- CommFacts.cpp - What a communicator's collectives depend on --------===//
//
// Whether a communicator is an inter-communicator, this rank's rank in it
// and its neighbourhood degrees, asked of MPI once per communicator (and
// kept in its object) rather than at every collective, and how many peers
// a collective's per-peer arrays have.
//
//===----------------------------------------------------------------------===//
#include "mpi-layer/Layer.h"

namespace ccc {
namespace mpi {

// The neighbourhood degrees of real communicator RC (0 without a
// topology: MPI reports the error of the call itself).
static void askDegrees(MPI_Comm RC, int *In, int *Out) {
  int Topo = MPI_UNDEFINED;
  *In = *Out = 0;
  PMPI_Topo_test(RC, &Topo);
  if (Topo == MPI_CART) {
    int N;
    PMPI_Cartdim_get(RC, &N);
    *In = *Out = 2 * N;
  } else if (Topo == MPI_GRAPH) {
    int Rank, N;
    PMPI_Comm_rank(RC, &Rank);
    PMPI_Graph_neighbors_count(RC, Rank, &N);
    *In = *Out = N;
  } else if (Topo == MPI_DIST_GRAPH) {
    int W;
    PMPI_Dist_graph_neighbors_count(RC, In, Out, &W);
  }
}

static void askFacts(MPI_Comm RC, Object::CommFacts &F) {
  int Inter = 0;
  PMPI_Comm_test_inter(RC, &Inter);
  F.Inter = Inter;
  PMPI_Comm_rank(RC, &F.Rank);
  askDegrees(RC, &F.In, &F.Out);
  F.Known = true;
}

// MPI_COMM_WORLD's are known from the start; MPI's other predefined
// communicators (MPI_COMM_SELF) have no object, nor has an MPI_Comm_idup
// one a real communicator before its request completes: asked each time,
// into Scratch (and MPI reports a bad one as the call would).
const Object::CommFacts &commFacts(MPI_Comm C, Object::CommFacts &Scratch) {
  if (C == MPI_COMM_WORLD) {
    Scratch = {true, false, L->Rank, 0, 0};
    return Scratch;
  }
  Object *O = object(C);
  if (!O || O->Kind != ObjKind::Comm || O->Real.Comm == MPI_COMM_NULL) {
    askFacts(realComm(C), Scratch);
    return Scratch;
  }
  if (!O->Facts.Known)
    askFacts(O->Real.Comm, O->Facts);
  return O->Facts;
}

int commPeers(MPI_Comm C) {
  if (C == MPI_COMM_WORLD)
    return L->Size;
  Object *O = object(C);
  if (O && O->Kind == ObjKind::Comm && O->WorldRanks)
    return O->Size;
  MPI_Comm RC = realComm(C);
  int Inter = 0, N = 0;
  PMPI_Comm_test_inter(RC, &Inter);
  if (Inter)
    PMPI_Comm_remote_size(RC, &N);
  else
    PMPI_Comm_size(RC, &N);
  return N;
}

int typeArrayLength(MPI_Comm C, bool Neighbour, bool Recv) {
  if (!Neighbour)
    return commPeers(C);
  Object::CommFacts Scratch;
  const Object::CommFacts &F = commFacts(C, Scratch);
  return Recv ? F.In : F.Out;
}

} // namespace mpi
} // namespace ccc
