// heap_scratch_dead_at_site.c - a time-step loop with two malloc'd vectors
// whose length comes from the command line: the state, read and updated
// every step, and an 8 MiB work vector the step overwrites whole before
// reading it. The pass proves the work vector dead at the site (its extent
// through scalar evolution: n elements of malloc(n * 8)) and marks it for
// that site's image; a restart leaves whatever the fresh heap holds there,
// and the result is still the uninterrupted one.
#include "ccc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  long Steps = argc > 1 ? atol(argv[1]) : 100;
  long N = argc > 2 ? atol(argv[2]) : 1 << 20;
  if (N < 4096)
    N = 4096;
  uint64_t *State = calloc(4096, sizeof(uint64_t));
  double *Work = malloc(N * sizeof(double));
  for (long S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    for (long I = 0; I < N; ++I)
      Work[I] = (double)((I * 2654435761u + S) & 0xffff) * 0.5;
    for (long I = 0; I < 4096; ++I)
      State[I] = State[I] * 31 + (uint64_t)Work[(I * 977 + S) % N];
  }
  uint64_t H = 0;
  for (long I = 0; I < 4096; ++I)
    H = H * 1000003 + State[I];
  printf("steps %ld state %016llx\n", Steps, (unsigned long long)H);
  free(Work);
  free(State);
  return 0;
}
