// main.c - compiled with the ccc pass; plain_object.c is not (or is, in the
// all-instrumented build), so its globals are not described to ccc.
#include "ccc.h"

#include <stdio.h>

void bump(void);
long total(void);

int main(void) {
  for (int I = 0; I < 100; ++I) {
    ccc_checkpoint_force();
    bump();
  }
  printf("total %ld\n", total());
  return 0;
}
