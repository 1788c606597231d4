; Fortran's `call ccc_checkpoint()` (ccc_checkpoint_, no result) is a site.
; RUN: %opt -passes=ccc-sites -S %s | FileCheck %s

declare void @ccc_checkpoint_()
declare void @ccc_checkpoint_force_()
define void @_QQmain() {
  call void @ccc_checkpoint_()
  call void @ccc_checkpoint_force_()
  ret void
}
; CHECK-LABEL: define void @_QQmain(
; CHECK: load volatile i32, ptr @__ccc_pending
; CHECK: notail call i32 @__ccc_checkpoint_slow(i32 0)
; CHECK: notail call i32 @__ccc_checkpoint_slow(i32 1)
; CHECK-NOT: call void @ccc_checkpoint
