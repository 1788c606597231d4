// grequest_open.c - a checkpoint while a generalized request is open on
// one rank (MPI_Grequest_start done, MPI_Grequest_complete not yet): a
// restart could not re-create the program's operation behind it, so that
// rank writes no image and the checkpoint is not committed, with a ccc:
// message saying why; the job itself goes on, and the request completes
// with its query callback's status.
//   usage: grequest_open   (2 ranks)
#include "ccc.h"

#include <mpi.h>
#include <stdio.h>

static int query(void *Extra, MPI_Status *S) {
  MPI_Status_set_elements(S, MPI_BYTE, 0);
  MPI_Status_set_cancelled(S, 0);
  S->MPI_SOURCE = MPI_UNDEFINED;
  S->MPI_TAG = *(int *)Extra;
  return MPI_SUCCESS;
}
static int freeFn(void *Extra) {
  (void)Extra;
  return MPI_SUCCESS;
}
static int cancelFn(void *Extra, int Complete) {
  (void)Extra;
  (void)Complete;
  return MPI_SUCCESS;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Tag = 42, X;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Request G = MPI_REQUEST_NULL;
  if (Rank == 1)
    MPI_Grequest_start(query, freeFn, cancelFn, &Tag, &G);
  ccc_checkpoint_force(); // rank 1's request open
  MPI_Status S;
  S.MPI_TAG = -1;
  if (Rank == 1) {
    MPI_Grequest_complete(G);
    MPI_Wait(&G, &S);
  }
  X = Rank == 1 ? S.MPI_TAG : 0;
  for (int I = 0; I < 20; ++I)
    MPI_Allreduce(MPI_IN_PLACE, &X, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (Rank == 0)
    printf("grequest_open: %d\n", X);
  MPI_Finalize();
  return 0;
}
