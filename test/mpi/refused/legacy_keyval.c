// legacy_keyval.c - an MPI-1 name whose MPI-2 replacement ccc refuses
// (MPI_Keyval_create, served by MPI_Comm_create_keyval) stops the job at
// the next checkpoint with the replacement's refusal, naming both: the
// program's call and what ccc cannot checkpoint yet.
#define OMPI_OMIT_MPI1_COMPAT_DECLS 0 // Open MPI: declare the MPI-1 names

#include "ccc.h"

#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Key;
  MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &Key, NULL);
  ccc_checkpoint_force();
  printf("not reached\n");
  MPI_Finalize();
  return 0;
}
