// comm_created_across_line.c - a communicator made while a checkpoint is
// in progress, rank 0 past its checkpoint and rank 1 not: that line could
// not be restarted (rank 1 would re-create the communicator while
// restoring, rank 0 only when it re-executes MPI_Comm_dup), so it must not
// be committed, with a ccc: message saying why; the job itself goes on.
//   usage: comm_created_across_line   (2 ranks)
#include "ccc.h"

#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, X, Sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (Rank == 0)
    ccc_checkpoint_force(); // rank 0's line
  MPI_Comm Dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &Dup);
  X = Rank + 1;
  MPI_Allreduce(&X, &Sum, 1, MPI_INT, MPI_SUM, Dup);
  if (Rank == 1)
    ccc_checkpoint(); // rank 1's line, after the communicator was made
  for (int I = 0; I < 20; ++I)
    MPI_Allreduce(MPI_IN_PLACE, &X, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (Rank == 0)
    printf("comm_created_across_line: %d %d\n", Sum, X);
  MPI_Comm_free(&Dup);
  MPI_Finalize();
  return 0;
}
