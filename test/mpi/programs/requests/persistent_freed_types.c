// persistent_freed_types.c - persistent requests whose datatypes the
// program frees right after making them, which MPI allows: an operation
// keeps its datatype alive until it is freed (MPI-3.1, 4.1.9).
//
// A 2-D grid split by columns between the ranks of a ring: each rank sends
// its first and last interior columns (a strided MPI_Type_vector of one
// double per row) to its neighbours and receives their columns into its
// ghost columns, with persistent requests made once before the step loop.
// The column type, and a second one made from it (an MPI_Type_create_resized
// copy, so a freed type is also the input of another), are freed as soon
// as the requests exist. Every step starts and waits for the four requests
// and takes a site, so requests whose types the program freed live across
// every checkpoint and restart. Rank 0 prints a hash of the whole grid.
//   usage: persistent_freed_types STEPS   (2 or more ranks)
#include "ccc.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NROWS = 96, NCOLS = 34 }; // 32 interior columns and two ghosts

static double Grid[NROWS][NCOLS], Next[NROWS][NCOLS];

static uint64_t hashGrid(void) {
  uint64_t H = 1469598103934665603ULL;
  const unsigned char *P = (const unsigned char *)Grid;
  for (size_t I = 0; I < sizeof(Grid); ++I)
    H = (H ^ P[I]) * 1099511628211ULL;
  return H;
}

int main(int argc, char **argv) {
  int Rank, Size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  long Steps = argc > 1 ? atol(argv[1]) : 100;
  int Left = (Rank + Size - 1) % Size, Right = (Rank + 1) % Size;
  for (int R = 0; R < NROWS; ++R)
    for (int C = 0; C < NCOLS; ++C)
      Grid[R][C] = (double)((R * 7 + C * 3 + Rank * 11) % 23);

  MPI_Datatype Column, Resized;
  MPI_Type_vector(NROWS, 1, NCOLS, MPI_DOUBLE, &Column);
  MPI_Type_commit(&Column);
  MPI_Type_create_resized(Column, 0, sizeof(double), &Resized);
  MPI_Type_commit(&Resized);
  MPI_Request Reqs[4];
  MPI_Recv_init(&Grid[0][0], 1, Column, Left, 1, MPI_COMM_WORLD, &Reqs[0]);
  MPI_Recv_init(&Grid[0][NCOLS - 1], 1, Resized, Right, 2, MPI_COMM_WORLD,
                &Reqs[1]);
  MPI_Send_init(&Grid[0][NCOLS - 2], 1, Column, Right, 1, MPI_COMM_WORLD,
                &Reqs[2]);
  MPI_Send_init(&Grid[0][1], 1, Resized, Left, 2, MPI_COMM_WORLD, &Reqs[3]);
  // The program is done with the types: the requests keep them.
  MPI_Type_free(&Column);
  MPI_Type_free(&Resized);

  for (long S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    MPI_Startall(4, Reqs);
    MPI_Waitall(4, Reqs, MPI_STATUSES_IGNORE);
    for (int R = 1; R < NROWS - 1; ++R)
      for (int C = 1; C < NCOLS - 1; ++C)
        Next[R][C] = 0.25 * (Grid[R - 1][C] + Grid[R + 1][C] + Grid[R][C - 1] +
                             Grid[R][C + 1]);
    for (int R = 1; R < NROWS - 1; ++R)
      memcpy(&Grid[R][1], &Next[R][1], (NCOLS - 2) * sizeof(double));
  }
  for (int I = 0; I < 4; ++I)
    MPI_Request_free(&Reqs[I]);

  uint64_t Mine = hashGrid(), All = 0;
  MPI_Reduce(&Mine, &All, 1, MPI_UINT64_T, MPI_BXOR, 0, MPI_COMM_WORLD);
  if (Rank == 0)
    printf("steps %ld grid hash %016llx\n", Steps, (unsigned long long)All);
  MPI_Finalize();
  return 0;
}
