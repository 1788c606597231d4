// mostly_unchanged_state.c - 48 MiB of a table that is written once and then
// only read, and 1 MiB of state that every step rewrites: an incremental
// image must store the 1 MiB (and the stack), not the table. With a second
// argument, every step forces a checkpoint (versions 1..Steps).
#include "ccc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  long Steps = argc > 1 ? atol(argv[1]) : 40;
  size_t NT = (size_t)6 << 20, NS = (size_t)1 << 17; // 48 MiB, 1 MiB
  uint64_t *Table = malloc(NT * sizeof(uint64_t));
  uint64_t *State = calloc(NS, sizeof(uint64_t));
  uint64_t X = 88172645463325252ull;
  for (size_t I = 0; I < NT; ++I) {
    X ^= X << 13, X ^= X >> 7, X ^= X << 17;
    Table[I] = X;
  }
  int Force = argc > 2;
  for (long S = 0; S < Steps; ++S) {
    if (Force)
      ccc_checkpoint_force();
    else
      ccc_checkpoint();
    for (size_t I = 0; I < NS; ++I)
      State[I] = State[I] * 31 + Table[(I * 7919 + S * 104729) % NT];
  }
  uint64_t H = 0;
  for (size_t I = 0; I < NS; ++I)
    H = H * 1000003 + State[I];
  printf("steps %ld state %016llx\n", Steps, (unsigned long long)H);
  return 0;
}
