#include "matrix.h"

#include <ccc.h>
#include <cstdio>
#include <cstdlib>
#include <deque>

int main(int argc, char **argv) {
  int Steps = argc > 1 ? std::atoi(argv[1]) : 400;
  Matrix R(40);
  for (int I = 0; I < 40 * 40; ++I)
    R.A[I] = ((I * 37) % 101) / 1000.0;
  std::deque<Matrix> History;
  Matrix P = R;
  for (int S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    P = P * R;
    double T = P.trace();
    for (double &X : P.A)
      X /= T;
    History.push_back(P);
    if (History.size() > 16)
      History.pop_front();
  }
  double Sum = 0;
  for (const Matrix &M : History)
    Sum += M.trace() + M.A[7];
  std::printf("matrix: %zu kept %.17g\n", History.size(), Sum);
  return 0;
}
