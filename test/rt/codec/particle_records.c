// particle_records.c - an array of structs on the heap: 64-byte particles
// (position, velocity, id, species, a counter), 32 MiB, moved every step.
// Each field's bytes resemble the same field's in the other records, not
// their neighbours in memory: the heap's codec must be the shuffle of
// 64-byte records (codec_choice_test.py).
#include "ccc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  double X[3], V[3];
  int64_t Id;
  int32_t Species, Hits;
} Particle;

static double noise(uint64_t G) {
  G *= 0x9e3779b97f4a7c15ull;
  G ^= G >> 29;
  G *= 0xbf58476d1ce4e5b9ull;
  G ^= G >> 32;
  return (double)(G >> 11) / 9007199254740992.0;
}

int main(int argc, char **argv) {
  long Steps = argc > 1 ? atol(argv[1]) : 100;
  const size_t N = (32u << 20) / sizeof(Particle);
  const double L = 100.0, Dt = 1e-3;
  Particle *P = malloc(N * sizeof(Particle));
  for (size_t I = 0; I < N; ++I) {
    for (int K = 0; K < 3; ++K) {
      P[I].X[K] = L * noise(8 * I + K);
      P[I].V[K] = noise(8 * I + K + 3) - 0.5;
    }
    P[I].Id = (int64_t)I;
    P[I].Species = I % 4 == 0;
    P[I].Hits = 0;
  }
  for (long S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    for (size_t I = 0; I < N; ++I)
      for (int K = 0; K < 3; ++K) {
        double X = P[I].X[K] + Dt * P[I].V[K];
        P[I].Hits += X >= L || X < 0;
        P[I].X[K] = X >= L ? X - L : X < 0 ? X + L : X;
      }
  }
  double Sum = 0;
  long Hits = 0;
  for (size_t I = 0; I < N; ++I) {
    Sum += P[I].X[0] + P[I].X[1] + P[I].X[2];
    Hits += P[I].Hits;
  }
  printf("steps %ld sum %.12e hits %ld\n", Steps, Sum, Hits);
  free(P);
  return 0;
}
