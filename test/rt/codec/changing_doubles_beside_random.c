// changing_doubles_beside_random.c - a heap where the data that changes is
// not like the data that does not: 32 MiB of random words written once
// (read at the end) and 2 MiB of smooth doubles rewritten every step. The
// whole heap gains too little from the byte shuffle to use it, the doubles
// alone much: an incremental image, which stores only the doubles, must
// choose its codec from them (codec_choice_test.py).
#include "ccc.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  long Steps = argc > 1 ? atol(argv[1]) : 100;
  const size_t NR = (32u << 20) / 8, ND = (2u << 20) / 8;
  uint64_t *Random = malloc(NR * sizeof(uint64_t));
  double *Field = malloc(ND * sizeof(double));
  uint64_t X = 88172645463325252ull;
  for (size_t I = 0; I < NR; ++I) {
    X ^= X << 13;
    X ^= X >> 7;
    X ^= X << 17;
    Random[I] = X;
  }
  for (size_t I = 0; I < ND; ++I)
    Field[I] = sin(1e-3 * (double)I);
  double Sum = 0;
  for (long S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    // Read, then written: live at the site (the pass would leave a field
    // rewritten whole before any read out of the image).
    for (size_t I = 1; I < ND; ++I)
      Field[I] = 0.75 * Field[I] + 0.25 * Field[I - 1];
    Sum += Field[(size_t)S * 7919 % ND];
  }
  uint64_t H = 0;
  for (size_t I = 0; I < NR; ++I)
    H = H * 31 + Random[I];
  printf("steps %ld sum %.12e hash %016llx\n", Steps, Sum,
         (unsigned long long)H);
  return 0;
}
