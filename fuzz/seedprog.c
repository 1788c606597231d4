/* The program whose checkpoints seed the fuzzers' corpus (make_corpus.sh):
 * small, with heap data of the kinds the codecs are chosen for: a smooth
 * field (differences + shuffle), an array of 32-byte records (record
 * shuffle), doubles (shuffle8), a table of repeated values; two large
 * blocks (over 256 KiB) of different kinds for the per-block codec when
 * built with -DLARGE; many records with -DRECS. Each step changes part of the data, so images after
 * the first can be incremental. */
#include <ccc.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef LARGE
#define N (40 * 1024) /* doubles: 320 KiB */
#else
#define N 2048
#endif
#ifdef RECS
#define NR (16 * 1024) /* 384 KiB of records */
#else
#define NR (N / 4)
#endif

struct Rec {
  double X, V;
  long Id;
  char Tag[8];
};

static double Global[256];
static int Steps;

int main(int argc, char **argv) {
  int K = argc > 1 ? atoi(argv[1]) : 3;
  double *Field = malloc(N * sizeof(double));
  double *Table = malloc(N * sizeof(double));
  struct Rec *R = malloc(NR * sizeof(struct Rec));
  for (int I = 0; I < N; ++I) {
    Field[I] = 1.0 + I * 1e-3;
    Table[I] = (double)(I % 7);
  }
  for (int I = 0; I < NR; ++I)
    R[I] = (struct Rec){I * 0.37, 1.5, 1000 + I % 3, "particl"};
  for (Steps = 0; Steps < K; ++Steps) {
    for (int I = 0; I < N / 8; ++I)
      Field[I] += 0.5;
    Global[Steps % 256] = Steps;
    ccc_checkpoint_force();
  }
  double S = 0;
  for (int I = 0; I < N; ++I)
    S += Field[I] + Table[I] + R[I / 4].X;
  printf("%g\n", S);
  return 0;
}
