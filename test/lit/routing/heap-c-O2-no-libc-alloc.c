// At -O2 through -fpass-plugin, no libc allocation call survives.
// RUN: %clang -O2 -fpass-plugin=%plugin -S -emit-llvm %s -o - | FileCheck %s
#include <stdlib.h>
#include <string.h>
char *dup(const char *S) { return strdup(S); }
double *grow(double *P, size_t N) { return realloc(P, N * sizeof *P); }
void *zeroed(size_t N) {
  void *P = malloc(N);
  memset(P, 0, N);
  return P;
}
void drop(void *P) { free(P); }
// CHECK: call {{.*}}@__ccc_strdup(
// CHECK: call {{.*}}@__ccc_realloc(
// CHECK: call {{.*}}@__ccc_malloc(
// CHECK: call void @__ccc_free(
// CHECK-NOT: @malloc(
// CHECK-NOT: @calloc(
// CHECK-NOT: @free(
