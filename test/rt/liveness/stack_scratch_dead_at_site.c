// stack_scratch_dead_at_site.c - a time-step loop in main with the state
// on the heap and a 4 MiB work array on main's stack (half the default stack) that the step
// overwrites whole before reading it. The pass proves the local dead at
// the site (it owns its stack slot there: its lifetime spans the loop) and
// marks it for that site's image; a restart leaves whatever the fresh
// stack holds there, and the result is still the uninterrupted one.
#include "ccc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 1 << 19 };

int main(int argc, char **argv) {
  long Steps = argc > 1 ? atol(argv[1]) : 100;
  uint64_t *State = calloc(4096, sizeof(uint64_t));
  double Work[N];
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
  free(State);
  return 0;
}
