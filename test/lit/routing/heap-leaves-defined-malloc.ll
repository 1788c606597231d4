; A module that defines its own malloc keeps it.
; RUN: %opt -passes=ccc-heap -S %s | FileCheck %s

define ptr @malloc(i64 %n) {
  ret ptr null
}
define ptr @user() {
  %p = call ptr @malloc(i64 4)
  ret ptr %p
}
; CHECK-LABEL: define ptr @user(
; CHECK: call ptr @malloc(i64 4)
; CHECK-NOT: __ccc_malloc
