/* failed_copy_callback.c - a duplication whose attribute copy callback
 * fails.
 *
 * MPI_Comm_dup and MPI_Type_dup return the callback's error, and the new
 * handle is then the null handle, which a careful program checks before
 * freeing (a test suite does exactly that, and frees what it got). This
 * program duplicates a communicator and a datatype that carry an
 * attribute whose copy callback fails, under MPI_ERRORS_RETURN, and
 * prints per call whether it failed and whether the handle it got is the
 * null handle; the test compares the output with and without ccc.
 *
 * usage: mpirun -np 2 failed_copy_callback  (output on rank 0)
 */
#include <mpi.h>
#include <stdio.h>

#include "ccc.h"

static int Value = 7;

static int failingCommCopy(MPI_Comm Old, int Key, void *Extra, void *In,
                           void *Out, int *Flag) {
  (void)Old, (void)Key, (void)Extra, (void)In, (void)Out;
  *Flag = 0;
  return MPI_ERR_OTHER;
}

static int failingTypeCopy(MPI_Datatype Old, int Key, void *Extra, void *In,
                           void *Out, int *Flag) {
  (void)Old, (void)Key, (void)Extra, (void)In, (void)Out;
  *Flag = 0;
  return MPI_ERR_OTHER;
}

int main(int argc, char **argv) {
  int Rank, CommKey, TypeKey, Err;
  MPI_Comm Dup = MPI_COMM_WORLD;
  MPI_Datatype Pair, TypeDup = MPI_INT;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  ccc_checkpoint();

  MPI_Comm_create_keyval(failingCommCopy, MPI_COMM_NULL_DELETE_FN, &CommKey,
                         NULL);
  MPI_Comm_set_attr(MPI_COMM_WORLD, CommKey, &Value);
  Err = MPI_Comm_dup(MPI_COMM_WORLD, &Dup);
  if (Rank == 0)
    printf("MPI_Comm_dup %s, new handle %s\n",
           Err == MPI_SUCCESS ? "succeeded" : "failed",
           Dup == MPI_COMM_NULL ? "MPI_COMM_NULL" : "not null");
  if (Dup != MPI_COMM_NULL && Err == MPI_SUCCESS)
    MPI_Comm_free(&Dup);
  MPI_Comm_delete_attr(MPI_COMM_WORLD, CommKey);
  MPI_Comm_free_keyval(&CommKey);

  MPI_Type_contiguous(2, MPI_INT, &Pair);
  MPI_Type_create_keyval(failingTypeCopy, MPI_TYPE_NULL_DELETE_FN, &TypeKey,
                         NULL);
  MPI_Type_set_attr(Pair, TypeKey, &Value);
  Err = MPI_Type_dup(Pair, &TypeDup);
  if (Rank == 0)
    printf("MPI_Type_dup %s, new handle %s\n",
           Err == MPI_SUCCESS ? "succeeded" : "failed",
           TypeDup == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL" : "not null");
  if (TypeDup != MPI_DATATYPE_NULL)
    MPI_Type_free(&TypeDup);
  MPI_Type_free(&Pair);
  MPI_Type_free_keyval(&TypeKey);
  ccc_checkpoint();
  MPI_Finalize();
  return 0;
}
