; Running the whole pass twice changes nothing more than running it once.
; RUN: %opt -passes=ccc -S %s -o %t.once.ll
; RUN: %opt -passes=verify -S %t.once.ll -o %t.reread.ll
; RUN: %opt -passes=ccc -S %t.once.ll -o %t.twice.ll
; RUN: diff %t.reread.ll %t.twice.ll
; RUN: %opt -passes=ccc,ccc -S %s | FileCheck %s

@g = global i32 1
@t = thread_local global i32 2
declare ptr @malloc(i64)
declare i32 @ccc_checkpoint()
define i32 @main() {
  %p = call ptr @malloc(i64 4)
  %r = call i32 @ccc_checkpoint()
  ret i32 %r
}
; CHECK: @__ccc_gr.g = private
; CHECK: @__ccc_gr.t = private
; CHECK-NOT: @__ccc_gr.{{.*}} = private
; CHECK: define i32 @__ccc_user_main(
; CHECK-NOT: define i32 @__ccc_user_main
