#include "stats.h"

#include <ccc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  long Steps = argc > 1 ? atol(argv[1]) : 20000;
  unsigned long Rng = 2463534242UL;
  for (long S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    for (int K = 0; K < 200; ++K) {
      Rng ^= Rng << 13, Rng ^= Rng >> 7, Rng ^= Rng << 17;
      observe(sqrt((double)(Rng % 1000000) / 1000) * (1 + S % 3));
    }
  }
  printf("stats: mean %.17g var %.17g hist %lu\n", runningMean(), runningVar(),
         histogramDigest());
  return 0;
}
