// alloc_stress.c - ccc's allocator (every malloc of a program built with
// the pass) under OpenMP threads allocating at once: each of 4 threads
// mallocs, callocs, reallocs and frees blocks of 1 B to 512 KiB (small
// classes and large extents), fills each with a pattern of its own and
// checks it whole before every realloc and free (a block handed out twice,
// or overlapping another, shows); calloc's zeroes and realloc's kept prefix
// are checked too; every round, each thread frees the blocks of its
// neighbour (frees from another thread than the allocating one). Built
// with a site (the runtime maps the heap before main) and without (the
// threads' first mallocs race to map it).
//   usage: alloc_stress OPERATIONS   prints "ok" or the first mismatch
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef WITH_SITE
#include <ccc.h>
#endif

enum { Threads = 4, Slots = 512, Rounds = 4 };

struct Block {
  unsigned char *P;
  size_t Len;
  unsigned char Tag;
};
static struct Block B[Threads][Slots];
static int Bad;

static uint64_t next(uint64_t *R) {
  *R ^= *R << 13;
  *R ^= *R >> 7;
  *R ^= *R << 17;
  return *R;
}

// Mostly small (1 B to 8 KiB); one in 32 large (256 to 512 KiB: the
// allocator's extents, above its size classes).
static size_t pickSize(uint64_t *R) {
  unsigned Bits = next(R) % 32 == 0 ? 18 : next(R) % 13;
  return ((size_t)1 << Bits) + next(R) % ((size_t)1 << Bits) + 1;
}

static void fill(struct Block *X, size_t From) {
  for (size_t I = From; I < X->Len; ++I)
    X->P[I] = (unsigned char)(X->Tag + I * 7);
}

static int intact(const struct Block *X, size_t Len) {
  for (size_t I = 0; I < Len; ++I)
    if (X->P[I] != (unsigned char)(X->Tag + I * 7))
      return 0;
  return 1;
}

static void fail(const char *What, int T, int K) {
#pragma omp critical
  if (!Bad++)
    printf("alloc_stress: %s (thread %d, slot %d)\n", What, T, K);
}

static void release(struct Block *X, int T, int K) {
  if (!X->P)
    return;
  if (!intact(X, X->Len))
    fail("block changed before free", T, K);
  free(X->P);
  X->P = NULL;
}

int main(int argc, char **argv) {
  long Ops = argc > 1 ? atol(argv[1]) : 100000;
#pragma omp parallel num_threads(Threads)
  {
    int T = omp_get_thread_num();
    uint64_t R = 0x9e3779b97f4a7c15ull * (T + 1);
    for (int Round = 0; Round < Rounds; ++Round) {
      for (long I = 0; I < Ops / Rounds; ++I) {
        int K = next(&R) % Slots;
        struct Block *X = &B[T][K];
        unsigned Op = next(&R) % 4;
        if (X->P && Op == 0) { // realloc: the prefix must survive
          size_t Keep = X->Len, N = pickSize(&R);
          if (!intact(X, Keep))
            fail("block changed before realloc", T, K);
          unsigned char *P = realloc(X->P, N);
          if (!P) {
            fail("realloc returned NULL", T, K);
            continue;
          }
          X->P = P;
          X->Len = N;
          if (!intact(X, Keep < N ? Keep : N))
            fail("realloc lost the block's bytes", T, K);
          fill(X, Keep < N ? Keep : N);
        } else {
          release(X, T, K);
          X->Len = pickSize(&R);
          X->Tag = (unsigned char)next(&R);
          if (Op == 1) {
            X->P = calloc(1, X->Len);
            for (size_t J = 0; X->P && J < X->Len; ++J)
              if (X->P[J]) {
                fail("calloc block not zero", T, K);
                break;
              }
          } else {
            X->P = malloc(X->Len);
          }
          if (!X->P) {
            fail("malloc returned NULL", T, K);
            continue;
          }
          fill(X, 0);
        }
      }
#pragma omp barrier
      // Frees from another thread than the allocating one.
      int N = (T + 1) % Threads;
      for (int K = 0; K < Slots; K += 2)
        release(&B[N][K], N, K);
#pragma omp barrier
    }
    for (int K = 0; K < Slots; ++K)
      release(&B[T][K], T, K);
  }
#ifdef WITH_SITE
  ccc_checkpoint(); // links the runtime's start: the heap is mapped first
#endif
  if (!Bad)
    printf("ok\n");
  return Bad ? 1 : 0;
}
