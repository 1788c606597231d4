// all_blocking.c - every blocking collective family, every iteration, on
// MPI_COMM_WORLD, on a split of it with the ranks in reverse order and on
// a split into the even and the odd ranks: Barrier, Bcast, Gather(v),
// Scatter(v), Allgather(v), Alltoall(v,w), Reduce, Allreduce,
// Reduce_scatter(_block), Scan, Exscan, with roots rotating, MPI_IN_PLACE
// in some, and derived datatypes (a strided vector, a resized pair, a
// struct of an int and a double, per-peer types in Alltoallw) in others.
// Every result's bits go into a hash that draws the next iteration's data.
//   usage: all_blocking ITERATIONS    (any rank count up to 8; tests use 3)
// Rank 0 prints every rank's hash and final data.
#include "ccc.h"
#include "mixing.h"

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAXP = 8 };

static MPI_Datatype Strided, Pair, Rec;

typedef struct {
  int I;
  double D;
} Record;

static MPI_Op HalfPlus;

// Bytes R sends to J in Alltoallv (and doubles in Alltoallw): 1..3.
static int cnt(int R, int J) { return (R + 2 * J) % 3 + 1; }

static void families(MPI_Comm C, long It) {
  int P, R;
  MPI_Comm_size(C, &P);
  MPI_Comm_rank(C, &R);
  int Root = (int)(It % P);
  double A[4 * MAXP * K], B[4 * MAXP * K];
  int Counts[MAXP], Displs[MAXP], RCounts[MAXP], RDispls[MAXP];

  MPI_Barrier(C);

  // Bcast of 3 doubles through a strided vector (every second of 5).
  for (int I = 0; I < 5; ++I)
    A[I] = R == Root ? X[I] : -1;
  MPI_Bcast(A, 1, Strided, Root, C);
  take(A, 5);

  // Gather of 2 doubles; Gatherv of R+1 doubles, in reverse rank order with
  // a gap of one between blocks, the root in place, the other ranks passing
  // NULL for what counts at the root only (as MPI allows).
  MPI_Gather(X, 2, MPI_DOUBLE, B, 2, MPI_DOUBLE, Root, C);
  if (R == Root)
    take(B, 2 * P);
  int At = 0;
  for (int J = P - 1; J >= 0; --J) {
    Counts[J] = J + 1;
    Displs[J] = At;
    At += J + 2;
  }
  for (int I = 0; I < At; ++I)
    B[I] = 7;
  if (R == Root) {
    memcpy(B + Displs[R], X, (R + 1) * sizeof *X);
    MPI_Gatherv(MPI_IN_PLACE, 0, MPI_DOUBLE, B, Counts, Displs, MPI_DOUBLE,
                Root, C);
    take(B, At);
  } else {
    MPI_Gatherv(X, R + 1, MPI_DOUBLE, NULL, NULL, NULL, MPI_DOUBLE, Root, C);
  }

  // Scatter of one resized pair (2 doubles, extent 3) per rank; Scatterv
  // of J+1 doubles to rank J.
  for (int I = 0; I < 6 * P; ++I) // Scatterv sends P(P+1)/2
    A[I] = X[I % K] * (I + 1);
  MPI_Scatter(A, 1, Pair, B, 2, MPI_DOUBLE, Root, C);
  take(B, 2);
  for (int J = 0, D = 0; J < P; ++J) {
    Counts[J] = J + 1;
    Displs[J] = D;
    D += J + 1;
  }
  if (R == Root) // the send arguments count at the root only
    MPI_Scatterv(A, Counts, Displs, MPI_DOUBLE, B, R + 1, MPI_DOUBLE, Root, C);
  else
    MPI_Scatterv(NULL, NULL, NULL, MPI_DOUBLE, B, R + 1, MPI_DOUBLE, Root, C);
  take(B, R + 1);

  // Allgather of a struct {int, double}; Allgatherv of (J%2)+1 doubles.
  Record Mine = {Ints[0], X[1]}, All[MAXP];
  MPI_Allgather(&Mine, 1, Rec, All, 1, Rec, C);
  for (int J = 0; J < P; ++J) {
    takeInts(&All[J].I, 1);
    take(&All[J].D, 1);
  }
  for (int J = 0, D = 0; J < P; ++J) {
    Counts[J] = J % 2 + 1;
    Displs[J] = D;
    D += J % 2 + 2;
  }
  for (int I = 0; I < 3 * P; ++I)
    B[I] = 0;
  MPI_Allgatherv(X + 2, R % 2 + 1, MPI_DOUBLE, B, Counts, Displs, MPI_DOUBLE,
                 C);
  take(B, 3 * P);

  // Alltoall of 2 doubles per peer; Alltoallv of cnt(R, J) doubles.
  for (int I = 0; I < 3 * P; ++I) // Alltoallv sends from 3 J on
    A[I] = X[I % K] + I;
  MPI_Alltoall(A, 2, MPI_DOUBLE, B, 2, MPI_DOUBLE, C);
  take(B, 2 * P);
  for (int J = 0, S = 0, D = 0; J < P; ++J) {
    Counts[J] = cnt(R, J);
    Displs[J] = S;
    S += 3;
    RCounts[J] = cnt(J, R);
    RDispls[J] = D;
    D += RCounts[J];
  }
  MPI_Alltoallv(A, Counts, Displs, MPI_DOUBLE, B, RCounts, RDispls, MPI_DOUBLE,
                C);
  take(B, RDispls[P - 1] + RCounts[P - 1]);

  // Alltoallw: to an even J, 2 ints; to an odd one, one strided vector
  // (3 doubles), received as 3 MPI_DOUBLEs; byte displacements.
  MPI_Datatype STypes[MAXP], RTypes[MAXP];
  int SBytes = 0, RBytes = 0;
  for (int J = 0; J < P; ++J) {
    int Even = (R + J) % 2 == 0;
    Counts[J] = Even ? 2 : 1;
    STypes[J] = Even ? MPI_INT : Strided;
    Displs[J] = SBytes;
    SBytes += 5 * sizeof(double);
    RCounts[J] = Even ? 2 : 3;
    RTypes[J] = Even ? MPI_INT : MPI_DOUBLE;
    RDispls[J] = RBytes;
    RBytes += Even ? 2 * sizeof(int) : 3 * sizeof(double);
  }
  for (int J = 0; J < P; ++J) {
    char *S = (char *)A + Displs[J];
    if ((R + J) % 2 == 0)
      memcpy(S, Ints, 2 * sizeof(int));
    else
      for (int I = 0; I < 5; ++I)
        ((double *)S)[I] = X[I] - J;
  }
  memset(B, 0, RBytes);
  MPI_Alltoallw(A, Counts, Displs, STypes, B, RCounts, RDispls, RTypes, C);
  takeBytes(B, RBytes);

  // Reduce: SUM of doubles, MINLOC of (double, int), the user op in place
  // at the root.
  MPI_Reduce(X, B, K, MPI_DOUBLE, MPI_SUM, Root, C);
  if (R == Root)
    take(B, K);
  struct {
    double V;
    int Where;
  } Loc = {X[3], R}, Min;
  MPI_Reduce(&Loc, &Min, 1, MPI_DOUBLE_INT, MPI_MINLOC, Root, C);
  if (R == Root) {
    take(&Min.V, 1);
    takeInts(&Min.Where, 1);
  }
  memcpy(B, X, K * sizeof *X);
  MPI_Reduce(R == Root ? MPI_IN_PLACE : B, R == Root ? B : NULL, K, MPI_DOUBLE,
             HalfPlus, Root, C);
  if (R == Root)
    take(B, K);

  // Allreduce: SUM, MAX of ints in place, the user op.
  MPI_Allreduce(X, B, K, MPI_DOUBLE, MPI_SUM, C);
  take(B, K);
  int IB[K];
  memcpy(IB, Ints, sizeof IB);
  MPI_Allreduce(MPI_IN_PLACE, IB, K, MPI_INT, MPI_MAX, C);
  takeInts(IB, K);
  MPI_Allreduce(X, B, K, MPI_DOUBLE, HalfPlus, C);
  take(B, K);

  // Reduce_scatter (J+1 to rank J), Reduce_scatter_block (2 each, in
  // place).
  for (int I = 0; I < P * (P + 1) / 2 || I < 2 * P; ++I)
    A[I] = X[I % K] * (I % 3 + 1);
  for (int J = 0; J < P; ++J)
    Counts[J] = J + 1;
  MPI_Reduce_scatter(A, B, Counts, MPI_DOUBLE, MPI_SUM, C);
  take(B, R + 1);
  MPI_Reduce_scatter_block(MPI_IN_PLACE, A, 2, MPI_DOUBLE, MPI_SUM, C);
  take(A, 2);

  // Scan with the user op, Exscan of ints (undefined at rank 0).
  MPI_Scan(X, B, K, MPI_DOUBLE, HalfPlus, C);
  take(B, K);
  MPI_Exscan(Ints, IB, K, MPI_INT, MPI_SUM, C);
  if (R > 0)
    takeInts(IB, K);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  long Iters = argc > 1 ? strtol(argv[1], NULL, 10) : 100;
  if (Size > MAXP) {
    if (Rank == 0)
      fprintf(stderr, "all_blocking: at most %d ranks\n", MAXP);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm Reversed, Parity;
  MPI_Comm_split(MPI_COMM_WORLD, 0, Size - Rank, &Reversed);
  MPI_Comm_split(MPI_COMM_WORLD, Rank % 2, Rank, &Parity);
  MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &Strided);
  MPI_Type_commit(&Strided);
  MPI_Datatype Two;
  MPI_Type_contiguous(2, MPI_DOUBLE, &Two);
  MPI_Type_create_resized(Two, 0, 3 * sizeof(double), &Pair);
  MPI_Type_commit(&Pair);
  MPI_Type_free(&Two);
  int Lens[2] = {1, 1};
  MPI_Aint Offs[2] = {offsetof(Record, I), offsetof(Record, D)};
  MPI_Datatype Types[2] = {MPI_INT, MPI_DOUBLE}, Raw;
  MPI_Type_create_struct(2, Lens, Offs, Types, &Raw);
  MPI_Type_create_resized(Raw, 0, sizeof(Record), &Rec);
  MPI_Type_commit(&Rec);
  MPI_Type_free(&Raw);
  MPI_Op_create(halfPlus, 0, &HalfPlus);

  Hash = mix64(0x1234 + (uint64_t)Rank);
  draw();
  for (long It = 0; It < Iters; ++It) {
    ccc_checkpoint();
    families(MPI_COMM_WORLD, It);
    families(Reversed, It);
    families(Parity, It);
    draw();
  }

  uint64_t Hashes[MAXP];
  double Data[MAXP * K];
  MPI_Gather(&Hash, 1, MPI_UINT64_T, Hashes, 1, MPI_UINT64_T, 0,
             MPI_COMM_WORLD);
  MPI_Gather(X, K, MPI_DOUBLE, Data, K, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (Rank == 0) {
    printf("all_blocking: ranks=%d iterations=%ld\n", Size, Iters);
    for (int P = 0; P < Size; ++P) {
      printf("rank %d hash %016llx data", P, (unsigned long long)Hashes[P]);
      for (int I = 0; I < K; ++I)
        printf(" %a", Data[P * K + I]);
      printf("\n");
    }
  }
  MPI_Op_free(&HalfPlus);
  MPI_Type_free(&Rec);
  MPI_Type_free(&Pair);
  MPI_Type_free(&Strided);
  MPI_Comm_free(&Parity);
  MPI_Comm_free(&Reversed);
  MPI_Finalize();
  return 0;
}
