// intercomm_collective.c - a collective on an inter-communicator under the
// non-blocking protocol (whose collectives assume one group) stops the job
// with a ccc: error instead of running a wrong exchange. At 2 ranks: one
// per group; a site makes the program a checkpointed one.
#include "ccc.h"

#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm Half, Inter;
  MPI_Comm_split(MPI_COMM_WORLD, Rank % 2, Rank, &Half);
  MPI_Intercomm_create(Half, 0, MPI_COMM_WORLD, 1 - Rank % 2, 9, &Inter);
  ccc_checkpoint();
  MPI_Barrier(Inter);
  printf("not reached\n");
  MPI_Finalize();
  return 0;
}
