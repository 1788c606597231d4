// alloc_bench.c - mixed-size allocation throughput. Built twice from this
// source: with plain clang (glibc malloc) and with ckpt-cc (every call goes
// to ccc's fixed-address allocator). Fixed seed, same operation sequence.
// usage: alloc_bench [operations]    prints operations per second
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t Rng = 0x243f6a8885a308d3ULL;
static uint64_t next(void) {
  Rng ^= Rng << 13;
  Rng ^= Rng >> 7;
  Rng ^= Rng << 17;
  return Rng;
}
// Log-uniform sizes from 8 B to 64 KiB: many small, some large.
static size_t size(void) {
  unsigned Bits = 3 + next() % 14;
  return (size_t)1 << Bits | (next() & (((size_t)1 << Bits) - 1));
}

int main(int argc, char **argv) {
  long Ops = argc > 1 ? atol(argv[1]) : 20000000;
  enum { Slots = 4096 };
  static char *Slot[Slots];
  static size_t Len[Slots];
  struct timespec T0, T1;
  clock_gettime(CLOCK_MONOTONIC, &T0);
  unsigned long Check = 0;
  for (long I = 0; I < Ops; ++I) {
    unsigned K = next() % Slots;
    if (Slot[K] && next() % 8 == 0) { // realloc growth
      size_t N = Len[K] * 2 > 65536 ? 16 : Len[K] * 2;
      Slot[K] = realloc(Slot[K], N);
      Len[K] = N;
    } else {
      free(Slot[K]);
      Len[K] = size();
      Slot[K] = malloc(Len[K]);
    }
    Slot[K][0] = (char)I; // touch
    Check += (unsigned char)Slot[K][0];
  }
  clock_gettime(CLOCK_MONOTONIC, &T1);
  for (unsigned K = 0; K < Slots; ++K)
    free(Slot[K]);
  double S = (T1.tv_sec - T0.tv_sec) + (T1.tv_nsec - T0.tv_nsec) * 1e-9;
  printf("%.0f\n", Ops / S);
  fprintf(stderr, "check %lu\n", Check);
  return 0;
}
