// comm_created_across_line.c - a communicator made while a checkpoint is
// in progress, rank 0 past its checkpoint and rank 1 not: that line could
// not be restarted (rank 1 would re-create the communicator while
// restoring, rank 0 only when it re-executes the call), so it must not be
// committed, with a ccc: message saying why; the job itself goes on.
//   usage: comm_created_across_line [dup | idup-open | idup-done]  (2 ranks)
// dup (the default): MPI_Comm_dup. idup-open: MPI_Comm_idup, still open at
// rank 1's checkpoint; idup-done: completed before it. Rank 1 started the
// duplication before its checkpoint, rank 0 after its own (and rank 0 may
// start it before or after the cuts reach it).
#include "ccc.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const char *Mode = argc > 1 ? argv[1] : "dup";
  int Rank, X, Sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (Rank == 0)
    ccc_checkpoint_force(); // rank 0's line
  MPI_Comm Dup;
  if (!strcmp(Mode, "dup")) {
    MPI_Comm_dup(MPI_COMM_WORLD, &Dup);
  } else {
    MPI_Request Q;
    MPI_Comm_idup(MPI_COMM_WORLD, &Dup, &Q);
    if (Rank == 1 && !strcmp(Mode, "idup-open"))
      ccc_checkpoint(); // rank 1's line, the duplication open
    MPI_Wait(&Q, MPI_STATUS_IGNORE);
  }
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
