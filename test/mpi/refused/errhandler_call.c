// errhandler_call.c - an MPI call ccc cannot checkpoint (a file error
// handler calling a program function) runs, and the next checkpoint stops
// the job with a ccc: error naming it, instead of writing an image that
// would silently miss its effects.
#include "ccc.h"

#include <mpi.h>
#include <stdio.h>

static void onFileError(MPI_File *F, int *Code, ...) { (void)F, (void)Code; }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Errhandler FileErrors;
  MPI_File_create_errhandler(onFileError, &FileErrors);
  printf("handler made\n");
  ccc_checkpoint_force();
  printf("not reached\n");
  MPI_Errhandler_free(&FileErrors);
  MPI_Finalize();
  return 0;
}
