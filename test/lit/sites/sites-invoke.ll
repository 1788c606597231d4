; A site called with an unwind edge (C++ with cleanups) becomes an invoke of
; the slow path, keeping both edges: every site refers to the slow path,
; which is what links the runtime's main.
; RUN: %opt -passes=ccc-sites -S %s | FileCheck %s

declare i32 @ccc_checkpoint()
declare i32 @ccc_checkpoint_force()
declare i32 @__gxx_personality_v0(...)
declare void @cleanup()

define i32 @f() personality ptr @__gxx_personality_v0 {
entry:
  %a = invoke i32 @ccc_checkpoint() to label %next unwind label %lp
next:
  %b = invoke i32 @ccc_checkpoint_force() to label %done unwind label %lp
done:
  %s = add i32 %a, %b
  ret i32 %s
lp:
  %l = landingpad { ptr, i32 } cleanup
  call void @cleanup()
  resume { ptr, i32 } %l
}
; CHECK-LABEL: define i32 @f()
; CHECK: %[[A:.*]] = invoke i32 @__ccc_checkpoint_slow(i32 0)
; CHECK-NEXT: to label %next unwind label %lp
; CHECK: %[[B:.*]] = invoke i32 @__ccc_checkpoint_slow(i32 1)
; CHECK-NEXT: to label %done unwind label %lp
; CHECK: add i32 %[[A]], %[[B]]
; CHECK-NOT: @ccc_checkpoint
