// cart_counters.c - passive-target counters beside a Cartesian stencil
// under the non-blocking protocol (issue 46, item 6): a 2-D periodic grid
// of ranks (MPI_Dims_create, MPI_Cart_create, MPI_Cart_shift) relaxes a
// field with halo exchanges by MPI_Sendrecv, and, as codes with dynamic
// work counters and global histograms do, every rank
//   - draws a ticket from a counter at rank 0 with MPI_Fetch_and_op under
//     an exclusive MPI_Win_lock (the tickets of one step are 0..P-1 plus
//     the step's base in some order: their sum is known),
//   - adds its cells into histogram bins spread over all ranks with
//     MPI_Fetch_and_op (MPI_SUM) under shared locks, and reads one bin of
//     its right neighbour with MPI_Get under a shared lock,
// then an MPI_Allreduce of the residual and the ticket sum closes the step.
// The window is MPI_Win_allocate's; no fence ever. ccc_checkpoint() is the
// first call of each step on every rank: the window's members checkpoint
// together at it.
//   usage: cart_counters STEPS
// Rank 0 prints the residual, the tickets, and a hash of every bin.
#include "ccc.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 16    // local field is N x N
#define BINS 16 // bins per rank

int main(int argc, char **argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 100;
  MPI_Init(&argc, &argv);
  int size, rank, dims[2] = {0, 0}, periods[2] = {1, 1};
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Dims_create(size, 2, dims);
  MPI_Comm grid;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &grid);
  MPI_Comm_rank(grid, &rank);
  int up, down, left, right;
  MPI_Cart_shift(grid, 0, 1, &up, &down);
  MPI_Cart_shift(grid, 1, 1, &left, &right);

  // The counters: [0] the ticket (used at rank 0), [1..BINS] the bins.
  long *ctr;
  MPI_Win w;
  MPI_Win_allocate((BINS + 1) * sizeof(long), sizeof(long), MPI_INFO_NULL, grid,
                   &ctr, &w);
  for (int i = 0; i <= BINS; ++i)
    ctr[i] = 0;
  MPI_Barrier(grid);

  static double u[N + 2][N + 2], v[N + 2][N + 2];
  for (int i = 0; i < N + 2; ++i)
    for (int j = 0; j < N + 2; ++j)
      u[i][j] = (rank * 31 + i * 7 + j * 3) % 17;
  MPI_Datatype column;
  MPI_Type_vector(N, 1, N + 2, MPI_DOUBLE, &column);
  MPI_Type_commit(&column);

  long tickets = 0, peeked = 0;
  double residual = 0;
  for (int step = 0; step < steps; ++step) {
    ccc_checkpoint();
    MPI_Sendrecv(&u[1][1], N, MPI_DOUBLE, up, 0, &u[N + 1][1], N, MPI_DOUBLE,
                 down, 0, grid, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[N][1], N, MPI_DOUBLE, down, 1, &u[0][1], N, MPI_DOUBLE, up,
                 1, grid, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[1][1], 1, column, left, 2, &u[1][N + 1], 1, column, right,
                 2, grid, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[1][N], 1, column, right, 3, &u[1][0], 1, column, left, 3,
                 grid, MPI_STATUS_IGNORE);
    double local = 0;
    for (int i = 1; i <= N; ++i)
      for (int j = 1; j <= N; ++j) {
        v[i][j] =
            0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);
        local += (v[i][j] - u[i][j]) * (v[i][j] - u[i][j]);
      }
    for (int i = 1; i <= N; ++i)
      for (int j = 1; j <= N; ++j)
        u[i][j] = v[i][j];

    long one = 1, ticket;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w);
    MPI_Fetch_and_op(&one, &ticket, MPI_LONG, 0, 0, MPI_SUM, w);
    MPI_Win_unlock(0, w);

    for (int k = 0; k < 4; ++k) {
      int cell = (step * 5 + k * 3 + rank) % N + 1;
      long add = (long)u[cell][cell] + k + 1, old;
      int bin = (step + k * 7 + rank * 3) % (BINS * size);
      int owner = bin / BINS;
      MPI_Win_lock(MPI_LOCK_SHARED, owner, 0, w);
      MPI_Fetch_and_op(&add, &old, MPI_LONG, owner, 1 + bin % BINS, MPI_SUM, w);
      MPI_Win_unlock(owner, w);
    }
    long seen;
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, w);
    MPI_Get(&seen, 1, MPI_LONG, right, 1 + step % BINS, 1, MPI_LONG, w);
    MPI_Win_unlock(right, w);
    peeked += seen >= 0;

    double in[2] = {local, (double)ticket}, out[2];
    MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_SUM, grid);
    residual = out[0];
    tickets += (long)out[1];
  }
  MPI_Barrier(grid);

  // Every lock is released: the bins are final at their owners.
  MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, w);
  uint64_t h = 1469598103934665603ULL;
  for (int i = 1; i <= BINS; ++i)
    h = (h ^ (uint64_t)ctr[i]) * 1099511628211ULL;
  long ticket = ctr[0];
  MPI_Win_unlock(rank, w);
  uint64_t *all = malloc(size * sizeof(uint64_t));
  MPI_Gather(&h, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, grid);
  if (rank == 0) {
    printf("dims %d x %d, residual %a\n", dims[0], dims[1], residual);
    printf("counter %ld, ticket sum %ld, peeks %ld\n", ticket, tickets, peeked);
    for (int r = 0; r < size; ++r)
      printf("rank %d bins %016llx\n", r, (unsigned long long)all[r]);
  }
  free(all);
  MPI_Type_free(&column);
  MPI_Win_free(&w);
  MPI_Comm_free(&grid);
  MPI_Finalize();
  return 0;
}
