; A module without main gets no wrapper; a declared main is left alone.
; RUN: %opt -passes=ccc-entry -S %s | FileCheck %s

declare i32 @main(i32, ptr)
define i32 @f() {
  %r = call i32 @main(i32 0, ptr null)
  ret i32 %r
}
; CHECK-NOT: __ccc_user_main
; CHECK: declare i32 @main(i32, ptr)
