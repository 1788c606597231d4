// The program's open/close calls go to the runtime, which tracks its open
// files; a module using file streams defines a weak fopen64 that hands
// libstdc++'s calls to the runtime with the caller's address.
// RUN: %clangxx -O2 -fpass-plugin=%plugin -S -emit-llvm %s -o - | FileCheck %s
#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <unistd.h>
int files(const char *P) {
  int Fd = open(P, O_RDONLY);
  FILE *F = fdopen(dup(Fd), "r");
  int C = fgetc(F);
  fclose(F);
  close(Fd);
  std::ofstream O(P);
  O << C;
  return C;
}
// CHECK-DAG: call {{.*}}@__ccc_open(
// CHECK-DAG: call {{.*}}@__ccc_dup(
// CHECK-DAG: call {{.*}}@__ccc_fdopen(
// CHECK-DAG: call {{.*}}@__ccc_fclose(
// CHECK-DAG: call {{.*}}@__ccc_close(
// CHECK-DAG: define weak {{.*}}ptr @fopen64(ptr {{.*}}%0, ptr {{.*}}%1)
// CHECK-DAG: call ptr @llvm.returnaddress(i32 0)
// CHECK-DAG: call {{.*}}ptr @__ccc_cxx_fopen64(ptr {{.*}}%0, ptr {{.*}}%1, ptr
// CHECK-NOT: call {{.*}} @open(
// CHECK-NOT: call {{.*}} @fclose(
