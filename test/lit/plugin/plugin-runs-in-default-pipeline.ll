; With the plugin loaded, opt's default<O2> pipeline runs it at
; PipelineStart (the -fpass-plugin path).
; RUN: %opt -passes='default<O2>' -S %s | FileCheck %s

@g = global i32 0
define i32 @main() {
  store i32 1, ptr @g
  ret i32 0
}
; CHECK: @__ccc_gr.g = private global
; CHECK: define {{.*}}i32 @__ccc_user_main(
