// disabled_layer_passes_through.c - sums whose bits depend on the order in
// which MPI combines the ranks' contributions: element K of rank R is one
// of 1, 1e16, -1e16, 3 (rotated by K), so each element adds the same four
// numbers in another arrangement, and an order that adds 1 or 3 to 1e16
// before cancelling loses it. ccc's layer combines in rank order, MPI in its
// own; with CCC_DISABLE=1 the result must be MPI's bits. Also a forced
// checkpoint: with CCC_DISABLE=1 no file may be written.
#include "ccc.h"
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  const double Pattern[4] = {1.0, 1e16, -1e16, 3.0};
  enum { N = 8 };
  double In[N], Out[N], Red[N], Scan[N];
  for (int K = 0; K < N; ++K)
    In[K] = Pattern[(Rank + K) % 4] * (1 + K / 4);
  ccc_checkpoint_force();
  MPI_Allreduce(In, Out, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Reduce(In, Red, N, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Scan(In, Scan, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  // A derived communicator and datatype: with the layer off the program
  // holds MPI's own handles.
  MPI_Comm Dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &Dup);
  MPI_Datatype Pair;
  MPI_Type_contiguous(2, MPI_DOUBLE, &Pair);
  MPI_Type_commit(&Pair);
  double Got[2] = {0, 0};
  if (Size > 1) {
    if (Rank == 0)
      MPI_Send(Out, 1, Pair, 1, 7, Dup);
    else if (Rank == 1)
      MPI_Recv(Got, 1, Pair, 0, 7, Dup, MPI_STATUS_IGNORE);
  }
  MPI_Type_free(&Pair);
  MPI_Comm_free(&Dup);
  ccc_checkpoint();
  for (int R = 0; R < Size; ++R) {
    if (R == Rank) {
      printf("rank %d allreduce", Rank);
      for (int K = 0; K < N; ++K)
        printf(" %a", Out[K]);
      printf(" scan");
      for (int K = 0; K < N; ++K)
        printf(" %a", Scan[K]);
      if (Rank == 0) {
        printf(" reduce");
        for (int K = 0; K < N; ++K)
          printf(" %a", Red[K]);
      }
      if (Rank == 1)
        printf(" got %a %a", Got[0], Got[1]);
      printf("\n");
      fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
