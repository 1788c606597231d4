#include "stats.h"

static double Mean, M2;
static long N;

void observe(double X) {
  ++N;
  double D = X - Mean;
  Mean += D / N;
  M2 += D * (X - Mean);
  histogramAdd(X);
}
double runningMean(void) { return Mean; }
double runningVar(void) { return N > 1 ? M2 / (N - 1) : 0; }
