// cart_stencil.c - proves communicators with a Cartesian topology made
// before a checkpoint are re-created on restart (same handles, same
// topology, same rank order) and work after it, as a stencil code uses
// them: a 2-D periodic grid of ranks from MPI_Dims_create and
// MPI_Cart_create (reorder = 1: ccc keeps the ranks of the parent), halo
// rows and columns (MPI_Type_vector) exchanged with the MPI_Cart_shift
// neighbours by MPI_Sendrecv, a row communicator from MPI_Cart_sub whose
// MPI_Allreduce sums each grid row, and an MPI_Allreduce (MAX) on the grid
// communicator. Every rank checkpoints at the top of the step loop, where
// a real code would; rank 0 logs a line per step (to stderr: a restarted
// run logs again the steps after its checkpoint) and folds the logged
// values into a hash printed at the end. The communicators are created
// once, before the loop, and kept in globals.
//   usage: cart_stencil STEPS
// Rank 0 prints the process grid, every rank's coordinates, neighbours and
// row-communicator rank as the topology queries give them after the last
// step, the log hash and an XOR hash of the field, bit-exactly.
#include "ccc.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NX = 48, NY = 48 }; // points per rank, without the halo

static MPI_Comm Grid, Row;
static MPI_Datatype Column;
static int Dims[2], Coords[2], Up, Down, Left, Right;
static double *U, *UNew; // (NX + 2) x (NY + 2)
static uint64_t LogHash;

#define AT(A, I, J) (A)[(I) * (NY + 2) + (J)]

static uint64_t mix64(uint64_t X) {
  X ^= X >> 30;
  X *= 0xbf58476d1ce4e5b9ULL;
  X ^= X >> 27;
  X *= 0x94d049bb133111ebULL;
  return X ^ (X >> 31);
}

static uint64_t bitsOf(double D) {
  uint64_t B;
  memcpy(&B, &D, sizeof(B));
  return B;
}

static void exchangeHalos(void) {
  // Rows: first interior row up, last down; receive the halos opposite.
  MPI_Sendrecv(&AT(U, 1, 1), NY, MPI_DOUBLE, Up, 1, &AT(U, NX + 1, 1), NY,
               MPI_DOUBLE, Down, 1, Grid, MPI_STATUS_IGNORE);
  MPI_Sendrecv(&AT(U, NX, 1), NY, MPI_DOUBLE, Down, 2, &AT(U, 0, 1), NY,
               MPI_DOUBLE, Up, 2, Grid, MPI_STATUS_IGNORE);
  // Columns: strided.
  MPI_Sendrecv(&AT(U, 1, 1), 1, Column, Left, 3, &AT(U, 1, NY + 1), 1, Column,
               Right, 3, Grid, MPI_STATUS_IGNORE);
  MPI_Sendrecv(&AT(U, 1, NY), 1, Column, Right, 4, &AT(U, 1, 0), 1, Column,
               Left, 4, Grid, MPI_STATUS_IGNORE);
}

static void step(int S, int Rank) {
  exchangeHalos();
  double Sum = 0, Change = 0;
  for (int I = 1; I <= NX; ++I)
    for (int J = 1; J <= NY; ++J) {
      double V = 0.2 * (AT(U, I, J) + AT(U, I - 1, J) + AT(U, I + 1, J) +
                        AT(U, I, J - 1) + AT(U, I, J + 1));
      AT(UNew, I, J) = V;
      Sum += V;
      double D = V > AT(U, I, J) ? V - AT(U, I, J) : AT(U, I, J) - V;
      Change = D > Change ? D : Change;
    }
  double *T = U;
  U = UNew;
  UNew = T;
  double RowSum, MaxChange;
  MPI_Allreduce(&Sum, &RowSum, 1, MPI_DOUBLE, MPI_SUM, Row);
  MPI_Allreduce(&Change, &MaxChange, 1, MPI_DOUBLE, MPI_MAX, Grid);
  if (Rank == 0) {
    fprintf(stderr, "cart_stencil: step %d row sum %a max change %a\n", S,
            RowSum, MaxChange);
    LogHash = mix64(LogHash ^ bitsOf(RowSum) ^ mix64(bitsOf(MaxChange) + S));
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Steps = argc > 1 ? atoi(argv[1]) : 200;
  int Size, WorldRank, Rank;
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  MPI_Comm_rank(MPI_COMM_WORLD, &WorldRank);

  int Periods[2] = {1, 1}, Remain[2] = {0, 1};
  MPI_Dims_create(Size, 2, Dims);
  MPI_Cart_create(MPI_COMM_WORLD, 2, Dims, Periods, 1, &Grid);
  MPI_Comm_rank(Grid, &Rank);
  MPI_Cart_coords(Grid, Rank, 2, Coords);
  MPI_Cart_shift(Grid, 0, 1, &Up, &Down);
  MPI_Cart_shift(Grid, 1, 1, &Left, &Right);
  MPI_Cart_sub(Grid, Remain, &Row);
  MPI_Type_vector(NX, 1, NY + 2, MPI_DOUBLE, &Column);
  MPI_Type_commit(&Column);

  U = calloc((NX + 2) * (NY + 2), sizeof(double));
  UNew = calloc((NX + 2) * (NY + 2), sizeof(double));
  for (int I = 1; I <= NX; ++I)
    for (int J = 1; J <= NY; ++J) {
      uint64_t G = (uint64_t)(Coords[0] * NX + I) * 100003 + Coords[1] * NY + J;
      AT(U, I, J) = (double)(mix64(G) >> 11) * 0x1p-53;
    }

  for (int S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    step(S, Rank);
  }

  // The topology as MPI reports it now (after any restart): every rank's
  // view, gathered to rank 0 of the grid.
  int NDims = 0, Topo = 0, GDims[2], GPeriods[2], GCoords[2], Same = -1;
  MPI_Topo_test(Grid, &Topo);
  MPI_Cartdim_get(Grid, &NDims);
  MPI_Cart_get(Grid, 2, GDims, GPeriods, GCoords);
  MPI_Cart_rank(Grid, GCoords, &Same);
  int RowRank, RowSize, Up2, Down2, Left2, Right2;
  MPI_Comm_rank(Row, &RowRank);
  MPI_Comm_size(Row, &RowSize);
  MPI_Cart_shift(Grid, 0, 1, &Up2, &Down2);
  MPI_Cart_shift(Grid, 1, 1, &Left2, &Right2);
  int Mine[10] = {WorldRank, Rank,  GCoords[0], GCoords[1], Up2,
                  Down2,     Left2, Right2,     RowRank,    Same};
  int *All = malloc(sizeof(int) * 10 * Size);
  MPI_Gather(Mine, 10, MPI_INT, All, 10, MPI_INT, 0, Grid);

  uint64_t H = 0, GH = 0;
  for (int I = 1; I <= NX; ++I)
    for (int J = 1; J <= NY; ++J)
      H ^= mix64(
          bitsOf(AT(U, I, J)) ^
          mix64((uint64_t)(Coords[0] * NX + I) * 100003 + Coords[1] * NY + J));
  MPI_Reduce(&H, &GH, 1, MPI_UINT64_T, MPI_BXOR, 0, Grid);
  if (Rank == 0) {
    printf("cart_stencil: %d ranks, grid %dx%d, periods %d %d, topology %s, "
           "%d dims, rows of %d, %d steps\n",
           Size, GDims[0], GDims[1], GPeriods[0], GPeriods[1],
           Topo == MPI_CART ? "cart" : "other", NDims, RowSize, Steps);
    for (int R = 0; R < Size; ++R) {
      int *M = All + 10 * R;
      printf("world %d: grid rank %d coords (%d,%d) up %d down %d left %d "
             "right %d row rank %d cart_rank %d\n",
             M[0], M[1], M[2], M[3], M[4], M[5], M[6], M[7], M[8], M[9]);
    }
    printf("log hash %016llx\nfield hash %016llx\n",
           (unsigned long long)LogHash, (unsigned long long)GH);
  }
  free(All);
  free(U);
  free(UNew);
  MPI_Type_free(&Column);
  MPI_Comm_free(&Row);
  MPI_Comm_free(&Grid);
  MPI_Finalize();
  return 0;
}
