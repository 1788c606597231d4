// deep_recursion_site.c - proves a checkpoint taken deep inside recursion
// resumes correctly: thousands of frames, each with locals, a VLA and an
// alloca buffer used after the site, and a site at many depths.
#include "ccc.h"

#include <alloca.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long long Visits;

static double walk(int Depth, int Max, double Carry) {
  int N = 4 + Depth % 5;
  double Vla[N]; // VLA on the path to a site
  double *Buf = alloca((Depth % 7 + 1) * sizeof(double));
  for (int I = 0; I < N; ++I)
    Vla[I] = Carry * 0.5 + I + Depth;
  for (int I = 0; I < Depth % 7 + 1; ++I)
    Buf[I] = Vla[I % N] * 0.25;
  ++Visits;
  if (Depth % 16 == 0)
    ccc_checkpoint(); // a site inside the recursion
  double Below = Depth < Max ? walk(Depth + 1, Max, Buf[0] + Vla[N - 1]) : 1.0;
  double Sum = Below;
  for (int I = 0; I < N; ++I)
    Sum += Vla[I] * 1e-6;
  for (int I = 0; I < Depth % 7 + 1; ++I)
    Sum += Buf[I] * 1e-7;
  return Sum * 0.999999 + Depth * 1e-9;
}

int main(int argc, char **argv) {
  long Rounds = argc > 1 ? atol(argv[1]) : 2500;
  double Acc = 0;
  for (long R = 0; R < Rounds; ++R)
    Acc = Acc * 0.5 + walk(0, 3000 + (int)(R % 500), Acc + R);
  printf("acc %a visits %llu\n", Acc, Visits);
  return 0;
}
