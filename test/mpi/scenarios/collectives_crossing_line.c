// collectives_crossing_line.c - every collective and reduction crossing one
// recovery line of three ranks (C3 4.3): ranks 0 and 2 checkpoint first
// (forced sites), then all three call each collective, rank 1 still before
// its checkpoint, which it takes after the last one. So every one crossed
// the line: ranks 0 and 2 log their outputs (C3 4.3), rank 1 logs nothing.
// Roots are on either side of the line, with MPI_IN_PLACE, derived and
// per-rank datatypes, a user-defined op, a sub-communicator and an
// MPI_Comm_disconnect. Rank 1 SIGKILLs itself after the commit (first run,
// CROSSING_LINE_KILL set); on restart ranks 0 and 2 re-execute every
// collective without rank 1, copying the outputs from their logs (no MPI
// call), and the job must print what
// an uninterrupted run prints.
//   usage: collectives_crossing_line   (exactly 3 ranks)
#include "ccc.h"

#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static double Acc = 1.0; // every result goes in; order matters

static void take(const double *V, int N) {
  for (int I = 0; I < N; ++I)
    Acc = Acc * 1.000001 + V[I];
}

static void takeInts(const int *V, int N) {
  for (int I = 0; I < N; ++I)
    Acc = Acc * 1.000001 + V[I];
}

// Not commutative: a 2x2 matrix product, so rank order shows in the result.
static void matmul(void *In, void *InOut, int *Len, MPI_Datatype *T) {
  (void)T;
  double *A = In, *B = InOut;
  for (int I = 0; I < *Len; ++I, A += 4, B += 4) {
    double R[4] = {A[0] * B[0] + A[1] * B[2], A[0] * B[1] + A[1] * B[3],
                   A[2] * B[0] + A[3] * B[2], A[2] * B[1] + A[3] * B[3]};
    for (int K = 0; K < 4; ++K)
      B[K] = R[K];
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  if (Size != 3) {
    if (Rank == 0)
      fprintf(stderr, "collectives_crossing_line: run with 3 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  // Made before the line: the restart re-creates them.
  MPI_Comm Pair; // {0, 1} and {2}
  MPI_Comm_split(MPI_COMM_WORLD, Rank == 2, Rank, &Pair);
  MPI_Comm Dup; // disconnected across the line
  MPI_Comm_dup(MPI_COMM_WORLD, &Dup);
  MPI_Datatype Strided; // every second double of 4
  MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &Strided);
  MPI_Type_commit(&Strided);
  MPI_Op MatMul;
  MPI_Op_create(matmul, 0, &MatMul);
  MPI_Barrier(MPI_COMM_WORLD);
  if (Rank != 1)
    ccc_checkpoint_force(); // the line of ranks 0 and 2

  double Mine[4], Buf[12], Out[12];
  for (int I = 0; I < 4; ++I)
    Mine[I] = 1.0 / (3 + Rank * 4 + I);
  MPI_Barrier(MPI_COMM_WORLD);
  // Bcast from each side of the line.
  for (int Root = 0; Root < 2; ++Root) {
    for (int I = 0; I < 4; ++I)
      Buf[I] = Rank == Root ? Mine[I] * (Root + 2) : -1;
    MPI_Bcast(Buf, 4, MPI_DOUBLE, Root, MPI_COMM_WORLD);
    take(Buf, 4);
  }
  // Gather at a rank past the line (late streams), Gatherv at rank 1 with
  // a strided receive type.
  MPI_Gather(Mine, 2, MPI_DOUBLE, Buf, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (Rank == 0)
    take(Buf, 6);
  {
    int Counts[3] = {1, 2, 1}, Displs[3] = {0, 1, 3};
    for (int I = 0; I < 12; ++I)
      Buf[I] = 0;
    MPI_Gatherv(Mine, Counts[Rank] * 2, MPI_DOUBLE, Buf, Counts, Displs,
                Strided, 1, MPI_COMM_WORLD);
    if (Rank == 1)
      take(Buf, 12);
  }
  // Scatter from rank 1, Scatterv from rank 2 (in place at the root).
  for (int I = 0; I < 12; ++I)
    Buf[I] = Mine[I % 4] + I;
  MPI_Scatter(Buf, 3, MPI_DOUBLE, Out, 3, MPI_DOUBLE, 1, MPI_COMM_WORLD);
  take(Out, 3);
  {
    int Counts[3] = {2, 3, 1}, Displs[3] = {5, 0, 9};
    Out[0] = Out[1] = Out[2] = 0;
    MPI_Scatterv(Buf, Counts, Displs, MPI_DOUBLE,
                 Rank == 2 ? MPI_IN_PLACE : Out, Counts[Rank], MPI_DOUBLE, 2,
                 MPI_COMM_WORLD);
    take(Out, 3);
  }
  // Allgather, Allgatherv in place.
  MPI_Allgather(Mine, 2, MPI_DOUBLE, Buf, 2, MPI_DOUBLE, MPI_COMM_WORLD);
  take(Buf, 6);
  {
    int Counts[3] = {3, 1, 2}, Displs[3] = {2, 0, 6};
    for (int I = 0; I < 12; ++I)
      Buf[I] = I == Displs[Rank] ? Mine[0] * 7 : (I < 8 ? Mine[1] : 0);
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, Buf, Counts, Displs,
                   MPI_DOUBLE, MPI_COMM_WORLD);
    take(Buf, 8);
  }
  // Alltoall, Alltoallv, Alltoallw.
  for (int I = 0; I < 12; ++I)
    Buf[I] = Mine[I % 4] * (I + 1);
  MPI_Alltoall(Buf, 2, MPI_DOUBLE, Out, 2, MPI_DOUBLE, MPI_COMM_WORLD);
  take(Out, 6);
  {
    int SC[3] = {1, 2, 3}, SD[3] = {0, 2, 5}, RC[3], RD[3];
    for (int R = 0; R < 3; ++R)
      RC[R] = SC[Rank], RD[R] = R * 4;
    for (int I = 0; I < 12; ++I)
      Out[I] = 0;
    MPI_Alltoallv(Buf, SC, SD, MPI_DOUBLE, Out, RC, RD, MPI_DOUBLE,
                  MPI_COMM_WORLD);
    take(Out, 12);
    // 2 doubles to each rank, received as one Strided element.
    int WC[3] = {2, 2, 2}, WD[3] = {0, 16, 32};
    int RWC[3] = {1, 1, 1}, RWD[3] = {0, 32, 64};
    MPI_Datatype ST[3] = {MPI_DOUBLE, MPI_DOUBLE, MPI_DOUBLE};
    MPI_Datatype RT[3] = {Strided, Strided, Strided};
    for (int I = 0; I < 12; ++I)
      Out[I] = 0;
    MPI_Alltoallw(Buf, WC, WD, ST, Out, RWC, RWD, RT, MPI_COMM_WORLD);
    take(Out, 12);
  }
  // Reductions: to a root on each side, in place, all, scans, scatters.
  MPI_Reduce(Mine, Out, 4, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (Rank == 0)
    take(Out, 4);
  for (int I = 0; I < 4; ++I)
    Buf[I] = Mine[I];
  MPI_Reduce(Rank == 1 ? MPI_IN_PLACE : Buf, Buf, 4, MPI_DOUBLE, MPI_MAX, 1,
             MPI_COMM_WORLD);
  if (Rank == 1)
    take(Buf, 4);
  MPI_Allreduce(Mine, Out, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  take(Out, 4);
  for (int I = 0; I < 4; ++I)
    Buf[I] = Mine[I] + 1;
  MPI_Allreduce(MPI_IN_PLACE, Buf, 4, MPI_DOUBLE, MPI_PROD, MPI_COMM_WORLD);
  take(Buf, 4);
  {
    // MatMul on 2x2 matrices: one element of a 4-double contiguous type.
    double M[4] = {1 + Mine[0], Mine[1], Mine[2], 1 + Mine[3]}, P[4];
    MPI_Datatype Quad;
    MPI_Type_contiguous(4, MPI_DOUBLE, &Quad);
    MPI_Type_commit(&Quad);
    MPI_Allreduce(M, P, 1, Quad, MatMul, MPI_COMM_WORLD);
    take(P, 4);
    MPI_Scan(M, P, 1, Quad, MatMul, MPI_COMM_WORLD);
    take(P, 4);
    P[0] = P[1] = P[2] = P[3] = -5;
    MPI_Exscan(M, P, 1, Quad, MatMul, MPI_COMM_WORLD);
    if (Rank > 0) // undefined on rank 0
      take(P, 4);
    MPI_Type_free(&Quad);
  }
  {
    double In[6];
    for (int I = 0; I < 6; ++I)
      In[I] = Mine[I % 4] * (I + 1);
    MPI_Reduce_scatter_block(In, Out, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    take(Out, 2);
    int Counts[3] = {3, 1, 2};
    MPI_Reduce_scatter(In, Out, Counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    take(Out, Counts[Rank]);
    int Ints[3] = {Rank + 1, Rank * 3, 7 - Rank}, IntOut[3];
    MPI_Allreduce(Ints, IntOut, 3, MPI_INT, MPI_BXOR, MPI_COMM_WORLD);
    takeInts(IntOut, 3);
  }
  // A sub-communicator: {0, 1} crosses the line, {2} is alone.
  MPI_Allreduce(Mine, Out, 4, MPI_DOUBLE, MPI_SUM, Pair);
  take(Out, 4);
  MPI_Bcast(Out, 2, MPI_DOUBLE, 0, Pair);
  take(Out, 2);
  // Collective 0 on Dup: re-executed from the log, it only frees Dup (the
  // barrier Open MPI's disconnect does would wait for rank 1 for ever).
  MPI_Comm_disconnect(&Dup);
  MPI_Barrier(MPI_COMM_WORLD);
  if (Rank == 1)
    ccc_checkpoint(); // rank 1's line: the others have started a checkpoint

  // Let the period end and rank 0 commit, then kill rank 1.
  for (int I = 0; I < 40; ++I) {
    double V = I + Rank;
    MPI_Allreduce(MPI_IN_PLACE, &V, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    take(&V, 1);
    usleep(5000);
  }
  if (Rank == 1 && !ccc_restarted() && getenv("CROSSING_LINE_KILL"))
    raise(SIGKILL);
  double All;
  MPI_Reduce(&Acc, &All, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (Rank == 0)
    printf("collectives_crossing_line: %a\n", All);
  MPI_Op_free(&MatMul);
  MPI_Type_free(&Strided);
  MPI_Comm_free(&Pair);
  MPI_Finalize();
  return 0;
}
