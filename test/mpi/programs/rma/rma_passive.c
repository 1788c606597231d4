// rma_passive.c - one-sided communication across checkpoints with epochs
// open at the sites (issue 23; CCC_PROTOCOL=blocking, whose sites are
// collective): a shared counter at rank 0 incremented by every rank with
// MPI_Fetch_and_op under an exclusive MPI_Win_lock each step (and an
// MPI_Compare_and_swap on a flag); an MPI_Win_lock_all epoch opened before
// the loop and held across every checkpoint, in which each rank adds into
// its right neighbour's array (MPI_Accumulate, MPI_Raccumulate,
// MPI_Get_accumulate, MPI_Rget_accumulate), writes its own slot there
// (MPI_Rput) and reads its left neighbour's (MPI_Rget), completed with
// MPI_Win_flush, _flush_local, _flush_local_all, _flush_all and MPI_Win_sync;
// a shared lock on the right neighbour held across every checkpoint, with
// MPI_Put and MPI_Win_flush; a fence epoch (assert 0) open across every
// site, with MPI_Put; and a post/start/complete/wait (or MPI_Win_test)
// epoch inside each step.
//   usage: rma_passive STEPS
// Rank 0 prints the counter, the swaps, and hashes of every rank's arrays.
#include "ccc.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define M 16

int main(int argc, char **argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 1000;
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int left = (rank + size - 1) % size, right = (rank + 1) % size;

  // The counter and the flag: rank 0's memory from MPI_Win_allocate.
  long *ctr;
  MPI_Win wc;
  MPI_Win_allocate(2 * sizeof(long), sizeof(long), MPI_INFO_NULL,
                   MPI_COMM_WORLD, &ctr, &wc);
  ctr[0] = ctr[1] = 0;
  MPI_Barrier(MPI_COMM_WORLD);

  // M accumulators and one slot per origin: program memory from Alloc_mem.
  long *a;
  MPI_Alloc_mem((M + 1) * sizeof(long), MPI_INFO_NULL, &a);
  memset(a, 0, (M + 1) * sizeof(long));
  MPI_Win wa;
  MPI_Win_create(a, (M + 1) * sizeof(long), sizeof(long), MPI_INFO_NULL,
                 MPI_COMM_WORLD, &wa);
  MPI_Win_lock_all(0, wa);

  long *last = calloc(1, sizeof(long));
  MPI_Win wl;
  MPI_Win_create(last, sizeof(long), sizeof(long), MPI_INFO_NULL,
                 MPI_COMM_WORLD, &wl);
  MPI_Win_lock(MPI_LOCK_SHARED, right, 0, wl);

  double *f = calloc(4, sizeof(double));
  MPI_Win wf;
  MPI_Win_create(f, 4 * sizeof(double), sizeof(double), MPI_INFO_NULL,
                 MPI_COMM_WORLD, &wf);
  MPI_Win_fence(0, wf);

  int *p = calloc(2, sizeof(int));
  MPI_Win wp;
  MPI_Win_create(p, 2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                 &wp);
  MPI_Group world, from, to;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, 1, &left, &from);
  MPI_Group_incl(world, 1, &right, &to);

  long fetched = 0, swaps = 0, extra = 0;
  for (int step = 0; step < steps; ++step) {
    ccc_checkpoint();
    long one = 1, old;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, wc);
    MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, 0, MPI_SUM, wc);
    long expect = 0, mark = rank + 1, was;
    MPI_Compare_and_swap(&mark, &expect, &was, MPI_LONG, 0, 1, wc);
    MPI_Win_unlock(0, wc);
    fetched += old >= 0;
    swaps += was == 0;

    long add[M];
    for (int i = 0; i < M; ++i)
      add[i] = (long)(rank + 1) * (i + step);
    MPI_Accumulate(add, M / 2, MPI_LONG, right, 0, M / 2, MPI_LONG, MPI_SUM,
                   wa);
    MPI_Request r[4];
    MPI_Raccumulate(add + M / 2, M / 2, MPI_LONG, right, M / 2, M / 2, MPI_LONG,
                    MPI_SUM, wa, &r[0]);
    long mine = step * 10 + rank, theirs, before, before2;
    MPI_Rput(&mine, 1, MPI_LONG, right, M, 1, MPI_LONG, wa, &r[1]);
    MPI_Win_flush(right, wa);
    MPI_Rget(&theirs, 1, MPI_LONG, left, M, 1, MPI_LONG, wa, &r[2]);
    MPI_Win_flush_local(left, wa);
    MPI_Get_accumulate(&one, 1, MPI_LONG, &before, 1, MPI_LONG, right, 0, 1,
                       MPI_LONG, MPI_NO_OP, wa);
    MPI_Rget_accumulate(&one, 1, MPI_LONG, &before2, 1, MPI_LONG, right, 1, 1,
                        MPI_LONG, MPI_NO_OP, wa, &r[3]);
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    MPI_Win_flush_local_all(wa);
    MPI_Win_flush_all(wa);
    MPI_Win_sync(wa);
    extra += (theirs >= 0) + (before >= 0) + (before2 >= 0);
    MPI_Barrier(MPI_COMM_WORLD); // every rank's adds are in

    long stamp = step * 1000 + rank;
    MPI_Put(&stamp, 1, MPI_LONG, right, 0, 1, MPI_LONG, wl);
    MPI_Win_flush(right, wl);

    double val = rank + step * 0.5;
    MPI_Put(&val, 1, MPI_DOUBLE, right, step % 4, 1, MPI_DOUBLE, wf);
    MPI_Win_fence(0, wf);

    MPI_Win_post(from, 0, wp);
    MPI_Win_start(to, 0, wp);
    int v = step + rank;
    MPI_Put(&v, 1, MPI_INT, right, step % 2, 1, MPI_INT, wp);
    MPI_Win_complete(wp);
    if (step % 2) {
      MPI_Win_wait(wp);
    } else {
      int done = 0;
      while (!done)
        MPI_Win_test(wp, &done);
    }
  }
  MPI_Win_unlock_all(wa);
  MPI_Win_unlock(right, wl);
  MPI_Win_fence(MPI_MODE_NOSUCCEED, wf);
  MPI_Barrier(MPI_COMM_WORLD);

  uint64_t h = 0;
  for (int i = 0; i <= M; ++i)
    h = h * 1000003u ^ (uint64_t)a[i];
  for (int i = 0; i < 4; ++i) {
    uint64_t b;
    memcpy(&b, &f[i], 8);
    h = h * 1000003u ^ b;
  }
  h = h * 1000003u ^ (uint64_t)(p[0] * 7 + p[1]);
  h = h * 1000003u ^ (uint64_t)*last;
  uint64_t hs[64];
  MPI_Gather(&h, 1, MPI_UINT64_T, hs, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  long totals[3] = {fetched, swaps, extra}, sums[3];
  MPI_Reduce(totals, sums, 3, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("counter %ld flag set %d fetched %ld swaps %ld extra %ld\n", ctr[0],
           ctr[1] != 0, sums[0], sums[1], sums[2]);
    for (int i = 0; i < size; ++i)
      printf("rank %d hash %016llx\n", i, (unsigned long long)hs[i]);
  }
  MPI_Group_free(&from);
  MPI_Group_free(&to);
  MPI_Group_free(&world);
  MPI_Win_free(&wp);
  MPI_Win_free(&wl);
  MPI_Win_free(&wf);
  MPI_Win_free(&wa);
  MPI_Win_free(&wc);
  MPI_Free_mem(a);
  MPI_Finalize();
  return 0;
}
