// rma_uncommitted.c - a checkpoint the non-blocking protocol must not
// commit (issue 23): the site lies inside fence epochs (MPI_Win_fence with
// assert 0 only) in which every rank puts into its neighbour's window, so
// RMA calls of the epoch the checkpoint falls in could reach a target on
// the other side of its line. The forced checkpoint is raised at the next
// fence and taken by both ranks at the site after it; the fence after that
// finds RMA calls in the epoch and the version is not committed (the
// images are written). Under CCC_PROTOCOL=blocking the layer's own fence
// completes the epoch and the checkpoint is committed.
// With the argument pscw (CCC_PROTOCOL=blocking) the site lies inside a
// post/start epoch instead, which a restart could not re-open: no rank
// writes that checkpoint.
// With the argument lock (CCC_PROTOCOL=nonblocking) the window, which
// follows the fence rule after its first fence, is then used with
// MPI_Win_lock: the forced checkpoint after it stops the job.
//   usage: rma_uncommitted [pscw|lock]   (2 ranks)
#include "ccc.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long *cell = calloc(4, sizeof(long));
  MPI_Win w;
  MPI_Win_create(cell, 4 * sizeof(long), sizeof(long), MPI_INFO_NULL,
                 MPI_COMM_WORLD, &w);
  int pscw = argc > 1 && !strcmp(argv[1], "pscw");
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  MPI_Group world, from, to;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, 1, &left, &from);
  MPI_Group_incl(world, 1, &right, &to);
  if (!pscw)
    MPI_Win_fence(0, w);
  for (int step = 0; step < 20; ++step) {
    if (pscw) {
      MPI_Win_post(from, 0, w);
      MPI_Win_start(to, 0, w);
    }
    if (step == 5)
      ccc_checkpoint_force();
    else
      ccc_checkpoint();
    long v = step * 10 + rank;
    MPI_Put(&v, 1, MPI_LONG, right, step % 4, 1, MPI_LONG, w);
    if (pscw) {
      MPI_Win_complete(w);
      MPI_Win_wait(w);
    } else {
      MPI_Win_fence(0, w);
    }
  }
  if (!pscw)
    MPI_Win_fence(MPI_MODE_NOSUCCEED, w);
  if (argc > 1 && !strcmp(argv[1], "lock")) {
    long v = rank;
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, w);
    MPI_Put(&v, 1, MPI_LONG, right, 0, 1, MPI_LONG, w);
    MPI_Win_unlock(right, w);
    // Raised at the next fence, taken at the site after it.
    ccc_checkpoint_force();
    MPI_Win_fence(0, w);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, w);
    ccc_checkpoint();
    if (rank == 0)
      printf("not reached\n");
  }
  MPI_Group_free(&from);
  MPI_Group_free(&to);
  MPI_Group_free(&world);
  long sum = cell[0] + cell[1] + cell[2] + cell[3], all;
  MPI_Reduce(&sum, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("sum %ld\n", all);
  MPI_Win_free(&w);
  MPI_Finalize();
  return 0;
}
