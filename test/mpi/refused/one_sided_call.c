// one_sided_call.c - an MPI call ccc cannot checkpoint (a shared-memory
// window, whose memory only MPI can map) runs, and the next checkpoint stops the job with a ccc:
// error naming it, instead of writing an image that would silently miss
// its effects.
#include "ccc.h"

#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  double *Buf;
  MPI_Win Win;
  MPI_Win_allocate_shared(4 * sizeof(double), sizeof(double), MPI_INFO_NULL,
                          MPI_COMM_SELF, &Buf, &Win);
  printf("window made\n");
  ccc_checkpoint_force();
  printf("not reached\n");
  MPI_Win_free(&Win);
  MPI_Finalize();
  return 0;
}
