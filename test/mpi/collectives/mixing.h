// mixing.h - what the C collective test programs share: every output's
// bits go into a 64-bit hash (take), which draws the next iteration's data
// (draw: K doubles of magnitudes 2^0 .. 2^15 and K integers). One program
// per translation unit: the state is static.
#ifndef CCC_TEST_COLLECTIVES_MIXING_H
#define CCC_TEST_COLLECTIVES_MIXING_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

enum { K = 6 }; // data per rank

static uint64_t Hash;
static double X[K];
static int Ints[K];

static inline uint64_t mix64(uint64_t V) {
  V ^= V >> 30;
  V *= 0xbf58476d1ce4e5b9ULL;
  V ^= V >> 27;
  V *= 0x94d049bb133111ebULL;
  return V ^ (V >> 31);
}

static inline void takeBytes(const void *P, size_t N) {
  const unsigned char *B = P;
  for (size_t I = 0; I < N; ++I)
    Hash = (Hash ^ B[I]) * 0x100000001b3ULL;
  Hash = mix64(Hash);
}
static inline void take(const double *V, int N) {
  takeBytes(V, N * sizeof *V);
}
static inline void takeInts(const int *V, int N) {
  takeBytes(V, N * sizeof *V);
}

static inline void draw(void) {
  for (int I = 0; I < K; ++I) {
    uint64_t R = mix64(Hash + (uint64_t)I);
    X[I] = ((double)(R >> 11) * 0x1p-53 - 0.5) * (double)(1 << (I * 3));
    Ints[I] = (int)(R >> 40) % 1000 - 500;
  }
}

// A user op, not commutative: (a, b) -> a/2 + b (rank order shows).
static inline void halfPlus(void *In, void *InOut, int *Len,
                            MPI_Datatype *T) {
  (void)T;
  const double *A = In;
  double *B = InOut;
  for (int I = 0; I < *Len; ++I)
    B[I] = A[I] * 0.5 + B[I];
}

#endif
