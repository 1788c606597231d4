// fft_alltoall.c - proves communicators, datatypes and all-to-all
// collectives survive a restart. An N x N matrix is split into row blocks
// of unequal size (at 3 ranks); each iteration applies a fast
// Walsh-Hadamard transform and a scaling to every row, transposes the
// matrix with MPI_Alltoallv on a communicator from MPI_Comm_dup and checks
// every block against a hash sent with MPI_Alltoall, sends one strided
// column to the next rank as an MPI_Type_vector (received contiguous),
// gathers the matrix on rank 0 with MPI_Gatherv (rank 0 skews it) and
// scatters it back with MPI_Scatterv, normalises it with sums of squares
// from MPI_Allgather, sums energies on row communicators from
// MPI_Comm_split, and ends with MPI_Barrier. Rank 0 checkpoints while its
// column send and receive are pending; the other ranks right after their
// part of the MPI_Gatherv, which rank 0 may still be receiving. The
// datatype and both communicators are freed at the end.
//   usage: fft_alltoall ITERATIONS   (at most N ranks)
// Rank 0 prints hashes in hex and sums bit-exactly (the matrix hash and the
// column hash depend on the rank count, not on timing) and the number of
// blocks that failed their check (0).
#include "ccc.h"

#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 256, TAG_COL = 5 };

static int Rank, Size, Me; // Me: our row count, also our column count
static int *Cnt, *Off;     // rows of each rank and the first of them
static double *A;          // Me x N, our rows
static long Mismatches;    // transposed blocks whose hash did not match

static uint64_t mix64(uint64_t X) {
  X ^= X >> 30;
  X *= 0xbf58476d1ce4e5b9ULL;
  X ^= X >> 27;
  X *= 0x94d049bb133111ebULL;
  return X ^ (X >> 31);
}

// A value in [0, 1).
static double unit(uint64_t Key) {
  return (double)(mix64(Key) >> 11) * 0x1p-53;
}

static uint64_t hashDoubles(uint64_t H, const double *V, int Count) {
  for (int I = 0; I < Count; ++I) {
    uint64_t Bits;
    memcpy(&Bits, &V[I], sizeof Bits);
    H = mix64(H ^ Bits);
  }
  return H;
}

// In-place orthonormal Walsh-Hadamard transform of one row, then a scaling.
static void rowTransform(double *Row, const double *Scale) {
  for (int H = 1; H < N; H *= 2)
    for (int I = 0; I < N; I += 2 * H)
      for (int J = I; J < I + H; ++J) {
        double U = Row[J], V = Row[J + H];
        Row[J] = (U + V) * M_SQRT1_2;
        Row[J + H] = (U - V) * M_SQRT1_2;
      }
  for (int J = 0; J < N; ++J)
    Row[J] *= Scale[J];
}

// Transpose the distributed matrix. The block for rank Q is our rows x Q's
// columns; the block from rank P lands transposed in column range Off[P].
static void transpose(MPI_Comm Comm, double *Send, double *Recv) {
  int SCnt[Size], SDisp[Size], RCnt[Size], RDisp[Size];
  uint64_t SHash[Size], RHash[Size];
  for (int Q = 0, Pos = 0; Q < Size; ++Q) {
    SDisp[Q] = Pos;
    SCnt[Q] = Me * Cnt[Q];
    RCnt[Q] = Cnt[Q] * Me;
    RDisp[Q] = Off[Q] * Me;
    for (int I = 0; I < Me; ++I)
      for (int J = 0; J < Cnt[Q]; ++J)
        Send[Pos++] = A[I * N + Off[Q] + J];
    SHash[Q] = hashDoubles(0, Send + SDisp[Q], SCnt[Q]);
  }
  MPI_Alltoallv(Send, SCnt, SDisp, MPI_DOUBLE, Recv, RCnt, RDisp, MPI_DOUBLE,
                Comm);
  MPI_Alltoall(SHash, 1, MPI_UINT64_T, RHash, 1, MPI_UINT64_T, Comm);
  for (int P = 0; P < Size; ++P) {
    Mismatches += hashDoubles(0, Recv + RDisp[P], RCnt[P]) != RHash[P];
    for (int I = 0; I < Cnt[P]; ++I)
      for (int J = 0; J < Me; ++J)
        A[J * N + Off[P] + I] = Recv[RDisp[P] + I * Me + J];
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  long Iters = argc > 1 ? strtol(argv[1], NULL, 10) : 100;
  if (Size > N) {
    fprintf(stderr, "fft_alltoall: at most %d ranks\n", N);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm Dup, Row;
  MPI_Comm_dup(MPI_COMM_WORLD, &Dup);
  MPI_Comm_split(MPI_COMM_WORLD, Rank / 2, Rank, &Row); // pairs of ranks
  Cnt = malloc(Size * sizeof *Cnt);
  Off = malloc(Size * sizeof *Off);
  int *GCnt = malloc(Size * sizeof *GCnt), *GOff = malloc(Size * sizeof *GOff);
  for (int R = 0, Pos = 0; R < Size; Pos += Cnt[R++]) {
    Cnt[R] = N / Size + (R < N % Size);
    Off[R] = Pos;
    GCnt[R] = Cnt[R] * N; // in doubles, for MPI_Gatherv/MPI_Scatterv
    GOff[R] = Pos * N;
  }
  Me = Cnt[Rank];
  int Next = (Rank + 1) % Size, Prev = (Rank + Size - 1) % Size;
  MPI_Datatype Column; // one column of our block: Me doubles N apart
  MPI_Type_vector(Me, 1, N, MPI_DOUBLE, &Column);
  MPI_Type_commit(&Column);

  A = malloc((size_t)Me * N * sizeof *A);
  double *Send = malloc((size_t)Me * N * sizeof *Send);
  double *Recv = malloc((size_t)Me * N * sizeof *Recv);
  double *InCol = malloc(Cnt[Prev] * sizeof *InCol);
  double *Full = Rank == 0 ? malloc((size_t)N * N * sizeof *Full) : NULL;
  double *Skew = Rank == 0 ? malloc(N * sizeof *Skew) : NULL;
  double Scale[N], SumSq[Size], Norm = 0, RowEnergy = 0;
  uint64_t ColHash = 0;
  for (int I = 0; I < Me; ++I)
    for (int J = 0; J < N; ++J)
      A[I * N + J] = unit((uint64_t)(Off[Rank] + I) * N + J) - 0.5;

  for (long It = 0; It < Iters; ++It) {
    for (int J = 0; J < N; ++J)
      Scale[J] = 1 + 0.1 * unit(((uint64_t)It << 16) | J);
    for (int I = 0; I < Me; ++I)
      rowTransform(A + I * N, Scale);
    transpose(Dup, Send, Recv);

    // A strided column of ours to the next rank, theirs into InCol.
    MPI_Request Req[2];
    MPI_Irecv(InCol, Cnt[Prev], MPI_DOUBLE, Prev, TAG_COL, Dup, &Req[0]);
    MPI_Isend(A + It % N, 1, Column, Next, TAG_COL, Dup, &Req[1]);
    if (Rank == 0)
      ccc_checkpoint(); // column messages in flight
    MPI_Waitall(2, Req, MPI_STATUSES_IGNORE);
    ColHash = hashDoubles(ColHash, InCol, Cnt[Prev]);

    // Rank 0 skews the whole matrix: row I rotated left by I.
    MPI_Gatherv(A, Me * N, MPI_DOUBLE, Full, GCnt, GOff, MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
    if (Rank != 0)
      ccc_checkpoint(); // rank 0 may still be gathering
    if (Rank == 0)
      for (int I = 0; I < N; ++I) {
        for (int J = 0; J < N; ++J)
          Skew[J] = Full[I * N + (I + J) % N];
        memcpy(Full + I * N, Skew, N * sizeof *Skew);
      }
    MPI_Scatterv(Full, GCnt, GOff, MPI_DOUBLE, A, Me * N, MPI_DOUBLE, 0,
                 MPI_COMM_WORLD);

    // Normalise to unit mean square; energy summed over row communicators.
    double Local = 0, Total = 0, PairSum;
    for (int I = 0; I < Me * N; ++I)
      Local += A[I] * A[I];
    MPI_Allgather(&Local, 1, MPI_DOUBLE, SumSq, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int R = 0; R < Size; ++R) // in rank order: the same on every rank
      Total += SumSq[R];
    Norm = sqrt(Total / ((double)N * N));
    for (int I = 0; I < Me * N; ++I)
      A[I] /= Norm;
    MPI_Allreduce(&Local, &PairSum, 1, MPI_DOUBLE, MPI_SUM, Row);
    RowEnergy += PairSum;
    MPI_Barrier(MPI_COMM_WORLD);
  }

  uint64_t Hash = 0, GHash, GColHash;
  double GRowEnergy;
  for (int I = 0; I < Me; ++I)
    for (int J = 0; J < N; ++J)
      Hash ^= mix64(
          hashDoubles((uint64_t)(Off[Rank] + I) * N + J, &A[I * N + J], 1));
  MPI_Reduce(&Hash, &GHash, 1, MPI_UINT64_T, MPI_BXOR, 0, MPI_COMM_WORLD);
  MPI_Reduce(&ColHash, &GColHash, 1, MPI_UINT64_T, MPI_BXOR, 0, MPI_COMM_WORLD);
  MPI_Reduce(&RowEnergy, &GRowEnergy, 1, MPI_DOUBLE, MPI_SUM, 0,
             MPI_COMM_WORLD);
  long GMismatches;
  MPI_Reduce(&Mismatches, &GMismatches, 1, MPI_LONG, MPI_SUM, 0,
             MPI_COMM_WORLD);
  if (Rank == 0) {
    printf("fft_alltoall: %dx%d matrix, ranks=%d iterations=%ld\n", N, N, Size,
           Iters);
    printf("matrix hash %016llx\n", (unsigned long long)GHash);
    printf("column hash %016llx\n", (unsigned long long)GColHash);
    printf("last norm %a row energy %a\n", Norm, GRowEnergy);
    printf("bad blocks %ld\n", GMismatches);
  }
  MPI_Type_free(&Column);
  MPI_Comm_free(&Row);
  MPI_Comm_free(&Dup);
  free(A);
  free(Send);
  free(Recv);
  free(InCol);
  free(Full);
  free(Skew);
  free(Cnt);
  free(Off);
  free(GCnt);
  free(GOff);
  MPI_Finalize();
  return 0;
}
