// finalize_in_open_checkpoint.c - rank 0 forces a checkpoint at step 5
// (committed while all ranks pass sites), then another one after the
// ranks' last site: the others reach MPI_Finalize without a site at which
// they could take it. That checkpoint is abandoned, not failed: the
// program finished, nothing is lost.
#include "ccc.h"
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  double X = Rank + 1;
  // About 0.2 ms a step, 400 steps: the first checkpoint's control
  // messages (looked for once per 4 ms tick) reach every rank at a site.
  for (int S = 0; S < 400; ++S) {
    if (Rank == 0 && S == 5)
      ccc_checkpoint_force();
    else
      ccc_checkpoint();
    for (int I = 0; I < 100000; ++I)
      X = X * 0.999999 + 1e-6;
  }
  // Every rank is past its last site once the barrier returns.
  MPI_Barrier(MPI_COMM_WORLD);
  if (Rank == 0)
    ccc_checkpoint_force();
  double Sum;
  MPI_Reduce(&X, &Sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (Rank == 0)
    printf("sum %.12f\n", Sum);
  MPI_Finalize();
  return 0;
}
