// clang -fpass-plugin runs the pass at every -O level (at -O0 functions are
// optnone, so the passes must be required).
// RUN: %clang -O0 -fpass-plugin=%plugin -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -O1 -fpass-plugin=%plugin -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -O2 -fpass-plugin=%plugin -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -O3 -fpass-plugin=%plugin -S -emit-llvm %s -o - | FileCheck %s
#include "ccc.h"
int Steps;
int main(void) {
  for (int I = 0; I < 10; ++I) {
    ccc_checkpoint();
    ++Steps;
  }
  return Steps;
}
// CHECK-DAG: @__ccc_gr.Steps = private global {{.*}} section "ccc_globals"
// CHECK-DAG: define {{.*}}i32 @__ccc_user_main(
// CHECK-DAG: load volatile i32, ptr @__ccc_pending
// CHECK-DAG: define weak {{.*}}i32 @main(
// CHECK-NOT: define {{(dso_local )?}}i32 @main(
