// graph_neighbours.c - proves communicators with a graph topology made
// before a checkpoint are re-created on restart and carry messages along
// their edges after it: a ring from MPI_Graph_create (reorder = 1), a
// weighted graph from MPI_Dist_graph_create_adjacent (each rank sends to the
// next two, weights 1 and 2) and an unweighted one from
// MPI_Dist_graph_create (each rank declares its edge to the previous one).
// Every step, at the top of which every rank checkpoints, each rank asks
// the topology for its neighbours (MPI_Graph_neighbors_count,
// MPI_Graph_neighbors, MPI_Dist_graph_neighbors_count,
// MPI_Dist_graph_neighbors), and exchanges values with them by
// MPI_Isend/MPI_Irecv/MPI_Waitall, scaled by the edge weights.
//   usage: graph_neighbours STEPS   (at least 3 ranks)
// Rank 0 prints what the topology queries give after the last step and a
// hash of every rank's values, bit-exactly.
#include "ccc.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MaxNb = 4 };

static MPI_Comm Ring, Weighted, Backward;
static uint64_t Value;

static uint64_t mix64(uint64_t X) {
  X ^= X >> 30;
  X *= 0xbf58476d1ce4e5b9ULL;
  X ^= X >> 27;
  X *= 0x94d049bb133111ebULL;
  return X ^ (X >> 31);
}

// Sends Value * weight to every destination, receives from every source.
static uint64_t exchange(MPI_Comm C, int NIn, const int *In, int NOut,
                         const int *Out, const int *OutW, int Tag) {
  uint64_t Got[MaxNb], Sent[MaxNb];
  MPI_Request Req[2 * MaxNb];
  for (int K = 0; K < NIn; ++K)
    MPI_Irecv(&Got[K], 1, MPI_UINT64_T, In[K], Tag, C, &Req[K]);
  for (int K = 0; K < NOut; ++K) {
    Sent[K] = Value * (uint64_t)(OutW ? OutW[K] : 1);
    MPI_Isend(&Sent[K], 1, MPI_UINT64_T, Out[K], Tag, C, &Req[NIn + K]);
  }
  MPI_Waitall(NIn + NOut, Req, MPI_STATUSES_IGNORE);
  uint64_t H = 0;
  for (int K = 0; K < NIn; ++K)
    H = mix64(H ^ Got[K] ^ (uint64_t)In[K] << 56);
  return H;
}

static void step(int S) {
  int Rank, N, Nb[MaxNb];
  MPI_Comm_rank(Ring, &Rank);
  MPI_Graph_neighbors_count(Ring, Rank, &N);
  MPI_Graph_neighbors(Ring, Rank, MaxNb, Nb);
  uint64_t H = exchange(Ring, N, Nb, N, Nb, NULL, 1);

  int NIn, NOut, W, In[MaxNb], InW[MaxNb], Out[MaxNb], OutW[MaxNb];
  MPI_Dist_graph_neighbors_count(Weighted, &NIn, &NOut, &W);
  MPI_Dist_graph_neighbors(Weighted, MaxNb, In, InW, MaxNb, Out, OutW);
  H ^= mix64(exchange(Weighted, NIn, In, NOut, Out, OutW, 2));

  MPI_Dist_graph_neighbors_count(Backward, &NIn, &NOut, &W);
  MPI_Dist_graph_neighbors(Backward, MaxNb, In, MPI_UNWEIGHTED, MaxNb, Out,
                           MPI_UNWEIGHTED);
  H ^= mix64(exchange(Backward, NIn, In, NOut, Out, NULL, 3) + 1);
  Value = mix64(Value ^ H ^ (uint64_t)S);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Steps = argc > 1 ? atoi(argv[1]) : 200;
  int Size, Rank;
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  if (Size < 3) {
    if (Rank == 0)
      fprintf(stderr, "graph_neighbours: needs at least 3 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }

  // The ring, undirected: node I is joined to I - 1 and I + 1.
  int *Index = malloc(sizeof(int) * Size),
      *Edges = malloc(sizeof(int) * 2 * Size);
  for (int I = 0; I < Size; ++I) {
    Index[I] = 2 * (I + 1);
    Edges[2 * I] = (I + Size - 1) % Size;
    Edges[2 * I + 1] = (I + 1) % Size;
  }
  MPI_Graph_create(MPI_COMM_WORLD, Size, Index, Edges, 1, &Ring);
  int Out[2] = {(Rank + 1) % Size, (Rank + 2) % Size}, OutW[2] = {1, 2};
  int In[2] = {(Rank + Size - 1) % Size, (Rank + Size - 2) % Size},
      InW[2] = {1, 2};
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, In, InW, 2, Out, OutW,
                                 MPI_INFO_NULL, 1, &Weighted);
  int Src[1] = {Rank}, Deg[1] = {1}, Dst[1] = {(Rank + Size - 1) % Size};
  MPI_Dist_graph_create(MPI_COMM_WORLD, 1, Src, Deg, Dst, MPI_UNWEIGHTED,
                        MPI_INFO_NULL, 0, &Backward);
  free(Index);
  free(Edges);
  Value = mix64((uint64_t)Rank + 1);

  for (int S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    step(S);
  }

  // What the queries give now, at every rank, gathered to rank 0.
  int T1, T2, T3, NNodes, NEdges, NIn, NOut, W, W2, Nb[MaxNb], GIn[MaxNb],
      GInW[MaxNb], GOut[MaxNb], GOutW[MaxNb], Mapped;
  MPI_Topo_test(Ring, &T1);
  MPI_Topo_test(Weighted, &T2);
  MPI_Topo_test(Backward, &T3);
  MPI_Graphdims_get(Ring, &NNodes, &NEdges);
  int *Index2 = malloc(sizeof(int) * NNodes),
      *Edges2 = malloc(sizeof(int) * NEdges);
  MPI_Graph_get(Ring, NNodes, NEdges, Index2, Edges2);
  MPI_Graph_map(MPI_COMM_WORLD, NNodes, Index2, Edges2, &Mapped);
  MPI_Graph_neighbors(Ring, Rank, MaxNb, Nb);
  MPI_Dist_graph_neighbors_count(Weighted, &NIn, &NOut, &W);
  MPI_Dist_graph_neighbors(Weighted, MaxNb, GIn, GInW, MaxNb, GOut, GOutW);
  int BIn, BOut;
  MPI_Dist_graph_neighbors_count(Backward, &BIn, &BOut, &W2);
  int Mine[16] = {Rank,
                  T1 == MPI_GRAPH,
                  T2 == MPI_DIST_GRAPH,
                  T3 == MPI_DIST_GRAPH,
                  Nb[0],
                  Nb[1],
                  NIn,
                  NOut,
                  W,
                  GIn[0],
                  GInW[0],
                  GIn[1],
                  GInW[1],
                  GOut[1],
                  BIn,
                  W2};
  int *All = malloc(sizeof(int) * 16 * Size);
  MPI_Gather(Mine, 16, MPI_INT, All, 16, MPI_INT, 0, MPI_COMM_WORLD);
  uint64_t H = 0;
  MPI_Reduce(&Value, &H, 1, MPI_UINT64_T, MPI_BXOR, 0, MPI_COMM_WORLD);
  if (Rank == 0) {
    printf("graph_neighbours: %d ranks, %d steps, ring of %d nodes %d edges "
           "(index[last] %d, rank 0 mapped to %d)\n",
           Size, Steps, NNodes, NEdges, Index2[NNodes - 1], Mapped);
    for (int R = 0; R < Size; ++R) {
      int *M = All + 16 * R;
      printf("rank %d: graph %d dist %d %d ring %d %d; weighted in %d out %d "
             "weighted %d from %d(w%d) %d(w%d) to ..%d; backward in %d "
             "weighted %d\n",
             M[0], M[1], M[2], M[3], M[4], M[5], M[6], M[7], M[8], M[9], M[10],
             M[11], M[12], M[13], M[14], M[15]);
    }
    printf("value hash %016llx\n", (unsigned long long)H);
  }
  free(All);
  free(Index2);
  free(Edges2);
  MPI_Comm_free(&Backward);
  MPI_Comm_free(&Weighted);
  MPI_Comm_free(&Ring);
  MPI_Finalize();
  return 0;
}
