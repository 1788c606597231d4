// field_beside_table.c - two heap arrays of different kinds, 8 MiB each: a
// smooth field (differences then shuffle code it best) updated every step,
// and a table of doubles drawn from 16 values (plain zstd codes it
// best; differences scramble it). One codec for the whole heap would suit
// only one of them: each large block must get its own (per-block codec,
// codec_choice_test.py).
#include "ccc.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  long Steps = argc > 1 ? atol(argv[1]) : 100;
  const size_t N = (8u << 20) / sizeof(double);
  double *Field = malloc(N * sizeof(double));
  double *Table = malloc(N * sizeof(double));
  double Values[16];
  uint64_t X = 88172645463325252ull;
  for (int K = 0; K < 16; ++K) {
    X ^= X << 13;
    X ^= X >> 7;
    X ^= X << 17;
    Values[K] = (double)(X >> 11) / 9007199254740992.0;
  }
  for (size_t I = 0; I < N; ++I) {
    X ^= X << 13;
    X ^= X >> 7;
    X ^= X << 17;
    Table[I] = Values[X >> 60];
    Field[I] = sin(1e-4 * (double)I);
  }
  double Sum = 0;
  for (long S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    for (size_t I = 0; I < N; ++I)
      Field[I] =
          0.5 * Field[I] + 0.5 * sin(1e-4 * (double)I + 1e-3 * (double)S);
    Sum += Field[(size_t)S % N] * Table[(size_t)S * 7 % N];
  }
  for (size_t I = 0; I < N; I += 4096)
    Sum += Table[I] + Field[I];
  printf("steps %ld sum %.12e\n", Steps, Sum);
  free(Field);
  free(Table);
  return 0;
}
