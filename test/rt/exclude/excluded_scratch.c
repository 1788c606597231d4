// excluded_scratch.c - 32 MiB of heap scratch and 8 MiB of global scratch,
// recomputed every step before they are read, are excluded with
// ccc_exclude; the 1 MiB state and a 4 MiB live block are not. The live
// block reuses the memory of a block that was excluded and then freed: a
// free must drop the exclusion, or the live block would not be saved.
// Stack memory must be refused.
#include "ccc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static double GlobalScratch[1 << 20]; // 8 MiB

int main(int argc, char **argv) {
  long Steps = argc > 1 ? atol(argv[1]) : 100;
  size_t NS = 1 << 17, NX = 4 << 20, NL = 1 << 19; // 1, 32 (doubles), 4 MiB
  uint64_t *State = malloc(NS * sizeof(uint64_t));
  for (size_t I = 0; I < NS; ++I)
    State[I] = I * 0x9e3779b97f4a7c15ull;
  double *Scratch = malloc(NX * sizeof(double));
  ccc_exclude(Scratch, NX * sizeof(double));
  ccc_exclude(GlobalScratch, sizeof(GlobalScratch));
  uint64_t *Gone = malloc(NL * sizeof(uint64_t));
  ccc_exclude(Gone, NL * sizeof(uint64_t));
  free(Gone);
  uint64_t *Live = malloc(NL * sizeof(uint64_t));
  for (size_t I = 0; I < NL; ++I)
    Live[I] = I ^ 0x5555;
  int OnStack[64] = {0};
  if (ccc_exclude(OnStack, sizeof(OnStack)) == 0 && ccc_restarted() == 0 &&
      getenv("CCC_EXPECT_ACTIVE")) {
    printf("stack memory was excluded\n");
    return 1;
  }
  for (long S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    for (size_t I = 0; I < NX; ++I)
      Scratch[I] = (double)(State[I % NS] >> 11) * 0x1p-53 + (double)S;
    for (size_t I = 0; I < (1 << 20); ++I)
      GlobalScratch[I] = Scratch[I * 4] * 0.5;
    for (size_t I = 0; I < NS; ++I)
      State[I] = State[I] * 6364136223846793005ull +
                 (uint64_t)(GlobalScratch[I * 8] * 1e6) + Live[I * 4];
    for (size_t I = 0; I < NL; I += 4099)
      Live[I] += State[I % NS];
  }
  uint64_t H = 0;
  for (size_t I = 0; I < NS; ++I)
    H = H * 31 + State[I];
  for (size_t I = 0; I < NL; ++I)
    H = H * 31 + Live[I];
  printf("steps %ld hash %016llx stack %d\n", Steps, (unsigned long long)H,
         OnStack[0]);
  return 0;
}
