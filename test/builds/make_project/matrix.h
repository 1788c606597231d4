#ifndef MATRIX_H
#define MATRIX_H
#include <vector>

struct Matrix {
  explicit Matrix(int N) : N(N), A(N * N) {}
  Matrix operator*(const Matrix &B) const;
  double trace() const;
  int N;
  std::vector<double> A;
};
#endif
