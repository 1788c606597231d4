// forced_on_one_rank.c - rank 0 forces a checkpoint at step 5; the other
// ranks never exchange a message with it between sites (each computes on
// its own until a final reduction). They learn of the checkpoint only from
// the layer's control messages, which a site looks for once per tick of the
// coarse clock (4 ms): each rank must save at one of its next sites, so the
// version is committed long before MPI_Finalize.
#include "ccc.h"

#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  double X = Rank + 1;
  // About 0.2 ms a step, 400 steps: 80 ms, 20 ticks.
  for (int S = 0; S < 400; ++S) {
    if (Rank == 0 && S == 5)
      ccc_checkpoint_force();
    else
      ccc_checkpoint();
    for (int I = 0; I < 100000; ++I)
      X = X * 0.999999 + 1e-6;
  }
  double Sum;
  MPI_Reduce(&X, &Sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (Rank == 0)
    printf("sum %.12f\n", Sum);
  MPI_Finalize();
  return 0;
}
