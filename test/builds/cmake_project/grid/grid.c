#include "grid.h"

#include <math.h>
#include <stdlib.h>

Grid *gridNew(int N) {
  Grid *G = malloc(sizeof(Grid));
  G->N = N;
  G->U = calloc((size_t)N * N, sizeof(double));
  G->Next = calloc((size_t)N * N, sizeof(double));
  for (int I = 0; I < N * N; ++I)
    G->U[I] = sin(I * 0.01);
  return G;
}

double gridSum(const Grid *G) {
  double S = 0;
  for (int I = 0; I < G->N * G->N; ++I)
    S += G->U[I] * (1 + I % 7);
  return S;
}
