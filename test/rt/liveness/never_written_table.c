// never_written_table.c - an 8 MiB lookup table initialised in the source
// and only read afterwards: the pass proves it is never written, so images
// leave it out (it comes back from the binary) while the 64 KiB state
// that is written every step is saved.
#include "ccc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 20)
// Nonzero initialiser: the table lives in .data, not .bss.
static uint64_t Table[N] = {0x9e3779b97f4a7c15ull, 3, 5, 7, 11, 13};
static uint64_t State[8192];

int main(int argc, char **argv) {
  long Steps = argc > 1 ? atol(argv[1]) : 100;
  for (long S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    for (size_t I = 0; I < 8192; ++I)
      for (int K = 0; K < 64; ++K)
        State[I] = State[I] * 31 + Table[(I * 64 + K + S * 7919) % N] + K;
  }
  uint64_t H = 0;
  for (size_t I = 0; I < 8192; ++I)
    H = H * 1000003 + State[I];
  printf("steps %ld state %016llx\n", Steps, (unsigned long long)H);
  return 0;
}
