// alloc_bench.c - mixed-size allocation throughput. Built twice from this
// source: with plain clang (glibc malloc) and with ckpt-cc (every call goes
// to ccc's fixed-address allocator). Fixed seeds, same operation sequence.
// With THREADS > 1, each thread runs the sequence of its own seed on slots
// of its own, all at once (as OpenMP workers allocating in a region), and
// the operations of all threads count.
// usage: alloc_bench [operations per thread] [threads]   prints operations
// per second (all threads)
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { Slots = 4096, MaxThreads = 64 };

struct Worker {
  uint64_t Rng;
  long Ops;
  unsigned long Check;
  char *Slot[Slots];
  size_t Len[Slots];
};

static uint64_t next(struct Worker *W) {
  W->Rng ^= W->Rng << 13;
  W->Rng ^= W->Rng >> 7;
  W->Rng ^= W->Rng << 17;
  return W->Rng;
}
// Log-uniform sizes from 8 B to 64 KiB: many small, some large.
static size_t size(struct Worker *W) {
  unsigned Bits = 3 + next(W) % 14;
  return (size_t)1 << Bits | (next(W) & (((size_t)1 << Bits) - 1));
}

static void *run(void *P) {
  struct Worker *W = P;
  for (long I = 0; I < W->Ops; ++I) {
    unsigned K = next(W) % Slots;
    if (W->Slot[K] && next(W) % 8 == 0) { // realloc growth
      size_t N = W->Len[K] * 2 > 65536 ? 16 : W->Len[K] * 2;
      W->Slot[K] = realloc(W->Slot[K], N);
      W->Len[K] = N;
    } else {
      free(W->Slot[K]);
      W->Len[K] = size(W);
      W->Slot[K] = malloc(W->Len[K]);
    }
    W->Slot[K][0] = (char)I; // touch
    W->Check += (unsigned char)W->Slot[K][0];
  }
  return NULL;
}

int main(int argc, char **argv) {
  long Ops = argc > 1 ? atol(argv[1]) : 20000000;
  int Threads = argc > 2 ? atoi(argv[2]) : 1;
  if (Ops <= 0 || Threads < 1 || Threads > MaxThreads) {
    fprintf(stderr, "usage: alloc_bench [operations] [threads 1-%d]\n",
            MaxThreads);
    return 2;
  }
  static struct Worker W[MaxThreads];
  pthread_t T[MaxThreads];
  for (int I = 0; I < Threads; ++I) {
    W[I].Rng = 0x243f6a8885a308d3ULL + 0x9e3779b97f4a7c15ULL * I;
    W[I].Ops = Ops;
  }
  struct timespec T0, T1;
  clock_gettime(CLOCK_MONOTONIC, &T0);
  if (Threads == 1) {
    run(&W[0]); // the main thread, as before threads were measured
  } else {
    for (int I = 0; I < Threads; ++I)
      if (pthread_create(&T[I], NULL, run, &W[I])) {
        fprintf(stderr, "alloc_bench: cannot start thread %d\n", I);
        return 1;
      }
    for (int I = 0; I < Threads; ++I)
      pthread_join(T[I], NULL);
  }
  clock_gettime(CLOCK_MONOTONIC, &T1);
  unsigned long Check = 0;
  for (int I = 0; I < Threads; ++I) {
    for (unsigned K = 0; K < Slots; ++K)
      free(W[I].Slot[K]);
    Check += W[I].Check;
  }
  double S = (T1.tv_sec - T0.tv_sec) + (T1.tv_nsec - T0.tv_nsec) * 1e-9;
  printf("%.0f\n", (double)Ops * Threads / S);
  fprintf(stderr, "check %lu\n", Check);
  return 0;
}
