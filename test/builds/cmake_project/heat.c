#include "grid.h"

#include <ccc.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int Steps = argc > 1 ? atoi(argv[1]) : 300;
  Grid *G = gridNew(200);
  for (int S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    gridStep(G, 0.2);
  }
  printf("heat: steps %ld sum %.17g\n", StepsDone, gridSum(G));
  return 0;
}
