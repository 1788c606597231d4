// column_halo.c - a 2-D heat-like stencil split by columns over a periodic
// 1-D Cartesian topology, the way many C codes exchange halos: the left
// and right halo columns are an MPI_Type_vector of the block's rows
// (stride the padded row), sent and received by MPI_Irecv/MPI_Isend/
// MPI_Waitall on most steps and by MPI_Sendrecv on every third. Every
// seventh step a rank also sends its right neighbour 3 doubles that the
// neighbour receives (MPI_Recv from MPI_ANY_SOURCE) as one element of a
// 4-double strided type: a message that ends inside an element, which MPI
// delivers in part (MPI_Get_elements 3, MPI_Get_count MPI_UNDEFINED).
// Every fifth step a taller field's columns (520 rows, more than 4 KiB a
// column) go round the ring too. Messages of non-contiguous datatypes,
// small and large, across checkpoints.
//   usage: column_halo STEPS [ROWS]
// Rank 0 prints the grid's checksum and what the partial receives saw.
#include "ccc.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { COLS = 6 };       // owned columns per rank; two halo columns besides
enum { TALL_ROWS = 520 }; // the taller field's rows

static double *Grid, *Next, *Tall;
static int Rows;
static long PartialElements, PartialUndefined, PartialBad;

static double *at(double *G, int R, int C) { return G + R * (COLS + 2) + C; }

static void exchange(MPI_Comm Ring, MPI_Datatype Column, int Left, int Right,
                     long Step) {
  // Column 1 goes left (arrives in the left rank's column COLS+1), column
  // COLS goes right (arrives in the right rank's column 0).
  if (Step % 3 == 0) {
    MPI_Sendrecv(at(Grid, 0, 1), 1, Column, Left, 0, at(Grid, 0, COLS + 1), 1,
                 Column, Right, 0, Ring, MPI_STATUS_IGNORE);
    MPI_Sendrecv(at(Grid, 0, COLS), 1, Column, Right, 1, at(Grid, 0, 0), 1,
                 Column, Left, 1, Ring, MPI_STATUS_IGNORE);
    return;
  }
  MPI_Request Reqs[4];
  MPI_Irecv(at(Grid, 0, COLS + 1), 1, Column, Right, 0, Ring, &Reqs[0]);
  MPI_Irecv(at(Grid, 0, 0), 1, Column, Left, 1, Ring, &Reqs[1]);
  MPI_Isend(at(Grid, 0, 1), 1, Column, Left, 0, Ring, &Reqs[2]);
  MPI_Isend(at(Grid, 0, COLS), 1, Column, Right, 1, Ring, &Reqs[3]);
  MPI_Waitall(4, Reqs, MPI_STATUSES_IGNORE);
}

// The tall field: its column 1 to the left, its column COLS + 1 from the
// right, then a smoothing step of the column.
static void tall(MPI_Comm Ring, MPI_Datatype TallColumn, int Left, int Right) {
  MPI_Sendrecv(Tall + 1, 1, TallColumn, Left, 3, Tall + COLS + 1, 1,
               TallColumn, Right, 3, Ring, MPI_STATUS_IGNORE);
  for (int R = 0; R < TALL_ROWS; ++R) {
    double *Row = Tall + R * (COLS + 2);
    Row[1] = 0.5 * (Row[1] + Row[COLS + 1]) + 1e-3;
  }
}

// 3 doubles to the right; one 4-double strided element from the left.
static void partial(MPI_Comm Ring, MPI_Datatype Four, int Right, long Step) {
  double Out[3] = {(double)Step, Grid[Rows + 1], -(double)Step};
  MPI_Request Req;
  MPI_Isend(Out, 3, MPI_DOUBLE, Right, 2, Ring, &Req);
  double In[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  MPI_Status S;
  MPI_Recv(In, 1, Four, MPI_ANY_SOURCE, 2, Ring, &S);
  MPI_Wait(&Req, MPI_STATUS_IGNORE);
  int Elements, Count;
  MPI_Get_elements(&S, MPI_DOUBLE, &Elements);
  MPI_Get_count(&S, Four, &Count);
  PartialElements += Elements;
  PartialUndefined += Count == MPI_UNDEFINED;
  // The stride is 2: the doubles land at 0, 2 and 4; 6 stays untouched.
  if (In[0] != (double)Step || In[4] != -(double)Step || In[1] || In[3] ||
      In[6])
    PartialBad++;
  Grid[Rows + 1] += 1e-3 * In[2];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  long Steps = argc > 1 ? atol(argv[1]) : 2000;
  Rows = argc > 2 ? atoi(argv[2]) : 48;
  int Size, Rank, Periodic = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  MPI_Comm Ring;
  MPI_Cart_create(MPI_COMM_WORLD, 1, &Size, &Periodic, 0, &Ring);
  MPI_Comm_rank(Ring, &Rank);
  int Left, Right;
  MPI_Cart_shift(Ring, 0, 1, &Left, &Right);
  MPI_Datatype Column, Four;
  MPI_Type_vector(Rows, 1, COLS + 2, MPI_DOUBLE, &Column);
  MPI_Type_commit(&Column);
  MPI_Type_vector(4, 1, 2, MPI_DOUBLE, &Four);
  MPI_Type_commit(&Four);
  MPI_Datatype TallColumn;
  MPI_Type_vector(TALL_ROWS, 1, COLS + 2, MPI_DOUBLE, &TallColumn);
  MPI_Type_commit(&TallColumn);

  size_t N = (size_t)Rows * (COLS + 2);
  Grid = calloc(N, sizeof(double));
  Next = calloc(N, sizeof(double));
  Tall = calloc((size_t)TALL_ROWS * (COLS + 2), sizeof(double));
  for (int R = 0; R < TALL_ROWS; ++R)
    Tall[R * (COLS + 2) + 1] = Rank + R % 11;
  for (int R = 0; R < Rows; ++R)
    for (int C = 1; C <= COLS; ++C)
      *at(Grid, R, C) = (Rank * COLS + C) % 5 + 0.1 * R;

  for (long Step = 0; Step < Steps; ++Step) {
    ccc_checkpoint();
    exchange(Ring, Column, Left, Right, Step);
    if (Step % 7 == 0)
      partial(Ring, Four, Right, Step);
    if (Step % 5 == 0)
      tall(Ring, TallColumn, Left, Right);
    for (int R = 0; R < Rows; ++R)
      for (int C = 1; C <= COLS; ++C) {
        double Up = *at(Grid, R ? R - 1 : Rows - 1, C);
        double Down = *at(Grid, R + 1 < Rows ? R + 1 : 0, C);
        *at(Next, R, C) = 0.2 * (*at(Grid, R, C) + Up + Down +
                                 *at(Grid, R, C - 1) + *at(Grid, R, C + 1)) +
                          1e-6 * Rank;
      }
    double *T = Grid;
    Grid = Next;
    Next = T;
  }

  double Local = 0, Sum;
  for (int R = 0; R < Rows; ++R)
    for (int C = 1; C <= COLS; ++C)
      Local += *at(Grid, R, C) * (1 + R % 3);
  for (int R = 0; R < TALL_ROWS; ++R)
    Local += Tall[R * (COLS + 2) + 1] * (1 + R % 4);
  MPI_Reduce(&Local, &Sum, 1, MPI_DOUBLE, MPI_SUM, 0, Ring);
  long Mine[3] = {PartialElements, PartialUndefined, PartialBad}, All[3];
  MPI_Reduce(Mine, All, 3, MPI_LONG, MPI_SUM, 0, Ring);
  if (Rank == 0) {
    printf("column_halo: %d ranks, %d rows, %ld steps\n", Size, Rows, Steps);
    printf("checksum %a\n", Sum);
    printf("partial receives: %ld doubles, %ld counts undefined, %ld wrong\n",
           All[0], All[1], All[2]);
  }
  MPI_Type_free(&TallColumn);
  MPI_Type_free(&Four);
  MPI_Type_free(&Column);
  MPI_Comm_free(&Ring);
  free(Grid);
  free(Next);
  free(Tall);
  MPI_Finalize();
  return Rank == 0 && All[2] != 0;
}
