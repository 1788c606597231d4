// arrays_among_tables.c - a heap where the large blocks (arrays over 256
// KiB) and the small ones hold different kinds of data: a 16 MiB smooth
// field and four 272 KiB smooth arrays, updated every step, among sixteen
// 128 KiB tables of doubles drawn from 16 values, written once. The 16
// samples of an image miss some of the small arrays; those must be coded
// as the arrays measured (differences then shuffle), not as the tables
// (plain): ckpt verify's count of blocks per codec (codec_choice_test.py).
#include "ccc.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { NTables = 16, NSmall = 4 };

static void smooth(double *A, size_t N, double Phase) {
  for (size_t I = 0; I < N; ++I)
    A[I] = 0.5 * A[I] + 0.5 * sin(1e-4 * (double)I + Phase);
}

int main(int argc, char **argv) {
  long Steps = argc > 1 ? atol(argv[1]) : 100;
  const size_t NF = (16u << 20) / 8, NS = (272u << 10) / 8,
               NT = (128u << 10) / 8;
  double *Field = calloc(NF, sizeof(double)), *Small[NSmall], *Table[NTables];
  uint64_t X = 88172645463325252ull;
  double Values[16];
  for (int K = 0; K < 16; ++K) {
    X ^= X << 13;
    X ^= X >> 7;
    X ^= X << 17;
    Values[K] = (double)(X >> 11) / 9007199254740992.0;
  }
  for (int T = 0; T < NTables; ++T) {
    // The arrays between the tables, so that samples fall on either side.
    if (T % (NTables / NSmall) == 0)
      Small[T / (NTables / NSmall)] = calloc(NS, sizeof(double));
    Table[T] = malloc(NT * sizeof(double));
    for (size_t I = 0; I < NT; ++I) {
      X ^= X << 13;
      X ^= X >> 7;
      X ^= X << 17;
      Table[T][I] = Values[X >> 60];
    }
  }
  double Sum = 0;
  for (long S = 0; S < Steps; ++S) {
    smooth(Field, NF, 1e-3 * (double)S);
    for (int K = 0; K < NSmall; ++K)
      smooth(Small[K], NS, 1e-3 * (double)(S + K));
    ccc_checkpoint();
    Sum += Field[(size_t)S % NF] * Table[S % NTables][(size_t)S % NT];
  }
  for (int K = 0; K < NSmall; ++K)
    Sum += Small[K][NS / 2];
  printf("steps %ld sum %.12e\n", Steps, Sum);
  return 0;
}
