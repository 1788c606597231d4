// hybrid.c - the hybrid MPI + OpenMP kernel of bench/overhead: 1-D
// diffusion with a source, cells split over the ranks, each rank's sweep a
// `parallel for` over its cells with a reduction of the step's change. Per
// step, on the main thread outside any parallel region: the site, then the
// ghost-cell exchange with the neighbour ranks and an MPI_Allreduce of the
// change (MPI_THREAD_FUNNELED). The final norm is printed so that no sweep
// is dead code.
//   usage: hybrid [MB per rank] [steps]   (OMP_NUM_THREADS=2)
#include <ccc.h>
#include <math.h>
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int Got, Rank, Size;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &Got);
  // A rank that did not get the threads asked for would measure a serial
  // kernel: refuse to run.
  if (Got < MPI_THREAD_FUNNELED || omp_get_max_threads() != 2) {
    fprintf(stderr,
            "hybrid: thread level %d (FUNNELED is %d), %d threads "
            "(OMP_NUM_THREADS=2 expected)\n",
            Got, MPI_THREAD_FUNNELED, omp_get_max_threads());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  double MB = argc > 1 ? atof(argv[1]) : 48;
  long Steps = argc > 2 ? atol(argv[2]) : 100;
  // Three arrays of N doubles: the field (with two ghost cells), its next
  // value and the source.
  long N = (long)(MB * 1048576 / (3 * sizeof(double)));
  if (N < 2)
    N = 2;
  double *U = calloc(N + 2, sizeof(double));
  double *Unew = calloc(N + 2, sizeof(double));
  double *F = malloc(N * sizeof(double));
  if (!U || !Unew || !F) {
    fprintf(stderr, "hybrid: out of memory for %.1f MB\n", MB);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
#pragma omp parallel for schedule(static)
  for (long I = 0; I < N; ++I)
    F[I] = 1e-3 * sin(1e-4 * (double)(I + Rank * N));
  int Left = Rank > 0 ? Rank - 1 : MPI_PROC_NULL;
  int Right = Rank + 1 < Size ? Rank + 1 : MPI_PROC_NULL;
  double Change = 0;
  for (long S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    MPI_Sendrecv(&U[1], 1, MPI_DOUBLE, Left, 0, &U[N + 1], 1, MPI_DOUBLE, Right,
                 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&U[N], 1, MPI_DOUBLE, Right, 1, &U[0], 1, MPI_DOUBLE, Left, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double Local = 0;
#pragma omp parallel for schedule(static) reduction(+ : Local)
    for (long I = 1; I <= N; ++I) {
      double V = U[I] + 0.25 * (U[I - 1] - 2 * U[I] + U[I + 1]) + F[I - 1];
      Local += fabs(V - U[I]);
      Unew[I] = V;
    }
    double *T = U;
    U = Unew;
    Unew = T;
    MPI_Allreduce(&Local, &Change, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  double Norm = 0, Sum;
#pragma omp parallel for schedule(static) reduction(+ : Norm)
  for (long I = 1; I <= N; ++I)
    Norm += U[I] * U[I];
  MPI_Reduce(&Norm, &Sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (Rank == 0)
    printf("hybrid: %ld steps, change %.6e, norm %.6e\n", Steps, Change,
           sqrt(Sum));
  free(U);
  free(Unew);
  free(F);
  MPI_Finalize();
  return 0;
}
