// stencil.c - 3-D heat equation, Jacobi sweeps with a source term, planes
// split over the ranks (bench/size).
//
// At the site: u (with ghost planes) and the source f (written once) are
// live; unew is overwritten before it is read and flux (a diagnostic
// temporary) likewise: dead. usage: stencil [MB per rank] [steps]
#include "moment.h"

#include <math.h>
#include <mpi.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  double MB = argc > 1 ? atof(argv[1]) : 120;
  long Steps = argc > 2 ? atol(argv[2]) : 40;
  const long NX = 160, NY = 160, Plane = NX * NY;
  long NZ = (long)(MB * 1048576 / (Plane * 4 * sizeof(double)));
  if (NZ < 2)
    NZ = 2;
  long N = NZ * Plane, NG = N + 2 * Plane;
  double *U = calloc(NG, sizeof(double)), *Unew = calloc(NG, sizeof(double));
  double *F = malloc(N * sizeof(double)), *Flux = malloc(N * sizeof(double));
  for (long I = 0; I < N; ++I) {
    long X = I % NX, Y = I / NX % NY, Z = I / Plane + Rank * NZ;
    F[I] = 1e-3 * exp(-((X - 80.0) * (X - 80.0) + (Y - 80.0) * (Y - 80.0) +
                        (Z - 40.0) * (Z - 40.0)) /
                      800.0);
    U[Plane + I] = 0.1 * sin(0.05 * X) * cos(0.05 * Y);
  }
  double Oracle = (double)NG * 8 + (double)N * 8; // u with ghosts, f
  double Total = 0;
  for (long S = 0; S < Steps; ++S) {
    bench_live(U, NG * sizeof(double));
    bench_live(F, N * sizeof(double));
    bench_site(S, Rank, Oracle);
    int Up = Rank + 1 < Size ? Rank + 1 : MPI_PROC_NULL;
    int Down = Rank > 0 ? Rank - 1 : MPI_PROC_NULL;
    MPI_Sendrecv(U + N, Plane, MPI_DOUBLE, Up, 1, U, Plane, MPI_DOUBLE, Down,
                 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(U + Plane, Plane, MPI_DOUBLE, Down, 2, U + N + Plane, Plane,
                 MPI_DOUBLE, Up, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (long I = 0; I < N; ++I) {
      long X = I % NX, Y = I / NX % NY, G = I + Plane;
      double C = U[G];
      double L = X > 0 ? U[G - 1] : C, Rt = X < NX - 1 ? U[G + 1] : C;
      double D = Y > 0 ? U[G - NX] : C, T = Y < NY - 1 ? U[G + NX] : C;
      Unew[G] = C + 0.1 * (L + Rt + D + T + U[G - Plane] + U[G + Plane] -
                           6 * C) + F[I];
      Flux[I] = Rt - L;
    }
    double Local = 0;
    for (long I = 0; I < N; ++I)
      Local += Flux[I];
    double *Tmp = U;
    U = Unew;
    Unew = Tmp;
    MPI_Allreduce(MPI_IN_PLACE, &Local, 1, MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
    Total += Local;
  }
  double Sum = 0;
  for (long I = 0; I < N; ++I)
    Sum += U[Plane + I];
  MPI_Allreduce(MPI_IN_PLACE, &Sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (Rank == 0)
    printf("stencil: %ld points per rank, sum(u) %.12e, flux %.6e\n", N, Sum,
           Total);
  MPI_Finalize();
  return 0;
}
