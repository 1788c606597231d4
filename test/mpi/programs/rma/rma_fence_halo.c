// rma_fence_halo.c - one-sided communication across checkpoints, active
// target with fences (issue 23): a 1-D periodic heat-type stencil whose halo
// cells move by MPI_Put into the neighbours' window (MPI_Win_create over the
// program's heap array), each rank then reads its right neighbour's running
// sums with MPI_Get from a window MPI_Win_allocate gave it, and adds a
// count into its right neighbour's variable attached to a dynamic window
// (MPI_Win_create_dynamic, MPI_Win_attach; a scratch region is attached and
// detached every step) with MPI_Accumulate. Every fence epoch is opened with
// MPI_MODE_NOPRECEDE and closed with MPI_MODE_NOSUCCEED, and the site lies
// between them: the pattern the non-blocking protocol needs
// (docs/mpi-io-windows.md). The windows live across every checkpoint, so a
// restart must make them again over the same memory with the same contents.
//   usage: rma_fence_halo STEPS
// Rank 0 prints an XOR hash of every rank's cells, the sum of what the Gets
// read, the accumulated counts, and the windows' name and size.
#include "ccc.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 48

int main(int argc, char **argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 1000;
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int left = (rank + size - 1) % size, right = (rank + 1) % size;

  double *u = malloc((N + 2) * sizeof(double));
  double *v = malloc((N + 2) * sizeof(double));
  for (int i = 0; i < N + 2; ++i)
    u[i] = rank * 100.0 + i;
  MPI_Win wu;
  MPI_Win_create(u, (N + 2) * sizeof(double), sizeof(double), MPI_INFO_NULL,
                 MPI_COMM_WORLD, &wu);
  MPI_Win_set_name(wu, "halo");

  double *sums;
  MPI_Win ws;
  MPI_Win_allocate(2 * sizeof(double), sizeof(double), MPI_INFO_NULL,
                   MPI_COMM_WORLD, &sums, &ws);
  sums[0] = sums[1] = 0;

  long *count = malloc(2 * sizeof(long));
  count[0] = count[1] = 0;
  long *scratch = malloc(8 * sizeof(long));
  MPI_Win wd;
  MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &wd);
  MPI_Win_attach(wd, count, 2 * sizeof(long));
  MPI_Aint mine, *where = malloc(size * sizeof(MPI_Aint));
  MPI_Get_address(count, &mine);
  MPI_Allgather(&mine, 1, MPI_AINT, where, 1, MPI_AINT, MPI_COMM_WORLD);

  double got = 0;
  for (int step = 0; step < steps; ++step) {
    ccc_checkpoint();
    MPI_Win_fence(MPI_MODE_NOPRECEDE, wu);
    MPI_Put(&u[1], 1, MPI_DOUBLE, left, N + 1, 1, MPI_DOUBLE, wu);
    MPI_Put(&u[N], 1, MPI_DOUBLE, right, 0, 1, MPI_DOUBLE, wu);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, wu);
    for (int i = 1; i <= N; ++i)
      v[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1] + 1e-3 * step;
    memcpy(&u[1], &v[1], N * sizeof(double));

    sums[0] += u[1];
    sums[1] += u[N / 2];
    double peer[2];
    MPI_Win_fence(MPI_MODE_NOPRECEDE, ws);
    MPI_Get(peer, 2, MPI_DOUBLE, right, 0, 2, MPI_DOUBLE, ws);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, ws);
    got += peer[0] - 0.5 * peer[1];

    MPI_Win_attach(wd, scratch, 8 * sizeof(long));
    long add[2] = {1, step % 7};
    MPI_Win_fence(MPI_MODE_NOPRECEDE, wd);
    MPI_Accumulate(add, 2, MPI_LONG, right, where[right], 2, MPI_LONG, MPI_SUM,
                   wd);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, wd);
    MPI_Win_detach(wd, scratch);
  }

  uint64_t h = 0;
  for (int i = 0; i < N + 2; ++i) {
    uint64_t b;
    memcpy(&b, &u[i], 8);
    h ^= b * (uint64_t)(i + 1);
  }
  uint64_t all;
  MPI_Reduce(&h, &all, 1, MPI_UINT64_T, MPI_BXOR, 0, MPI_COMM_WORLD);
  double gotAll;
  MPI_Reduce(&got, &gotAll, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  long counts[2];
  MPI_Reduce(count, counts, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  char name[MPI_MAX_OBJECT_NAME];
  int len;
  MPI_Win_get_name(wu, name, &len);
  MPI_Aint *wsize;
  int flag;
  MPI_Win_get_attr(wu, MPI_WIN_SIZE, &wsize, &flag);
  // A Fortran integer names the same window.
  int same = MPI_Win_f2c(MPI_Win_c2f(ws)) == ws;
  if (rank == 0)
    printf("hash %016llx got %.17g counts %ld %ld window %s size %ld "
           "round-trip %d\n",
           (unsigned long long)all, gotAll, counts[0], counts[1], name,
           flag ? (long)*wsize : -1L, same);
  MPI_Win_detach(wd, count);
  MPI_Win_free(&wd);
  MPI_Win_free(&ws);
  MPI_Win_free(&wu);
  MPI_Finalize();
  return 0;
}
