// datarep_call.c - an MPI call ccc cannot checkpoint (a data
// representation with program functions) runs, and the next checkpoint
// stops the job with a ccc: error naming it, instead of writing an image
// that would silently miss its effects.
#include "ccc.h"

#include <mpi.h>
#include <stdio.h>

static int extentOf(MPI_Datatype T, MPI_Aint *Extent, void *Extra) {
  (void)Extra;
  MPI_Aint Lb;
  return MPI_Type_get_extent(T, &Lb, Extent);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Register_datarep("ccc_refused_rep", MPI_CONVERSION_FN_NULL,
                       MPI_CONVERSION_FN_NULL, extentOf, NULL);
  printf("representation registered\n");
  ccc_checkpoint_force();
  printf("not reached\n");
  MPI_Finalize();
  return 0;
}
