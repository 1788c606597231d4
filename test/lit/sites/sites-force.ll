; ccc_checkpoint_force() calls the slow path with CCC_SITE_FORCE (1).
; RUN: %opt -passes=ccc-sites -S %s | FileCheck %s

declare i32 @ccc_checkpoint_force()
define i32 @f() {
  %r = call i32 @ccc_checkpoint_force()
  ret i32 %r
}
; CHECK-LABEL: define i32 @f(
; CHECK-NEXT: %1 = notail call i32 @__ccc_checkpoint_slow(i32 1)
; CHECK-NEXT: ret i32 %1
