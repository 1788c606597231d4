; `use ccc` calls: the subroutines bind to the C names, the status functions
; to ccc_checkpoint_status / ccc_checkpoint_force_status; all are sites and
; the status reaches the caller.
; RUN: %opt -passes=ccc-sites -S %s | FileCheck %s

declare void @ccc_checkpoint()
declare i32 @ccc_checkpoint_status()
declare i32 @ccc_checkpoint_force_status()
define i32 @_QQmain() {
  call void @ccc_checkpoint()
  %a = call i32 @ccc_checkpoint_status()
  %b = call i32 @ccc_checkpoint_force_status()
  %s = add i32 %a, %b
  ret i32 %s
}
; CHECK-LABEL: define i32 @_QQmain(
; CHECK: load volatile i32, ptr @__ccc_pending
; CHECK: notail call i32 @__ccc_checkpoint_slow(i32 0)
; CHECK: %[[A:.*]] = phi i32
; CHECK: notail call i32 @__ccc_checkpoint_slow(i32 0)
; CHECK: %[[B:.*]] = notail call i32 @__ccc_checkpoint_slow(i32 1)
; CHECK: add i32 %{{.*}}, %[[B]]
; CHECK-NOT: call {{.*}}@ccc_checkpoint
