// Uses libwave_pass.so (pass_library.c), built with the pass as the
// program is: every piece of its state lives in the library.
//   usage: pass_library_main STEPS N
#include "pass_library.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 1000;
  int n = argc > 2 ? atoi(argv[2]) : 4096;
  struct wave *w = wave_create(n, "wave.log");
  double sum = 0;
  for (int s = 0; s < steps; ++s)
    sum += wave_step(w);
  printf("energy sum %.12e summary %.12e\n", sum, wave_summary());
  wave_destroy(w);
  return 0;
}
