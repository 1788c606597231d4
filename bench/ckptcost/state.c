// state.c - N MiB of application state (3/4 smooth doubles, 1/4 integers)
// for bench/ckptcost/run.py.
//   state MB dump FILE   writes the state's raw bytes to FILE (the
//                        baseline's input) and exits
//   state MB ckpt        takes one forced checkpoint and prints its time
//   state MB ckpt        (run again with CCC_RESTART=require) restarts from
//                        it and exits as soon as the site returns
#include "ccc.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return T.tv_sec + 1e-9 * T.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  size_t Bytes = (size_t)(atof(argv[1]) * 1048576) / 32 * 32;
  size_t ND = Bytes / 4 * 3 / 8, NI = Bytes / 4 / 8;
  double *D = malloc(ND * sizeof(double));
  uint64_t *I64 = malloc(NI * sizeof(uint64_t));
  for (size_t I = 0; I < ND; ++I)
    D[I] = sin(1e-4 * (double)I) * exp(-1e-9 * (double)I);
  for (size_t I = 0; I < NI; ++I)
    I64[I] = I / 3 * 2654435761u % 100000;
  if (!strcmp(argv[2], "dump")) {
    FILE *F = fopen(argv[3], "wb");
    if (!F || fwrite(D, 8, ND, F) != ND || fwrite(I64, 8, NI, F) != NI ||
        fclose(F))
      return 1;
    return 0;
  }
  double T0 = now();
  int R = ccc_checkpoint_force();
  double T1 = now();
  if (R == CCC_RESTARTED) {
    printf("restarted %.12e\n", D[ND / 2] + (double)I64[NI / 2]);
    return 0;
  }
  printf("checkpoint %.6f s %s\n", T1 - T0, R == CCC_TAKEN ? "taken" : "NOT");
  return R == CCC_TAKEN ? 0 : 1;
}
