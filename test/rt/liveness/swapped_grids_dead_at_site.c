// swapped_grids_dead_at_site.c - a 1-D Jacobi iteration on two grids with
// a ghost cell at each end, swapped every step (u, unew). At the site u is
// live and unew's interior is dead: the sweep rewrites unew[1..n] before
// anything reads it. Its ghost cells are live: they hold the boundary
// values (1 and -1), which the sweep reads through u after the swap and
// never writes. The pass marks only unew's interior dead at the site; a
// restart leaves whatever the fresh heap holds there, and the result is
// still the uninterrupted one (it would not be if a ghost cell were lost).
#include "ccc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  long Steps = argc > 1 ? atol(argv[1]) : 100;
  long N = argc > 2 ? atol(argv[2]) : 1 << 18;
  if (N < 16)
    N = 16;
  double *U = malloc((N + 2) * sizeof(double));
  double *Unew = malloc((N + 2) * sizeof(double));
  U[0] = Unew[0] = 1;
  U[N + 1] = Unew[N + 1] = -1;
  for (long I = 1; I <= N; ++I)
    U[I] = (double)((I * 2654435761u) & 0xff) / 256;
  for (long S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    for (long I = 1; I <= N; ++I)
      Unew[I] = 0.25 * U[I - 1] + 0.5 * U[I] + 0.25 * U[I + 1];
    double *T = U;
    U = Unew;
    Unew = T;
  }
  uint64_t H = 0;
  for (long I = 0; I <= N + 1; ++I)
    H = H * 1000003 + (uint64_t)(U[I] * 1e12);
  printf("steps %ld grid %016llx\n", Steps, (unsigned long long)H);
  free(U);
  free(Unew);
  return 0;
}
