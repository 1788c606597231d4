// realloc_growth.c - proves the allocator's own state survives restart:
// vectors grown by realloc from one element to megabytes and shrunk again,
// strings from strdup/strndup/asprintf, calloc'd and aligned blocks, with
// allocations after a restart landing where the uninterrupted run put them.
#define _GNU_SOURCE
#include "ccc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NVEC 8
static uint64_t *Vec[NVEC];
static size_t Len[NVEC];
static char *Names[64];
static void *Aligned[16];

int main(int argc, char **argv) {
  long Steps = argc > 1 ? atol(argv[1]) : 3000;
  uint64_t Check = 0;
  for (long S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    int V = S % NVEC;
    size_t NewLen = (S / NVEC) % 40 < 30 ? Len[V] * 2 + 1 : Len[V] / 3;
    if (NewLen > (1u << 19))
      NewLen = 1;
    Vec[V] = realloc(Vec[V], (NewLen ? NewLen : 1) * sizeof(uint64_t));
    for (size_t I = Len[V]; I < NewLen; ++I)
      Vec[V][I] = I * 2654435761u + S;
    Len[V] = NewLen;
    for (size_t I = 0; I < Len[V]; I += 97)
      Check = Check * 31 + Vec[V][I];
    int N = S % 64;
    free(Names[N]);
    if (S % 3 == 0)
      asprintf(&Names[N], "name-%ld-%llu", S, (unsigned long long)Check);
    else if (S % 3 == 1)
      Names[N] = strdup("a fairly long string that is duplicated");
    else
      Names[N] = strndup("truncated string here", S % 20);
    int A = S % 16;
    free(Aligned[A]);
    if (S % 2)
      posix_memalign(&Aligned[A], 64 << (S % 4), 1000 + S % 5000);
    else
      Aligned[A] = aligned_alloc(256, 4096);
    memset(Aligned[A], (int)(S & 0xff), 1000);
    uint32_t *Z = calloc(1000 + S % 100, sizeof(uint32_t));
    for (int I = 0; I < 1000; ++I)
      Check += Z[I];
    Z[0] = (uint32_t)S;
    Check += (uintptr_t)Aligned[A] % 4096 + Z[0];
    // The address a new block gets is part of the allocator's state.
    Check += (uintptr_t)Z & 0xffff;
    free(Z);
  }
  for (int I = 0; I < 64; ++I)
    if (Names[I])
      for (char *C = Names[I]; *C; ++C)
        Check = Check * 131 + *C;
  for (int V = 0; V < NVEC; ++V)
    for (size_t I = 0; I < Len[V]; ++I)
      Check = Check * 7 + Vec[V][I];
  printf("check %016llx\n", (unsigned long long)Check);
  return 0;
}
