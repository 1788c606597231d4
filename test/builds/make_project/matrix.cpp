#include "matrix.h"

Matrix Matrix::operator*(const Matrix &B) const {
  Matrix C(N);
  for (int I = 0; I < N; ++I)
    for (int K = 0; K < N; ++K)
      for (int J = 0; J < N; ++J)
        C.A[I * N + J] += A[I * N + K] * B.A[K * N + J];
  return C;
}

double Matrix::trace() const {
  double T = 0;
  for (int I = 0; I < N; ++I)
    T += A[I * N + I];
  return T;
}
