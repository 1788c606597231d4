// large_state.c - about 200 MiB of live heap data, so that writing an image
// takes long enough for the harness to SIGKILL the process in the middle of
// a write: the previous committed checkpoint must then be used.
#include "ccc.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  long Steps = argc > 1 ? atol(argv[1]) : 2000;
  size_t ND = (size_t)20 << 20, NI = (size_t)10 << 20; // 160 + 40 MiB
  double *D = malloc(ND * sizeof(double));
  uint32_t *I32 = malloc(NI * sizeof(uint32_t));
  for (size_t I = 0; I < ND; ++I)
    D[I] = sin(I * 0.001);
  for (size_t I = 0; I < NI; ++I)
    I32[I] = (uint32_t)(I * 2654435761u);
  for (long S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    size_t Off = (size_t)S * 524287 % (ND - 1000000);
    for (size_t I = Off; I < Off + 1000000; ++I)
      D[I] = D[I] * 0.5 + 0.25;
    for (size_t I = S; I < NI; I += 4099)
      I32[I] ^= (uint32_t)S;
  }
  double Sum = 0;
  uint64_t H = 0;
  for (size_t I = 0; I < ND; I += 7)
    Sum += D[I];
  for (size_t I = 0; I < NI; I += 3)
    H = H * 31 + I32[I];
  printf("sum %a h %016llx\n", Sum, (unsigned long long)H);
  return 0;
}
