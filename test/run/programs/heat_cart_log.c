// heat_cart_log.c - a 1-D heat equation on a periodic Cartesian grid of
// ranks, in the style of small production codes: every rank keeps a log
// file open for the whole run (fprintf at each step), rank 0 prints
// progress and a final checksum on standard output. Under `ckpt run` with
// injected failures both must end byte-identical to an uninterrupted run.
// The checkpoint hook flushes the log (ccc flushes stdio itself; the hook
// is how a program would flush what ccc cannot see) and counts how often
// it ran, which the final line reports to standard error.
//   usage: heat_cart_log STEPS CELLS
#include "ccc.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static FILE *Log;
static long HookRuns;

static void flushLog(void *Arg) {
  fflush((FILE *)Arg);
  ++HookRuns;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  long Steps = argc > 1 ? atol(argv[1]) : 4000;
  int Cells = argc > 2 ? atoi(argv[2]) : 2000;
  int Size, Dims[1] = {0}, Periods[1] = {1}, Rank, Left, Right;
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  MPI_Dims_create(Size, 1, Dims);
  MPI_Comm Ring;
  MPI_Cart_create(MPI_COMM_WORLD, 1, Dims, Periods, 0, &Ring);
  MPI_Comm_rank(Ring, &Rank);
  MPI_Cart_shift(Ring, 0, 1, &Left, &Right);

  char Name[64];
  snprintf(Name, sizeof(Name), "heat.%d.log", Rank);
  Log = fopen(Name, "w");
  if (!Log)
    MPI_Abort(MPI_COMM_WORLD, 1);
  ccc_on_checkpoint(flushLog, Log);

  double *U = calloc(Cells + 2, sizeof(double));
  double *V = calloc(Cells + 2, sizeof(double));
  for (int I = 1; I <= Cells; ++I)
    U[I] = (Rank * Cells + I) % 97 == 0 ? 100.0 : 0.0;
  for (long S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    MPI_Sendrecv(&U[Cells], 1, MPI_DOUBLE, Right, 1, &U[0], 1, MPI_DOUBLE, Left,
                 1, Ring, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&U[1], 1, MPI_DOUBLE, Left, 2, &U[Cells + 1], 1, MPI_DOUBLE,
                 Right, 2, Ring, MPI_STATUS_IGNORE);
    for (int I = 1; I <= Cells; ++I)
      V[I] = U[I] + 0.25 * (U[I - 1] - 2 * U[I] + U[I + 1]);
    double *T = U;
    U = V;
    V = T;
    double Local = 0, Total;
    for (int I = 1; I <= Cells; ++I)
      Local += U[I] * (I + Rank);
    MPI_Allreduce(&Local, &Total, 1, MPI_DOUBLE, MPI_SUM, Ring);
    fprintf(Log, "step %ld left %.12e right %.12e moment %.12e\n", S, U[1],
            U[Cells], Total);
    if (Rank == 0 && S % 100 == 0)
      printf("step %ld moment %.12e\n", S, Total);
  }
  double Local = 0, Sum;
  for (int I = 1; I <= Cells; ++I)
    Local += U[I];
  MPI_Reduce(&Local, &Sum, 1, MPI_DOUBLE, MPI_SUM, 0, Ring);
  if (Rank == 0)
    printf("heat %.15e after %ld steps\n", Sum, Steps);
  fprintf(stderr, "rank %d: checkpoint hook ran %ld times\n", Rank, HookRuns);
  fclose(Log);
  free(U);
  free(V);
  MPI_Comm_free(&Ring);
  MPI_Finalize();
  return 0;
}
