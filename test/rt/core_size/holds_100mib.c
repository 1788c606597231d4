// holds_100mib.c - holds about 100 MiB of heap data, takes one checkpoint,
// then says "ready" and waits to be core-dumped and killed. Run again, it
// restarts from that checkpoint and says "ready" once more.
#include "ccc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void) {
  size_t N = (size_t)100 << 20;
  unsigned char *Data = malloc(N);
  uint32_t X = 2463534242u;
  for (size_t I = 0; I < N; ++I) { // incompressible, so nothing is elided
    X ^= X << 13, X ^= X >> 17, X ^= X << 5;
    Data[I] = (unsigned char)X;
  }
  int R = ccc_checkpoint_force();
  printf("ready %s %u\n", R == CCC_RESTARTED ? "restarted" : "first",
         (unsigned)Data[N / 2]);
  fflush(stdout);
  for (;;)
    pause();
}
