// cg_allreduce.c - proves collectives survive a restart: conjugate-gradient
// iterations on a distributed N-vector (a symmetric positive definite
// tridiagonal matrix, halo by MPI_Sendrecv with MPI_PROC_NULL at the ends),
// with per iteration MPI_Allreduce (dot products with MPI_SUM, the largest
// residual with MPI_MAX), MPI_Bcast of rank 0's control (restart now? with
// which right-hand side?), MPI_Scan (prefix sums of the solution) and
// MPI_Reduce to rank 0 (a history that only rank 0 holds and that seeds the
// next right-hand side). Rank 0 checkpoints right after the MPI_Bcast it
// roots, the others right after the MPI_Reduce they feed, so collective
// traffic can be in flight at a checkpoint and the ranks' checkpoints lie in
// different parts of the iteration.
//   usage: cg_allreduce ITERATIONS
// Rank 0 prints the restart count and residuals, sums and scan totals
// bit-exactly (they depend on the rank count, not on timing).
#include "ccc.h"

#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 1 << 16, MAXSTEPS = 1000 }; // global size, steps between restarts
static const double Tol = 1e-24;       // restart when rr < Tol * rr0

static int Rank, Size, NLoc, Left, Right;
static long First;                   // global index of our first element
static double *X, *R, *P, *Q, *Diag; // P has ghosts: P[-1], P[NLoc]

static uint64_t mix64(uint64_t V) {
  V ^= V >> 30;
  V *= 0xbf58476d1ce4e5b9ULL;
  V ^= V >> 27;
  V *= 0x94d049bb133111ebULL;
  return V ^ (V >> 31);
}

static double unit(uint64_t Seed, long G) {
  return (double)(mix64(Seed ^ mix64((uint64_t)G)) >> 11) * 0x1p-53;
}

static double allSum(double Local) {
  double Global;
  MPI_Allreduce(&Local, &Global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return Global;
}

// Q = A P with A = tridiag(-1, Diag, -1), zero outside [0, N).
static void matvec(void) {
  P[-1] = P[NLoc] = 0;
  MPI_Sendrecv(&P[0], 1, MPI_DOUBLE, Left, 1, &P[NLoc], 1, MPI_DOUBLE, Right, 1,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Sendrecv(&P[NLoc - 1], 1, MPI_DOUBLE, Right, 2, &P[-1], 1, MPI_DOUBLE,
               Left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int I = 0; I < NLoc; ++I)
    Q[I] = Diag[I] * P[I] - P[I - 1] - P[I + 1];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  long Iters = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
  NLoc = N / Size + (Rank < N % Size);
  First = (long)Rank * (N / Size) + (Rank < N % Size ? Rank : N % Size);
  Left = Rank > 0 ? Rank - 1 : MPI_PROC_NULL;
  Right = Rank < Size - 1 ? Rank + 1 : MPI_PROC_NULL;
  X = malloc(NLoc * sizeof *X);
  R = malloc(NLoc * sizeof *R);
  Q = malloc(NLoc * sizeof *Q);
  Diag = malloc(NLoc * sizeof *Diag);
  P = (double *)malloc((NLoc + 2) * sizeof *P) + 1;
  for (int I = 0; I < NLoc; ++I)
    Diag[I] = 2 + 1e-3 * (1 + unit(7, First + I));

  double RR = 0, RR0 = 0, RMax = 0, History = 0, ScanAcc = 0;
  long Restarts = 0, Since = 0;
  for (long K = 0; K < Iters; ++K) {
    // Rank 0 decides whether to restart and seeds the new right-hand side
    // from its history of MPI_Reduce results.
    double Ctl[2] = {0, 0};
    if (Rank == 0) {
      uint64_t Bits;
      memcpy(&Bits, &History, sizeof Bits);
      Ctl[0] = K == 0 || RR < Tol * RR0 || Since >= MAXSTEPS;
      Ctl[1] = (double)(mix64(Bits) >> 40);
    }
    MPI_Bcast(Ctl, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (Rank == 0)
      ccc_checkpoint(); // the broadcast may still be reaching the others
    if (Ctl[0]) {
      for (int I = 0; I < NLoc; ++I) {
        X[I] = 0;
        R[I] = P[I] = unit((uint64_t)Ctl[1], First + I) - 0.5;
      }
      double Local = 0;
      for (int I = 0; I < NLoc; ++I)
        Local += R[I] * R[I];
      RR = RR0 = allSum(Local);
      ++Restarts;
      Since = 0;
    }

    // One CG step.
    matvec();
    double PQ = 0;
    for (int I = 0; I < NLoc; ++I)
      PQ += P[I] * Q[I];
    double Alpha = RR / allSum(PQ);
    double Local = 0, LocalMax = 0;
    for (int I = 0; I < NLoc; ++I) {
      X[I] += Alpha * P[I];
      R[I] -= Alpha * Q[I];
      Local += R[I] * R[I];
      LocalMax = fmax(LocalMax, fabs(R[I]));
    }
    double RRNew = allSum(Local);
    MPI_Allreduce(&LocalMax, &RMax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double Beta = RRNew / RR;
    for (int I = 0; I < NLoc; ++I)
      P[I] = R[I] + Beta * P[I];
    RR = RRNew;
    ++Since;

    // Prefix sums of the solution over the ranks, and rank 0's history.
    double XSum = 0, Prefix, Total;
    for (int I = 0; I < NLoc; ++I)
      XSum += X[I];
    MPI_Scan(&XSum, &Prefix, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    ScanAcc += Prefix;
    MPI_Reduce(&XSum, &Total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (Rank == 0)
      History = History * 0.5 + Total;
    else
      ccc_checkpoint(); // our contribution may still be on its way to rank 0
  }

  double ScanTotal;
  MPI_Reduce(&ScanAcc, &ScanTotal, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (Rank == 0) {
    printf("cg_allreduce: n=%d ranks=%d iterations=%ld\n", N, Size, Iters);
    printf("restarts %ld\n", Restarts);
    printf("rr %a rmax %a\n", RR, RMax);
    printf("history %a\n", History);
    printf("scan total %a\n", ScanTotal);
  }
  free(X);
  free(R);
  free(Q);
  free(Diag);
  free(P - 1);
  MPI_Finalize();
  return 0;
}
