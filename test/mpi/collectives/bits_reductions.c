// bits_reductions.c - reductions whose bits depend on the order MPI
// combines the contributions, fed back into the state every iteration.
// Each rank holds 2*P doubles of magnitudes 2^-56..2^56 (about 1e-17 to
// 1e+17), signs mixed, the magnitudes of one element differing from rank to
// rank, so (a+b)+(c+d) and ((a+b)+c)+d round differently. Every iteration
// calls MPI_Allreduce (MPI_SUM and a user-defined commutative op, each
// with and without MPI_IN_PLACE), MPI_Reduce (rotating root, in place at
// the root too), MPI_Scan, MPI_Exscan, MPI_Reduce_scatter and
// MPI_Reduce_scatter_block (each with and without MPI_IN_PLACE); every
// result's bits go into a hash that draws the next state, so a single bit
// combined otherwise than MPI combines it changes everything printed.
//   usage: bits_reductions ITERATIONS     (any rank count; tests use 4)
// Rank 0 prints every rank's final state, hash and last results with %a.
#include "ccc.h"

#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAXN = 64, NRES = 14 }; // NRES: result arrays per iteration

static int Rank, Size, N;
static uint64_t Hash = 0x9e3779b97f4a7c15ULL;

static uint64_t mix64(uint64_t V) {
  V ^= V >> 30;
  V *= 0xbf58476d1ce4e5b9ULL;
  V ^= V >> 27;
  V *= 0x94d049bb133111ebULL;
  return V ^ (V >> 31);
}

// Folds the bits of V[0..Count) into Hash.
static void take(const double *V, int Count) {
  for (int I = 0; I < Count; ++I) {
    uint64_t B;
    memcpy(&B, &V[I], sizeof B);
    Hash = mix64(Hash ^ B) + (uint64_t)I;
  }
}

// Element I of this rank: sign and mantissa from the hash, an exponent that
// differs between the ranks of one element (spread over -56..56).
static void draw(double *X, long It) {
  for (int I = 0; I < N; ++I) {
    uint64_t R = mix64(Hash + (uint64_t)I * 0x632be59bd9b4e019ULL);
    int E = (int)((I * 5 + Rank * 29 + It * 3 + (long)(R & 7)) % 113) - 56;
    double M = 1.0 + (double)(R >> 12) * 0x1p-52; // [1, 2)
    X[I] = ldexp((R >> 11) & 1 ? -M : M, E);
  }
}

// Commutative, not associative in floating point: a + b + a*b*2^-112
// (the product term is at most about 1 for the magnitudes used here).
static void sumProd(void *In, void *InOut, int *Len, MPI_Datatype *T) {
  (void)T;
  const double *A = In;
  double *B = InOut;
  for (int I = 0; I < *Len; ++I)
    B[I] = A[I] + B[I] + A[I] * B[I] * 0x1p-112;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  long Iters = argc > 1 ? strtol(argv[1], NULL, 10) : 100;
  N = 2 * Size;
  if (N > MAXN) {
    if (Rank == 0)
      fprintf(stderr, "bits_reductions: at most %d ranks\n", MAXN / 2);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Op SumProd;
  MPI_Op_create(sumProd, 1, &SumProd);
  // Reduce_scatter's counts: 1, 3, 1, 3, ... (sum 2P; the last rank takes
  // what is left).
  int Counts[MAXN / 2], Left = N;
  for (int R = 0; R < Size; ++R) {
    Counts[R] = R == Size - 1 ? Left : (R % 2 ? 3 : 1);
    Left -= Counts[R];
  }
  Hash ^= (uint64_t)Rank * 0x2545f4914f6cdd1dULL;
  double X[MAXN], Res[NRES][MAXN];
  draw(X, 0);
  for (long It = 0; It < Iters; ++It) {
    ccc_checkpoint();
    int Root = (int)(It % Size);
    memset(Res, 0, sizeof Res);
    // Allreduce: MPI_SUM and the user op, out of place and in place.
    MPI_Allreduce(X, Res[0], N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    memcpy(Res[1], X, N * sizeof *X);
    MPI_Allreduce(MPI_IN_PLACE, Res[1], N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(X, Res[2], N, MPI_DOUBLE, SumProd, MPI_COMM_WORLD);
    memcpy(Res[3], X, N * sizeof *X);
    MPI_Allreduce(MPI_IN_PLACE, Res[3], N, MPI_DOUBLE, SumProd, MPI_COMM_WORLD);
    // Reduce to a rotating root, out of place and in place at the root;
    // only the root's result is defined, so only the root takes it.
    MPI_Reduce(X, Res[4], N, MPI_DOUBLE, MPI_SUM, Root, MPI_COMM_WORLD);
    if (Rank == Root) {
      memcpy(Res[5], X, N * sizeof *X);
      MPI_Reduce(MPI_IN_PLACE, Res[5], N, MPI_DOUBLE, SumProd, Root,
                 MPI_COMM_WORLD);
    } else {
      MPI_Reduce(X, NULL, N, MPI_DOUBLE, SumProd, Root, MPI_COMM_WORLD);
    }
    if (Rank != Root)
      memset(Res[4], 0, sizeof Res[4]);
    // Scan and Exscan, both ways (Exscan's result is undefined at rank 0).
    MPI_Scan(X, Res[6], N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    memcpy(Res[7], X, N * sizeof *X);
    MPI_Scan(MPI_IN_PLACE, Res[7], N, MPI_DOUBLE, SumProd, MPI_COMM_WORLD);
    MPI_Exscan(X, Res[8], N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    memcpy(Res[9], X, N * sizeof *X);
    MPI_Exscan(MPI_IN_PLACE, Res[9], N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (Rank == 0) {
      memset(Res[8], 0, sizeof Res[8]);
      memset(Res[9], 0, sizeof Res[9]);
    }
    // Reduce_scatter (uneven counts) and Reduce_scatter_block, both ways:
    // in place, the whole input is in the receive buffer and the result
    // at its start.
    MPI_Reduce_scatter(X, Res[10], Counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    memcpy(Res[11], X, N * sizeof *X);
    MPI_Reduce_scatter(MPI_IN_PLACE, Res[11], Counts, MPI_DOUBLE, SumProd,
                       MPI_COMM_WORLD);
    MPI_Reduce_scatter_block(X, Res[12], 2, MPI_DOUBLE, SumProd,
                             MPI_COMM_WORLD);
    memcpy(Res[13], X, N * sizeof *X);
    MPI_Reduce_scatter_block(MPI_IN_PLACE, Res[13], 2, MPI_DOUBLE, MPI_SUM,
                             MPI_COMM_WORLD);
    for (int K = 10; K < NRES; ++K) // past the result: the input's rest
      memset(Res[K] + (K < 12 ? Counts[Rank] : 2), 0,
             (N - (K < 12 ? Counts[Rank] : 2)) * sizeof(double));
    for (int K = 0; K < NRES; ++K)
      take(Res[K], N);
    draw(X, It + 1);
  }

  // Rank 0 prints everything: state, hash and last results of every rank.
  enum { ROW = MAXN + 1 + NRES * MAXN };
  double Mine[ROW];
  memcpy(Mine, X, sizeof X);
  memcpy(&Mine[MAXN], &Hash, sizeof Hash); // the bits, printed as hex below
  memcpy(&Mine[MAXN + 1], Res, sizeof Res);
  double *All = Rank == 0 ? malloc((size_t)Size * ROW * sizeof *All) : NULL;
  MPI_Gather(Mine, ROW, MPI_DOUBLE, All, ROW, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (Rank == 0) {
    printf("bits_reductions: ranks=%d iterations=%ld\n", Size, Iters);
    for (int P = 0; P < Size; ++P) {
      const double *Row = All + (size_t)P * ROW;
      uint64_t H;
      memcpy(&H, &Row[MAXN], sizeof H);
      printf("rank %d hash %016llx\n", P, (unsigned long long)H);
      printf("rank %d state", P);
      for (int I = 0; I < N; ++I)
        printf(" %a", Row[I]);
      printf("\n");
      for (int K = 0; K < NRES; ++K) {
        printf("rank %d result %d", P, K);
        for (int I = 0; I < N; ++I)
          printf(" %a", Row[MAXN + 1 + K * MAXN + I]);
        printf("\n");
      }
    }
    free(All);
  }
  MPI_Op_free(&SumProd);
  MPI_Finalize();
  return 0;
}
