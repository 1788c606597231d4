// cg.c - preconditioned conjugate gradients on a 3-D 27-point operator
// with variable coefficients (the matrix of trilinear finite elements on a
// heterogeneous medium), rows split by planes over the ranks, CSR
// (bench/size).
//
// At the site: the matrix (written once, read every step), its diagonal,
// x, r, p and rho are live; q = A p and z = M^-1 r are recomputed before
// they are read and b is never read after the start: dead.
// usage: cg [MB per rank] [steps]
#include "moment.h"

#include <math.h>
#include <mpi.h>
#include <stdint.h>

// A coefficient per grid point: smooth variation times a hashed factor
// (a heterogeneous medium; as incompressible as measured data).
static double coefficient(long G) {
  uint64_t H = (uint64_t)G * 0x9e3779b97f4a7c15ull;
  H ^= H >> 29;
  H *= 0xbf58476d1ce4e5b9ull;
  H ^= H >> 32;
  return (1.0 + 0.5 * sin(1e-4 * (double)G)) *
         (0.5 + (double)(H >> 11) / 9007199254740992.0);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  double MB = argc > 1 ? atof(argv[1]) : 120;
  long Steps = argc > 2 ? atol(argv[2]) : 40;
  const long NX = 96, NY = 96, Plane = NX * NY;
  // Per row: 27 x (4 + 8) bytes of matrix, 4 of row pointer, 7 vectors.
  long NZ = (long)(MB * 1048576 / (Plane * (27 * 12 + 4 + 7 * 8)));
  if (NZ < 2)
    NZ = 2;
  long N = NZ * Plane, GZ = Size * NZ;
  int32_t *RowPtr = malloc((N + 1) * sizeof(int32_t));
  int32_t *Col = malloc(27 * N * sizeof(int32_t));
  double *Val = malloc(27 * N * sizeof(double));
  double *Diag = malloc(N * sizeof(double));
  double *X = calloc(N, sizeof(double)), *B = malloc(N * sizeof(double));
  double *R = malloc(N * sizeof(double)), *Z = malloc(N * sizeof(double));
  double *Q = malloc(N * sizeof(double));
  // p with a ghost plane below and above (columns index into it).
  double *P = calloc(N + 2 * Plane, sizeof(double)), *Pi = P + Plane;
  long K = 0;
  for (long Zl = 0; Zl < NZ; ++Zl)
    for (long Y = 0; Y < NY; ++Y)
      for (long Xc = 0; Xc < NX; ++Xc) {
        long I = (Zl * NY + Y) * NX + Xc, Gz = Rank * NZ + Zl;
        long G = (Gz * NY + Y) * NX + Xc;
        RowPtr[I] = (int32_t)K;
        double Ci = coefficient(G), Off = 0;
        long DiagAt = K;
        Col[K] = (int32_t)(I + Plane), Val[K++] = 0;
        for (int Dz = -1; Dz <= 1; ++Dz)
          for (int Dy = -1; Dy <= 1; ++Dy)
            for (int Dx = -1; Dx <= 1; ++Dx) {
              if ((!Dx && !Dy && !Dz) || Xc + Dx < 0 || Xc + Dx >= NX ||
                  Y + Dy < 0 || Y + Dy >= NY || Gz + Dz < 0 || Gz + Dz >= GZ)
                continue;
              long J = I + Dz * Plane + Dy * NX + Dx;
              long GJ = G + (Dz * NY + Dy) * NX + Dx;
              double W = -0.5 * (Ci + coefficient(GJ)) /
                         (double)(Dx * Dx + Dy * Dy + Dz * Dz);
              Col[K] = (int32_t)(J + Plane), Val[K++] = W;
              Off -= W;
            }
        Val[DiagAt] = Off + 0.1 * Ci; // diagonally dominant: SPD
        Diag[I] = Val[DiagAt];
        B[I] = cos(0.0007 * (double)G);
      }
  RowPtr[N] = (int32_t)K;
  double Rho = 0, Dot;
  for (long I = 0; I < N; ++I) {
    R[I] = B[I];
    Z[I] = R[I] / Diag[I];
    Pi[I] = Z[I];
    Rho += R[I] * Z[I];
  }
  MPI_Allreduce(MPI_IN_PLACE, &Rho, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double Oracle = (N + 1) * 4.0 + 12.0 * K + N * 8.0 /*diag*/ +
                  3.0 * N * 8 /*x r p*/;
  for (long S = 0; S < Steps; ++S) {
    bench_live(RowPtr, (N + 1) * sizeof(int32_t));
    bench_live(Col, K * sizeof(int32_t));
    bench_live(Val, K * sizeof(double));
    bench_live(Diag, N * sizeof(double));
    bench_live(X, N * sizeof(double));
    bench_live(R, N * sizeof(double));
    bench_live(Pi, N * sizeof(double));
    bench_site(S, Rank, Oracle);
    int Up = Rank + 1 < Size ? Rank + 1 : MPI_PROC_NULL;
    int Down = Rank > 0 ? Rank - 1 : MPI_PROC_NULL;
    MPI_Sendrecv(Pi + N - Plane, Plane, MPI_DOUBLE, Up, 1, P, Plane,
                 MPI_DOUBLE, Down, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(Pi, Plane, MPI_DOUBLE, Down, 2, Pi + N, Plane, MPI_DOUBLE,
                 Up, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    Dot = 0;
    for (long I = 0; I < N; ++I) {
      double Sum = 0;
      for (int32_t J = RowPtr[I]; J < RowPtr[I + 1]; ++J)
        Sum += Val[J] * P[Col[J]];
      Q[I] = Sum;
      Dot += Pi[I] * Sum;
    }
    MPI_Allreduce(MPI_IN_PLACE, &Dot, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double Alpha = Rho / Dot, RhoNew = 0;
    for (long I = 0; I < N; ++I) {
      X[I] += Alpha * Pi[I];
      R[I] -= Alpha * Q[I];
      Z[I] = R[I] / Diag[I];
      RhoNew += R[I] * Z[I];
    }
    MPI_Allreduce(MPI_IN_PLACE, &RhoNew, 1, MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
    for (long I = 0; I < N; ++I)
      Pi[I] = Z[I] + RhoNew / Rho * Pi[I];
    Rho = RhoNew;
  }
  double Sum = 0;
  for (long I = 0; I < N; ++I)
    Sum += X[I];
  MPI_Allreduce(MPI_IN_PLACE, &Sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (Rank == 0)
    printf("cg: %ld rows per rank, rho %.6e, sum(x) %.12e\n", N, Rho, Sum);
  MPI_Finalize();
  return 0;
}
