// scratch_global_dead_at_site.c - an 8 MiB scratch array in a static global,
// filled whole by a loop before every read, and a small state carried from
// step to step: the pass's liveness analysis proves the scratch dead at the
// site (flag CCC_GLOBAL_DEAD_AT_SITES), so images leave it out, and a
// restart, which leaves zeros there, still gives the uninterrupted result.
#include "ccc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 20)
static double Scratch[N];
static uint64_t State[4096];

static void fill(long S) {
  for (long I = 0; I < N; ++I)
    Scratch[I] = (double)((I * 2654435761u + S) & 0xffff) * 0.5;
}

int main(int argc, char **argv) {
  long Steps = argc > 1 ? atol(argv[1]) : 100;
  for (long S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    fill(S);
    for (long I = 0; I < 4096; ++I)
      State[I] = State[I] * 31 + (uint64_t)Scratch[(I * 977 + S) % N];
  }
  uint64_t H = 0;
  for (long I = 0; I < 4096; ++I)
    H = H * 1000003 + State[I];
  printf("steps %ld state %016llx\n", Steps, (unsigned long long)H);
  return 0;
}
