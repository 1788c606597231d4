; Writable globals get a record in section ccc_globals; constants do not.
; RUN: %opt -passes=ccc-globals -S %s | FileCheck %s

@counter = global i64 0
@grid = internal global [100 x double] zeroinitializer  ; never used: never written (flag 2)
@table = constant [4 x i32] [i32 1, i32 2, i32 3, i32 4]
@ext = external global i32

; CHECK-DAG: @__ccc_gr.counter = private global { ptr, i64, ptr, i32, i32 } { ptr @counter, i64 8, ptr @__ccc_gname.counter, i32 0, i32 0 }, section "ccc_globals", align 8
; CHECK-DAG: @__ccc_gr.grid = private global { ptr, i64, ptr, i32, i32 } { ptr @grid, i64 800, ptr @__ccc_gname.grid, i32 2, i32 0 }, section "ccc_globals", align 8
; CHECK-DAG: @llvm.compiler.used = appending global {{.*}} @__ccc_gr.counter{{.*}}@__ccc_gr.grid
; CHECK-NOT: @__ccc_gr.table
; CHECK-NOT: @__ccc_gr.ext
