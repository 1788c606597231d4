// fastpath.c - cost of a ccc_checkpoint() site when no checkpoint is due.
// The same loop is built with the site (ckpt-cc: the pass inlines a load and
// a branch) and with -DNO_SITE; the difference per iteration is the cost.
#include "ccc.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return T.tv_sec + T.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  long N = argc > 1 ? atol(argv[1]) : 200000000L;
  volatile unsigned long Sink;
  unsigned long X = 88172645463325252UL;
  double T0 = now();
  for (long I = 0; I < N; ++I) {
    X ^= X << 13;
    X ^= X >> 7;
    X ^= X << 17;
#ifndef NO_SITE
    ccc_checkpoint();
#endif
  }
  double T1 = now();
  Sink = X;
  (void)Sink;
  printf("%.4f\n", (T1 - T0) * 1e9 / N);
  return 0;
}
