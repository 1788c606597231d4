/* freed_keyval_dup.c - keyvals freed while attributes still use them.
 *
 * MPI_Comm_free_keyval and MPI_Type_free_keyval only mark a keyval freed:
 * attributes set with it stay, are copied by MPI_Comm_dup and MPI_Type_dup
 * (its copy callback runs) and deleted with their object (its delete
 * callback runs) (MPI-3.1, 6.7.2). A library that caches its state on the
 * communicator it was given and frees its keyval at once relies on that.
 * This program sets attributes on a communicator and a datatype, frees
 * both keyvals, duplicates both objects twice, frees everything (the
 * keyvals go with their last attributes), duplicates again, and prints
 * what each call returned and how often each callback ran; the test
 * compares the output with and without ccc.
 *
 * usage: mpirun -np 2 freed_keyval_dup  (output on rank 0)
 */
#include <mpi.h>
#include <stdio.h>

#include "ccc.h"

static int Copies, Deletes;
static int Cached = 42;

static int copyComm(MPI_Comm Old, int Key, void *Extra, void *In, void *Out,
                    int *Flag) {
  (void)Old, (void)Key, (void)Extra;
  ++Copies;
  *(void **)Out = In;
  *Flag = 1;
  return MPI_SUCCESS;
}

static int deleteComm(MPI_Comm C, int Key, void *Val, void *Extra) {
  (void)C, (void)Key, (void)Val, (void)Extra;
  ++Deletes;
  return MPI_SUCCESS;
}

static int copyType(MPI_Datatype Old, int Key, void *Extra, void *In, void *Out,
                    int *Flag) {
  (void)Old, (void)Key, (void)Extra;
  ++Copies;
  *(void **)Out = In;
  *Flag = 1;
  return MPI_SUCCESS;
}

static int deleteType(MPI_Datatype T, int Key, void *Val, void *Extra) {
  (void)T, (void)Key, (void)Val, (void)Extra;
  ++Deletes;
  return MPI_SUCCESS;
}

static void show(int Rank, const char *What, int Err) {
  if (Rank == 0)
    printf("%-28s %s (copies %d, deletes %d)\n", What,
           Err == MPI_SUCCESS ? "ok" : "failed", Copies, Deletes);
}

int main(int argc, char **argv) {
  int Rank, CommKey, TypeKey;
  MPI_Comm Base, Dup1, Dup2;
  MPI_Datatype Pair, TDup1, TDup2;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  ccc_checkpoint();

  MPI_Comm_dup(MPI_COMM_WORLD, &Base);
  MPI_Comm_create_keyval(copyComm, deleteComm, &CommKey, NULL);
  MPI_Comm_set_attr(Base, CommKey, &Cached);
  show(Rank, "MPI_Comm_free_keyval", MPI_Comm_free_keyval(&CommKey));
  show(Rank, "MPI_Comm_dup", MPI_Comm_dup(Base, &Dup1));
  show(Rank, "MPI_Comm_dup of the dup", MPI_Comm_dup(Dup1, &Dup2));

  MPI_Type_contiguous(2, MPI_DOUBLE, &Pair);
  MPI_Type_create_keyval(copyType, deleteType, &TypeKey, NULL);
  MPI_Type_set_attr(Pair, TypeKey, &Cached);
  show(Rank, "MPI_Type_free_keyval", MPI_Type_free_keyval(&TypeKey));
  show(Rank, "MPI_Type_dup", MPI_Type_dup(Pair, &TDup1));
  show(Rank, "MPI_Type_dup of the dup", MPI_Type_dup(TDup1, &TDup2));
  ccc_checkpoint();

  show(Rank, "MPI_Comm_free", MPI_Comm_free(&Dup2));
  show(Rank, "MPI_Comm_free", MPI_Comm_free(&Dup1));
  show(Rank, "MPI_Comm_free", MPI_Comm_free(&Base));
  show(Rank, "MPI_Type_free", MPI_Type_free(&TDup2));
  show(Rank, "MPI_Type_free", MPI_Type_free(&TDup1));
  show(Rank, "MPI_Type_free", MPI_Type_free(&Pair));
  /* The keyvals are gone now, with their last attributes. */
  MPI_Comm Later;
  MPI_Datatype LaterType;
  show(Rank, "MPI_Comm_dup afterwards", MPI_Comm_dup(MPI_COMM_WORLD, &Later));
  show(Rank, "MPI_Type_dup afterwards", MPI_Type_dup(MPI_INT, &LaterType));
  show(Rank, "MPI_Comm_free", MPI_Comm_free(&Later));
  show(Rank, "MPI_Type_free", MPI_Type_free(&LaterType));
  MPI_Finalize();
  return 0;
}
