// forced_checkpoints.c - a small program with checkpoints at known steps
// (10, 20, 30, 40), so the bad-input tests know which versions exist.
// Built twice: as is, and with -DREBUILT (different code, other build id).
#include "ccc.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static double Total;

int main(void) {
  double *V = malloc(100000 * sizeof(double));
  for (int I = 0; I < 100000; ++I)
    V[I] = I * 0.5;
  for (int Step = 1; Step <= 50; ++Step) {
    for (int I = 0; I < 100000; ++I)
      V[I] = V[I] * 0.999 + Step;
    Total += V[Step * 997 % 100000];
#ifdef REBUILT
    Total += 1e-300;
#endif
    if (Step % 10 == 0)
      ccc_checkpoint_force();
    usleep(20000);
  }
  printf("total %.17g\n", Total);
  free(V);
  return 0;
}
