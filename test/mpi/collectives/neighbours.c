// neighbours.c - neighbourhood collectives on a periodic 2-D Cartesian
// communicator (MPI_Dims_create: 2 x 2 at 4 ranks, so a rank's two
// neighbours in a dimension are one rank) and on a distributed graph from
// MPI_Dist_graph_create_adjacent whose edges are not symmetric (rank r
// sends to r+1, and even ranks also to r-1: in- and out-neighbours
// differ). Every iteration starts MPI_Ineighbor_allgather, allgatherv,
// alltoall, alltoallv and alltoallw on both communicators before
// ccc_checkpoint() and completes them after it (MPI_Waitall), having
// called the five blocking ones on both in between; per-neighbour counts,
// and in alltoallw per-neighbour types (2 ints, or a strided vector
// received as 3 doubles). Every output's bits go into a hash that draws
// the next data. (Open MPI and MPICH print different hashes: they order
// the two blocks from the one neighbour of a dimension of 2 differently.)
//   usage: neighbours ITERATIONS     (3 to 8 ranks; tests use 4)
// Rank 0 prints the topology and every rank's hash and final data.
#include "ccc.h"
#include "mixing.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAXN = 4, BUF = 64 }; // MAXN: neighbours of a rank at most

static MPI_Datatype Strided; // 3 doubles, every second of 5

// A communicator's neighbourhood: per send and receive slot a code both
// ends of the edge compute alike; code % 3 + 1 is the edge's count, its
// parity the alltoallw type.
typedef struct {
  MPI_Comm C;
  int In, Out;
  int SCode[MAXN], RCode[MAXN];
} Hood;

enum { AG, AGV, A2A, A2AV, A2AW, NOPS };
typedef struct {
  double In[NOPS][BUF], Out[NOPS][BUF];
  int GC[MAXN], GD[MAXN];                     // allgatherv
  int SC[MAXN], SD[MAXN], RC[MAXN], RD[MAXN]; // alltoallv
  int WSC[MAXN], WRC[MAXN];                   // alltoallw
  MPI_Aint WSD[MAXN], WRD[MAXN];
  MPI_Datatype WST[MAXN], WRT[MAXN];
  int GTotal, VTotal, WBytes;
} Bufs;

static void prepare(const Hood *H, Bufs *B, int Salt) {
  for (int O = 0; O < NOPS; ++O)
    for (int I = 0; I < BUF; ++I) {
      B->In[O][I] = X[(I + O + Salt) % K] * (I % 7 + 1) + O;
      B->Out[O][I] = -1;
    }
  B->GTotal = B->VTotal = B->WBytes = 0;
  for (int I = 0; I < H->In; ++I) {
    B->GC[I] = H->RCode[I] / 8 % 2 + 1; // the sender's rank parity + 1
    B->GD[I] = B->GTotal;
    B->GTotal += B->GC[I] + 1; // a gap after each block
    B->RC[I] = H->RCode[I] % 3 + 1;
    B->RD[I] = B->VTotal;
    B->VTotal += B->RC[I];
    int Even = H->RCode[I] % 2 == 0;
    B->WRC[I] = Even ? 2 : 3;
    B->WRT[I] = Even ? MPI_INT : MPI_DOUBLE;
    B->WRD[I] = B->WBytes;
    B->WBytes += Even ? 2 * sizeof(int) : 3 * sizeof(double);
  }
  for (int J = 0; J < H->Out; ++J) {
    B->SC[J] = H->SCode[J] % 3 + 1;
    B->SD[J] = 3 * J;
    int Even = H->SCode[J] % 2 == 0;
    B->WSC[J] = Even ? 2 : 1;
    B->WST[J] = Even ? MPI_INT : Strided;
    B->WSD[J] = J * 5 * (MPI_Aint)sizeof(double);
    if (Even)
      memcpy((char *)B->In[A2AW] + B->WSD[J], Ints, 2 * sizeof(int));
  }
  memset(B->Out[A2AW], 0, B->WBytes);
}

static void start(const Hood *H, Bufs *B, int Me, MPI_Request *Q) {
  MPI_Ineighbor_allgather(B->In[AG], 2, MPI_DOUBLE, B->Out[AG], 2, MPI_DOUBLE,
                          H->C, &Q[AG]);
  MPI_Ineighbor_allgatherv(B->In[AGV], Me % 2 + 1, MPI_DOUBLE, B->Out[AGV],
                           B->GC, B->GD, MPI_DOUBLE, H->C, &Q[AGV]);
  MPI_Ineighbor_alltoall(B->In[A2A], 2, MPI_DOUBLE, B->Out[A2A], 2, MPI_DOUBLE,
                         H->C, &Q[A2A]);
  MPI_Ineighbor_alltoallv(B->In[A2AV], B->SC, B->SD, MPI_DOUBLE, B->Out[A2AV],
                          B->RC, B->RD, MPI_DOUBLE, H->C, &Q[A2AV]);
  MPI_Ineighbor_alltoallw(B->In[A2AW], B->WSC, B->WSD, B->WST, B->Out[A2AW],
                          B->WRC, B->WRD, B->WRT, H->C, &Q[A2AW]);
}

static void blocking(const Hood *H, Bufs *B, int Me) {
  MPI_Neighbor_allgather(B->In[AG], 2, MPI_DOUBLE, B->Out[AG], 2, MPI_DOUBLE,
                         H->C);
  MPI_Neighbor_allgatherv(B->In[AGV], Me % 2 + 1, MPI_DOUBLE, B->Out[AGV],
                          B->GC, B->GD, MPI_DOUBLE, H->C);
  MPI_Neighbor_alltoall(B->In[A2A], 2, MPI_DOUBLE, B->Out[A2A], 2, MPI_DOUBLE,
                        H->C);
  MPI_Neighbor_alltoallv(B->In[A2AV], B->SC, B->SD, MPI_DOUBLE, B->Out[A2AV],
                         B->RC, B->RD, MPI_DOUBLE, H->C);
  MPI_Neighbor_alltoallw(B->In[A2AW], B->WSC, B->WSD, B->WST, B->Out[A2AW],
                         B->WRC, B->WRD, B->WRT, H->C);
}

static void takeAll(const Hood *H, const Bufs *B) {
  takeBytes(B->Out[AG], 2 * H->In * sizeof(double));
  takeBytes(B->Out[AGV], B->GTotal * sizeof(double));
  takeBytes(B->Out[A2A], 2 * H->In * sizeof(double));
  takeBytes(B->Out[A2AV], B->VTotal * sizeof(double));
  takeBytes(B->Out[A2AW], B->WBytes);
}

// Dist graph edges: r -> r+1, and r -> r-1 for even r.
static int outs(int R, int P, int *O) {
  O[0] = (R + 1) % P;
  if (R % 2 == 0) {
    O[1] = (R + P - 1) % P;
    return 2;
  }
  return 1;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int R, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &R);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  long Iters = argc > 1 ? strtol(argv[1], NULL, 10) : 100;
  if (P < 3 || P > 8) {
    if (R == 0)
      fprintf(stderr, "neighbours: run with 3 to 8 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &Strided);
  MPI_Type_commit(&Strided);

  // The torus: in- and out-neighbours are, per dimension, the ranks at -1
  // and +1; what a rank sends to slot k its neighbour receives in slot
  // k^1. Codes: 8 * sender's rank + 3 * dimension, the same both ways: in
  // a dimension of 2 both neighbours are one rank, and Open MPI 4.1
  // matches its two blocks by arrival (MPI_ERR_TRUNCATE when the counts
  // of the two directions differ).
  Hood Cart = {0};
  int Dims[2] = {0, 0}, Periods[2] = {1, 1};
  MPI_Dims_create(P, 2, Dims);
  MPI_Cart_create(MPI_COMM_WORLD, 2, Dims, Periods, 0, &Cart.C);
  int CR;
  MPI_Comm_rank(Cart.C, &CR);
  Cart.In = Cart.Out = 4;
  for (int D = 0; D < 2; ++D) {
    int Lo, Hi;
    MPI_Cart_shift(Cart.C, D, 1, &Lo, &Hi);
    int Nb[2] = {Lo, Hi};
    for (int S = 0; S < 2; ++S) {
      int Slot = 2 * D + S;
      Cart.SCode[Slot] = 8 * CR + 3 * D;
      Cart.RCode[Slot] = 8 * Nb[S] + 3 * D;
    }
  }

  // The graph; codes: 8 * sender + receiver.
  Hood Graph = {0};
  int Srcs[MAXN], Dsts[MAXN];
  Graph.Out = outs(R, P, Dsts);
  for (int S = 0; S < P; ++S) { // in-neighbours in rank order
    int O[2], N = outs(S, P, O);
    for (int I = 0; I < N; ++I)
      if (O[I] == R)
        Srcs[Graph.In++] = S;
  }
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, Graph.In, Srcs, MPI_UNWEIGHTED,
                                 Graph.Out, Dsts, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                 0, &Graph.C);
  for (int I = 0; I < Graph.In; ++I)
    Graph.RCode[I] = 8 * Srcs[I] + R;
  for (int J = 0; J < Graph.Out; ++J)
    Graph.SCode[J] = 8 * R + Dsts[J];

  static Bufs Open[2], Now[2];
  Hood *Hoods[2] = {&Cart, &Graph};
  int Mes[2] = {CR, R};
  Hash = mix64(0x9abc + (uint64_t)R);
  draw();
  for (long It = 0; It < Iters; ++It) {
    MPI_Request Q[2 * NOPS];
    for (int H = 0; H < 2; ++H) {
      prepare(Hoods[H], &Open[H], 0);
      start(Hoods[H], &Open[H], Mes[H], &Q[H * NOPS]);
    }
    ccc_checkpoint();
    for (int H = 0; H < 2; ++H) {
      prepare(Hoods[H], &Now[H], 1);
      blocking(Hoods[H], &Now[H], Mes[H]);
    }
    MPI_Waitall(2 * NOPS, Q, MPI_STATUSES_IGNORE);
    for (int H = 0; H < 2; ++H) {
      takeAll(Hoods[H], &Open[H]);
      takeAll(Hoods[H], &Now[H]);
    }
    draw();
  }

  uint64_t Hashes[8];
  double Data[8 * K];
  MPI_Gather(&Hash, 1, MPI_UINT64_T, Hashes, 1, MPI_UINT64_T, 0,
             MPI_COMM_WORLD);
  MPI_Gather(X, K, MPI_DOUBLE, Data, K, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (R == 0) {
    printf("neighbours: ranks=%d iterations=%ld torus %dx%d graph in %d out "
           "%d\n",
           P, Iters, Dims[0], Dims[1], Graph.In, Graph.Out);
    for (int J = 0; J < P; ++J) {
      printf("rank %d hash %016llx data", J, (unsigned long long)Hashes[J]);
      for (int I = 0; I < K; ++I)
        printf(" %a", Data[J * K + I]);
      printf("\n");
    }
  }
  MPI_Comm_free(&Graph.C);
  MPI_Comm_free(&Cart.C);
  MPI_Type_free(&Strided);
  MPI_Finalize();
  return 0;
}
