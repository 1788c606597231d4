// win_allocate_pairs.c - MPI_Win_allocate windows keep MPI's own flavour
// across checkpoints (issue 46, item 5), in the style of MPICH's rma tests
// (accpscw, getfence_accum, fetch_and_op): every rank holds, in memory
// MPI_Win_allocate gave it, a table of (value, index) pairs of three pair
// types, MPI_DOUBLE_INT, MPI_LONG_INT and MPI_SHORT_INT, and a counter.
// Each step, in a fence epoch opened with MPI_MODE_NOPRECEDE and closed
// with MPI_MODE_NOSUCCEED (the site lies between them), every rank
//   - MPI_Accumulates MAXLOC into its right neighbour's DOUBLE_INT slot and
//     MINLOC into its LONG_INT slot (all origins into the same cell: the
//     result does not depend on their order),
//   - MPI_Get_accumulates MAXLOC on its own SHORT_INT cell of the right
//     neighbour's table, then MPI_Fetch_and_op SUM on its own counter
//     cell there, and checks what they returned against what it knows was
//     there (one origin per cell: the order is MPI's ordering of
//     accumulates from one origin).
// Open MPI's default one-sided component (osc rdma) gives wrong pair values
// and hangs on these mixes for an MPI_Win_create window over the same
// memory; a ccc build must give what the plain build gives. The window's
// MPI_WIN_CREATE_FLAVOR must say MPI_WIN_FLAVOR_ALLOCATE, before and after
// a restart.
//   usage: win_allocate_pairs STEPS
// Rank 0 prints the flavour, the number of wrong results, and hashes of
// every rank's table.
#include "ccc.h"

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  double v;
  int i;
} DoubleInt;
typedef struct {
  long v;
  int i;
} LongInt;
typedef struct {
  short v;
  int i;
} ShortInt;

#define MAXP 64 // ranks

typedef struct {
  DoubleInt d;
  LongInt l;
  ShortInt s[MAXP];
  long count[MAXP];
} Table;

static int flavourOf(MPI_Win w) {
  int *f, flag;
  MPI_Win_get_attr(w, MPI_WIN_CREATE_FLAVOR, &f, &flag);
  return flag ? *f : -1;
}

static uint64_t mix(uint64_t h, uint64_t x) {
  h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

int main(int argc, char **argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 100;
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > MAXP)
    MPI_Abort(MPI_COMM_WORLD, 1);
  int right = (rank + 1) % size;

  Table *t;
  MPI_Win w;
  MPI_Win_allocate(sizeof(Table), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &t, &w);
  t->d.v = -1e300;
  t->d.i = -1;
  t->l.v = 1L << 40;
  t->l.i = -1;
  for (int r = 0; r < MAXP; ++r) {
    t->s[r].v = 0;
    t->s[r].i = 0;
    t->count[r] = 0;
  }
  // What this rank knows it put into its own cells of the right table.
  ShortInt mine = {0, 0};
  long counted = 0, wrong = 0;
  int badFlavour = flavourOf(w) != MPI_WIN_FLAVOR_ALLOCATE;
  MPI_Barrier(MPI_COMM_WORLD);

  MPI_Aint dOff = offsetof(Table, d), lOff = offsetof(Table, l);
  MPI_Aint sOff = offsetof(Table, s) + rank * sizeof(ShortInt);
  MPI_Aint cOff = offsetof(Table, count) + rank * sizeof(long);
  for (int step = 0; step < steps; ++step) {
    ccc_checkpoint();
    badFlavour |= flavourOf(w) != MPI_WIN_FLAVOR_ALLOCATE;
    MPI_Win_fence(MPI_MODE_NOPRECEDE, w);
    DoubleInt d = {(double)((step * 7 + rank * 13) % 101), rank};
    LongInt l = {(long)((step * 11 + rank * 5) % 97) - 40, step};
    MPI_Accumulate(&d, 1, MPI_DOUBLE_INT, right, dOff, 1, MPI_DOUBLE_INT,
                   MPI_MAXLOC, w);
    MPI_Accumulate(&l, 1, MPI_LONG_INT, right, lOff, 1, MPI_LONG_INT,
                   MPI_MINLOC, w);
    ShortInt s = {(short)((step * 3 + rank) % 50), step}, was;
    MPI_Get_accumulate(&s, 1, MPI_SHORT_INT, &was, 1, MPI_SHORT_INT, right,
                       sOff, 1, MPI_SHORT_INT, MPI_MAXLOC, w);
    long one = step % 3 + 1, before;
    MPI_Fetch_and_op(&one, &before, MPI_LONG, right, cOff, MPI_SUM, w);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, w);
    wrong += was.v != mine.v || was.i != mine.i || before != counted;
    // MAXLOC: the larger value; on a tie the smaller index.
    if (s.v > mine.v || (s.v == mine.v && s.i < mine.i))
      mine = s;
    counted += one;
  }

  uint64_t h = 1469598103934665603ULL;
  h = mix(h, (uint64_t)(t->d.v * 1000));
  h = mix(h, (uint64_t)t->d.i);
  h = mix(h, (uint64_t)t->l.v);
  h = mix(h, (uint64_t)t->l.i);
  for (int r = 0; r < size; ++r) {
    h = mix(h, (uint64_t)t->s[r].v);
    h = mix(h, (uint64_t)t->s[r].i);
    h = mix(h, (uint64_t)t->count[r]);
  }
  uint64_t *all = malloc(size * sizeof(uint64_t));
  long bad[2] = {badFlavour, wrong}, badAll[2];
  MPI_Gather(&h, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  MPI_Allreduce(bad, badAll, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("flavour %s on %ld rank(s)\n",
           badAll[0] ? "not MPI_WIN_FLAVOR_ALLOCATE" : "allocate", badAll[0]);
    printf("wrong fetched values: %ld\n", badAll[1]);
    for (int r = 0; r < size; ++r)
      printf("rank %d table %016llx\n", r, (unsigned long long)all[r]);
    printf("max %a at %d, min %ld at %d\n", t->d.v, t->d.i, t->l.v, t->l.i);
  }
  free(all);
  MPI_Win_free(&w);
  MPI_Finalize();
  return badAll[0] || badAll[1] ? 1 : 0;
}
