/* stack_overread_main.c - a program whose main reads a little past the end
 * of one of its local arrays.
 *
 * The loop that smooths the field is written with its bound in the wrong
 * unit (bytes over the size of a float instead of elements): it reads twice
 * the array, 2 KiB past its end, and discards what it reads there. A bug,
 * but a harmless one in a plain process, where the environment and the
 * auxiliary vector lie above main's frame; ccc runs main on a stack of its
 * own and must leave memory above it for such a program to run as it did.
 *
 * usage: stack_overread_main STEPS
 */
#include <stdio.h>
#include <stdlib.h>

#include "ccc.h"

enum { N = 256 };

int main(int argc, char **argv) {
  long Steps = argc > 1 ? atol(argv[1]) : 1000;
  double Field[N];
  for (int I = 0; I < N; ++I)
    Field[I] = (double)(I % 17);
  for (long S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    volatile double *P = Field;
    double Sink = 0;
    for (size_t I = 0; I < sizeof(Field) / sizeof(float); ++I)
      if (I < N)
        P[I] = 0.5 * P[I] + 0.25 * P[(I + 1) % N] + 0.25 * P[(I + N - 1) % N];
      else
        Sink += P[I]; /* past the end: read, then ignored */
    (void)Sink;
  }
  double Sum = 0;
  for (int I = 0; I < N; ++I)
    Sum += Field[I];
  printf("steps %ld sum %.12e\n", Steps, Sum);
  return 0;
}
