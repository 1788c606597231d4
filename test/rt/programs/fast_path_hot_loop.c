// fast_path_hot_loop.c - proves a site in a tight loop, hit tens of millions
// of times, resumes with the loop's registers and locals intact (counters
// and floating-point accumulators that live in registers around the site).
#include "ccc.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  long N = argc > 1 ? atol(argv[1]) : 60000000;
  double *A = malloc(4096 * sizeof(double));
  for (int I = 0; I < 4096; ++I)
    A[I] = 1.0 / (I + 1);
  double S0 = 0, S1 = 1, S2 = 0;
  unsigned long long X = 1;
  long Hits = 0;
  for (long I = 0; I < N; ++I) {
    S0 += A[I & 4095] * (double)(I & 7);
    S1 = S1 * 0.9999999 + A[(I * 7) & 4095];
    X = X * 6364136223846793005ULL + 1442695040888963407ULL;
    if (ccc_checkpoint() != CCC_NONE)
      ++Hits; // a checkpoint was taken or resumed here
    S2 += (double)(X >> 40) * 1e-12;
    A[I & 4095] += 1e-12;
  }
  (void)Hits; // differs between runs; not part of the result
  printf("s0 %a s1 %a s2 %a x %016llx\n", S0, S1, S2, X);
  return 0;
}
