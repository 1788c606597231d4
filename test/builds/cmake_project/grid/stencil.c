#include "grid.h"

long StepsDone;
static double Source = 1.0; // decays each step: state of the library

void gridStep(Grid *G, double Alpha) {
  int N = G->N;
  for (int Y = 1; Y < N - 1; ++Y)
    for (int X = 1; X < N - 1; ++X) {
      double *C = &G->U[Y * N + X];
      G->Next[Y * N + X] =
          *C + Alpha * (C[-1] + C[1] + C[-N] + C[N] - 4 * *C);
    }
  G->Next[(N / 2) * N + N / 2] += Source;
  Source *= 0.999;
  double *T = G->U;
  G->U = G->Next;
  G->Next = T;
  ++StepsDone;
}
