; main(void) returning void: the wrapper passes nothing and returns 0.
; RUN: %opt -passes=ccc-entry -S %s | FileCheck %s

define void @main() {
  ret void
}
; CHECK-LABEL: define i32 @__ccc_user_main(
; CHECK-NEXT: entry:
; CHECK-NEXT: call void @__ccc_main_orig()
; CHECK-NEXT: ret i32 0
