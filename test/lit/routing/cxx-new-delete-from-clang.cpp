// C++ heap calls from clang++'s own output. Every replaceable operator
// new/delete call is left alone: the runtime replaces those operators for
// the whole process (libstdc++ included) at link time, so rewriting them
// here would miss the allocations made inside libstdc++.so. C allocation
// calls, also those in class-specific operators, are routed.
// RUN: %clangxx -O2 -fpass-plugin=%plugin -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clangxx -O0 -fpass-plugin=%plugin -S -emit-llvm %s -o - | FileCheck %s
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

struct alignas(64) Wide {
  double D[8];
};
struct Pooled {
  long V;
  static void *operator new(std::size_t N) { return std::malloc(N); }
  static void operator delete(void *P) { std::free(P); }
};
std::vector<int> *Vec;
int *Arr;
Wide *W;
double *Maybe;
Pooled *Pool;
std::shared_ptr<int> Shared;

void make(int K) {
  Vec = new std::vector<int>(K);
  Vec->push_back(K);
  Arr = new int[K];
  W = new Wide;
  Maybe = new (std::nothrow) double[K];
  Pool = new Pooled;
  Shared = std::make_shared<int>(K);
}
void drop() {
  delete Vec;
  delete[] Arr;
  delete W;
  delete[] Maybe;
  delete Pool;
}
// CHECK-DAG: @_Znwm(
// CHECK-DAG: @_Znam(
// CHECK-DAG: @_ZnwmSt11align_val_t(
// CHECK-DAG: @_ZnamRKSt9nothrow_t(
// CHECK-DAG: @_ZdlPvmSt11align_val_t(
// CHECK-DAG: @_ZdaPv(
// CHECK-DAG: call {{.*}}ptr @__ccc_malloc(
// CHECK-DAG: call void @__ccc_free(
// CHECK-NOT: @malloc(
// CHECK-NOT: @free(
