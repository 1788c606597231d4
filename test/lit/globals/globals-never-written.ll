; Liveness without flow analysis: a global of this module whose address is
; only loaded from, compared, or copied from is never written after
; initialisation; its record carries CCC_GLOBAL_NEVER_WRITTEN (2) and images
; leave it out. Anything else reaching the address counts as a write: saved
; (0), unless the flow analysis finds the written value is never read (4,
; globals-dead-at-sites.ll).
; RUN: %opt -passes=ccc-globals -S %s | FileCheck %s

@loaded = internal global [4 x double] [double 1.0, double 2.0, double 3.0, double 4.0]
@gep_constexpr = internal global [8 x i32] [i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8]
@memcpy_src = internal global [16 x i8] c"0123456789abcdef"
@compared = internal global i32 7
@stored = internal global i32 0
@escapes_to_call = internal global i32 0
@memcpy_dst = internal global [16 x i8] zeroinitializer
@address_stored = internal global i32 0
@in_initializer = internal global i32 0
@holder = internal global ptr @in_initializer
@visible = global i32 5
@through_phi = internal global i32 0
@in_section = internal global i32 3, section "mydata"

; CHECK-DAG: @__ccc_gr.loaded = {{.*}} ptr @__ccc_gname.loaded, i32 2,
; CHECK-DAG: @__ccc_gr.gep_constexpr = {{.*}} ptr @__ccc_gname.gep_constexpr, i32 2,
; CHECK-DAG: @__ccc_gr.memcpy_src = {{.*}} ptr @__ccc_gname.memcpy_src, i32 2,
; CHECK-DAG: @__ccc_gr.compared = {{.*}} ptr @__ccc_gname.compared, i32 2,
; CHECK-DAG: @__ccc_gr.stored = {{.*}} ptr @__ccc_gname.stored, i32 4,
; CHECK-DAG: @__ccc_gr.escapes_to_call = {{.*}} ptr @__ccc_gname.escapes_to_call, i32 0,
; CHECK-DAG: @__ccc_gr.memcpy_dst = {{.*}} ptr @__ccc_gname.memcpy_dst, i32 4,
; CHECK-DAG: @__ccc_gr.address_stored = {{.*}} ptr @__ccc_gname.address_stored, i32 0,
; CHECK-DAG: @__ccc_gr.in_initializer = {{.*}} ptr @__ccc_gname.in_initializer, i32 0,
; CHECK-DAG: @__ccc_gr.visible = {{.*}} ptr @__ccc_gname.visible, i32 0,
; CHECK-DAG: @__ccc_gr.through_phi = {{.*}} ptr @__ccc_gname.through_phi, i32 0,
; CHECK-DAG: @__ccc_gr.in_section = {{.*}} ptr @__ccc_gname.in_section, i32 0,

declare void @use(ptr)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define double @f(i64 %i, ptr %out, i1 %c) {
  %p = getelementptr [4 x double], ptr @loaded, i64 0, i64 %i
  %v = load double, ptr %p
  %w = load i32, ptr getelementptr ([8 x i32], ptr @gep_constexpr, i64 0, i64 3)
  call void @llvm.memcpy.p0.p0.i64(ptr %out, ptr @memcpy_src, i64 16, i1 false)
  %eq = icmp eq ptr %out, @compared
  store i32 %w, ptr @stored
  call void @use(ptr @escapes_to_call)
  call void @llvm.memcpy.p0.p0.i64(ptr @memcpy_dst, ptr %out, i64 16, i1 false)
  store ptr @address_stored, ptr %out
  %x = load i32, ptr @visible
  br i1 %c, label %a, label %b
a:
  br label %b
b:
  %q = phi ptr [ @through_phi, %a ], [ %out, %0 ]
  store i32 1, ptr %q
  %s = load i32, ptr @in_section
  ret double %v
}
