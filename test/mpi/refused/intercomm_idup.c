// intercomm_idup.c - MPI_Comm_idup of an inter-communicator under the
// non-blocking protocol (which numbers an idup with its parent's
// collectives, over one group) stops the job with a ccc: error instead of
// making a communicator a restart could not make again. At 2 ranks: one
// per group; a site makes the program a checkpointed one.
#include "ccc.h"

#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm Half, Inter, Dup;
  MPI_Comm_split(MPI_COMM_WORLD, Rank % 2, Rank, &Half);
  MPI_Intercomm_create(Half, 0, MPI_COMM_WORLD, 1 - Rank % 2, 9, &Inter);
  ccc_checkpoint();
  MPI_Request Req;
  MPI_Comm_idup(Inter, &Dup, &Req);
  MPI_Wait(&Req, MPI_STATUS_IGNORE);
  printf("not reached\n");
  MPI_Finalize();
  return 0;
}
