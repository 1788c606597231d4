// nonblocking.c - all seventeen non-blocking collectives every iteration,
// many outstanding at once and some open across the checkpoint site: six
// are started before ccc_checkpoint() and completed after it (MPI_Waitall),
// the other eleven started after it on MPI_COMM_WORLD and on a duplicate,
// completed by an MPI_Testall loop, MPI_Waitany and MPI_Wait. Roots rotate;
// derived datatypes (a strided vector, per-peer types in Ialltoallw), a
// user-defined op and MPI_IN_PLACE appear in some. Every output's bits go
// into a hash that draws the next iteration's data.
//   usage: nonblocking ITERATIONS    (any rank count up to 8; tests use 3)
// Rank 0 prints every rank's hash and final data.
#include "ccc.h"
#include "mixing.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAXP = 8, BUF = 4 * MAXP * K };

static int cnt(int R, int J) { return (R + 2 * J) % 3 + 1; }

// One buffer pair per operation: none may be touched while it is open.
enum {
  BARRIER,
  BCAST,
  GATHER,
  SCATTERV,
  ALLTOALLW,
  ALLREDUCE, // before the site
  GATHERV,
  SCATTER,
  ALLGATHER,
  ALLGATHERV,
  ALLTOALL,
  ALLTOALLV,
  REDUCE,
  REDUCE_SCATTER,
  REDUCE_SCATTER_BLOCK,
  SCAN,
  EXSCAN,
  NOPS
};
static double In[NOPS][BUF], Out[NOPS][BUF];

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int R, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &R);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  long Iters = argc > 1 ? strtol(argv[1], NULL, 10) : 100;
  if (P > MAXP) {
    if (R == 0)
      fprintf(stderr, "nonblocking: at most %d ranks\n", MAXP);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm Dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &Dup);
  MPI_Datatype Strided; // 3 doubles, every second of 5
  MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &Strided);
  MPI_Type_commit(&Strided);
  MPI_Op HalfPlus;
  MPI_Op_create(halfPlus, 0, &HalfPlus);
  // Counts and displacements (constant; the ops only read them).
  int Up[MAXP], UpD[MAXP], Par[MAXP], ParD[MAXP], SC[MAXP], SD[MAXP], RC[MAXP],
      RD[MAXP], WSC[MAXP], WSD[MAXP], WRC[MAXP], WRD[MAXP];
  MPI_Datatype WST[MAXP], WRT[MAXP];
  int UpTotal = 0, ParTotal = 0, AvTotal = 0, WBytes = 0;
  for (int J = 0; J < P; ++J) {
    Up[J] = J + 1;
    UpD[J] = UpTotal;
    UpTotal += J + 1;
    Par[J] = J % 2 + 1;
    ParD[J] = ParTotal;
    ParTotal += J % 2 + 2; // a gap after each block
    SC[J] = cnt(R, J);
    SD[J] = 3 * J;
    RC[J] = cnt(J, R);
    RD[J] = AvTotal;
    AvTotal += RC[J];
    int Even = (R + J) % 2 == 0; // 2 ints, or a vector as 3 doubles
    WSC[J] = Even ? 2 : 1;
    WST[J] = Even ? MPI_INT : Strided;
    WSD[J] = J * 5 * (int)sizeof(double);
    WRC[J] = Even ? 2 : 3;
    WRT[J] = Even ? MPI_INT : MPI_DOUBLE;
    WRD[J] = WBytes;
    WBytes += Even ? 2 * sizeof(int) : 3 * sizeof(double);
  }

  Hash = mix64(0x5678 + (uint64_t)R);
  draw();
  for (long It = 0; It < Iters; ++It) {
    int Root = (int)(It % P), Root2 = (int)((It + 1) % P);
    for (int O = 0; O < NOPS; ++O)
      for (int I = 0; I < BUF; ++I) {
        In[O][I] = X[(I + O) % K] * (I % 5 + 1) + O;
        Out[O][I] = -1;
      }
    for (int J = 0; J < P; ++J) // Ialltoallw's ints
      if ((R + J) % 2 == 0)
        memcpy((char *)In[ALLTOALLW] + WSD[J], Ints, 2 * sizeof(int));
    memset(Out[ALLTOALLW], 0, WBytes);
    MPI_Request Q[NOPS];

    // Open across the site.
    MPI_Ibarrier(MPI_COMM_WORLD, &Q[BARRIER]);
    if (R != Root)
      memset(In[BCAST], 0, 5 * sizeof(double));
    MPI_Ibcast(In[BCAST], 1, Strided, Root, MPI_COMM_WORLD, &Q[BCAST]);
    MPI_Igather(In[GATHER], 2, MPI_DOUBLE, Out[GATHER], 2, MPI_DOUBLE, Root2,
                Dup, &Q[GATHER]);
    MPI_Iscatterv(In[SCATTERV], Up, UpD, MPI_DOUBLE, Out[SCATTERV], R + 1,
                  MPI_DOUBLE, Root, MPI_COMM_WORLD, &Q[SCATTERV]);
    MPI_Ialltoallw(In[ALLTOALLW], WSC, WSD, WST, Out[ALLTOALLW], WRC, WRD, WRT,
                   Dup, &Q[ALLTOALLW]);
    MPI_Iallreduce(In[ALLREDUCE], Out[ALLREDUCE], K, MPI_DOUBLE, HalfPlus,
                   MPI_COMM_WORLD, &Q[ALLREDUCE]);
    ccc_checkpoint();

    // Started after the site, while the six above may still be open.
    if (R == Root) { // in place at the root
      memcpy(Out[GATHERV] + UpD[R], In[GATHERV], (R + 1) * sizeof(double));
      MPI_Igatherv(MPI_IN_PLACE, 0, MPI_DOUBLE, Out[GATHERV], Up, UpD,
                   MPI_DOUBLE, Root, MPI_COMM_WORLD, &Q[GATHERV]);
    } else {
      MPI_Igatherv(In[GATHERV], R + 1, MPI_DOUBLE, NULL, NULL, NULL, MPI_DOUBLE,
                   Root, MPI_COMM_WORLD, &Q[GATHERV]);
    }
    MPI_Iscatter(In[SCATTER], 2, MPI_DOUBLE, Out[SCATTER], 2, MPI_DOUBLE, Root2,
                 Dup, &Q[SCATTER]);
    MPI_Iallgather(In[ALLGATHER], 3, MPI_DOUBLE, Out[ALLGATHER], 3, MPI_DOUBLE,
                   MPI_COMM_WORLD, &Q[ALLGATHER]);
    MPI_Iallgatherv(In[ALLGATHERV], R % 2 + 1, MPI_DOUBLE, Out[ALLGATHERV], Par,
                    ParD, MPI_DOUBLE, Dup, &Q[ALLGATHERV]);
    MPI_Ialltoall(In[ALLTOALL], 2, MPI_DOUBLE, Out[ALLTOALL], 2, MPI_DOUBLE,
                  MPI_COMM_WORLD, &Q[ALLTOALL]);
    MPI_Ialltoallv(In[ALLTOALLV], SC, SD, MPI_DOUBLE, Out[ALLTOALLV], RC, RD,
                   MPI_DOUBLE, Dup, &Q[ALLTOALLV]);
    MPI_Ireduce(In[REDUCE], Out[REDUCE], K, MPI_DOUBLE, MPI_SUM, Root2,
                MPI_COMM_WORLD, &Q[REDUCE]);
    MPI_Ireduce_scatter(In[REDUCE_SCATTER], Out[REDUCE_SCATTER], Up, MPI_DOUBLE,
                        MPI_SUM, Dup, &Q[REDUCE_SCATTER]);
    MPI_Ireduce_scatter_block(MPI_IN_PLACE, In[REDUCE_SCATTER_BLOCK], 2,
                              MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD,
                              &Q[REDUCE_SCATTER_BLOCK]);
    MPI_Iscan(In[SCAN], Out[SCAN], K, MPI_DOUBLE, HalfPlus, MPI_COMM_WORLD,
              &Q[SCAN]);
    MPI_Iexscan(Ints, Out[EXSCAN], K, MPI_INT, MPI_SUM, Dup, &Q[EXSCAN]);

    // The six from before the site, then the rest three ways.
    MPI_Waitall(ALLREDUCE + 1, Q, MPI_STATUSES_IGNORE);
    int Done = 0;
    while (!Done)
      MPI_Testall(ALLTOALLV - GATHERV + 1, &Q[GATHERV], &Done,
                  MPI_STATUSES_IGNORE);
    for (int N = 0; N < 3; ++N) {
      int Which;
      MPI_Waitany(3, &Q[REDUCE], &Which, MPI_STATUS_IGNORE);
    }
    for (int O = SCAN; O < NOPS; ++O)
      MPI_Wait(&Q[O], MPI_STATUS_IGNORE);

    take(In[BCAST], 5);
    if (R == Root2)
      take(Out[GATHER], 2 * P);
    take(Out[SCATTERV], R + 1);
    takeBytes(Out[ALLTOALLW], WBytes);
    take(Out[ALLREDUCE], K);
    if (R == Root)
      take(Out[GATHERV], UpTotal);
    take(Out[SCATTER], 2);
    take(Out[ALLGATHER], 3 * P);
    take(Out[ALLGATHERV], ParTotal);
    take(Out[ALLTOALL], 2 * P);
    take(Out[ALLTOALLV], AvTotal);
    if (R == Root2)
      take(Out[REDUCE], K);
    take(Out[REDUCE_SCATTER], R + 1);
    take(In[REDUCE_SCATTER_BLOCK], 2);
    take(Out[SCAN], K);
    if (R > 0)
      takeBytes(Out[EXSCAN], K * sizeof(int));
    draw();
  }

  uint64_t Hashes[MAXP];
  double Data[MAXP * K];
  MPI_Gather(&Hash, 1, MPI_UINT64_T, Hashes, 1, MPI_UINT64_T, 0,
             MPI_COMM_WORLD);
  MPI_Gather(X, K, MPI_DOUBLE, Data, K, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (R == 0) {
    printf("nonblocking: ranks=%d iterations=%ld\n", P, Iters);
    for (int J = 0; J < P; ++J) {
      printf("rank %d hash %016llx data", J, (unsigned long long)Hashes[J]);
      for (int I = 0; I < K; ++I)
        printf(" %a", Data[J * K + I]);
      printf("\n");
    }
  }
  MPI_Op_free(&HalfPlus);
  MPI_Type_free(&Strided);
  MPI_Comm_free(&Dup);
  MPI_Finalize();
  return 0;
}
