; Every heap function of the module goes to the runtime's version.
; RUN: %opt -passes=ccc-heap -S %s | FileCheck %s

declare ptr @malloc(i64)
declare ptr @calloc(i64, i64)
declare ptr @realloc(ptr, i64)
declare void @free(ptr)
declare ptr @strdup(ptr)
declare i32 @posix_memalign(ptr, i64, i64)
declare i64 @getline(ptr, ptr, ptr)

define void @use(ptr %s, ptr %pp, ptr %n, ptr %f) {
  %a = call ptr @malloc(i64 8)
  %b = call ptr @calloc(i64 2, i64 8)
  %c = call ptr @realloc(ptr %a, i64 16)
  %d = call ptr @strdup(ptr %s)
  %e = call i32 @posix_memalign(ptr %pp, i64 64, i64 100)
  %g = call i64 @getline(ptr %pp, ptr %n, ptr %f)
  call void @free(ptr %c)
  ret void
}
; CHECK-LABEL: define void @use(
; CHECK: call ptr @__ccc_malloc(i64 8)
; CHECK: call ptr @__ccc_calloc(i64 2, i64 8)
; CHECK: call ptr @__ccc_realloc(
; CHECK: call ptr @__ccc_strdup(
; CHECK: call i32 @__ccc_posix_memalign(
; CHECK: call i64 @__ccc_getline(
; CHECK: call void @__ccc_free(
; CHECK-NOT: @malloc(
; CHECK-NOT: @free(
