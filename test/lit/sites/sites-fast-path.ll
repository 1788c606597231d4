; ccc_checkpoint() becomes a volatile load of __ccc_pending and an unlikely
; branch to the slow path; its result is a phi.
; RUN: %opt -passes=ccc-sites -S %s | FileCheck %s

declare i32 @ccc_checkpoint()
define i32 @loop() {
  %r = call i32 @ccc_checkpoint()
  ret i32 %r
}
; CHECK-LABEL: define i32 @loop(
; CHECK: %ccc.pending = load volatile i32, ptr @__ccc_pending
; CHECK-NEXT: %ccc.due = icmp ne i32 %ccc.pending, 0
; CHECK-NEXT: br i1 %ccc.due, label %ccc.slow, label %{{.*}}, !prof
; CHECK: ccc.slow:
; CHECK-NEXT: %{{.*}} = notail call i32 @__ccc_checkpoint_slow(i32 0)
; CHECK: %ccc.result = phi i32 [ 0, %{{.*}} ], [ %{{.*}}, %ccc.slow ]
; CHECK-NEXT: ret i32 %ccc.result
; CHECK-NOT: call i32 @ccc_checkpoint()
