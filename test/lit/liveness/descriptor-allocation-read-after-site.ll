; ccc-descriptor-liveness: an allocation stored in a descriptor is the
; array too. Here the program reads it after the site through the
; allocation's own value (as an optimizer may forward the stored address)
; before a nest rewrites it through a load of the descriptor: the read
; keeps it live, so nothing is marked for a. b, read only after its
; rewrite, is marked.
; RUN: %opt -passes=ccc-descriptor-liveness -S %s \
; RUN:   | FileCheck %s --implicit-check-not='(module m)'

%box = type { ptr, i64, i32, i8, i8, i8, i8, [1 x [3 x i64]] }
@_QMmEa = global %box zeroinitializer
@_QMmEb = global %box zeroinitializer

declare ptr @__ccc_malloc(i64)
declare i32 @__ccc_checkpoint_slow(i32)

; CHECK: c"b (module m)\00"
; CHECK-LABEL: define void @_QQmain(
; CHECK: %[[B:ccc.desc.addr[0-9]*]] = load ptr, ptr @_QMmEb
; CHECK: %[[AT:.*]] = getelementptr i8, ptr %[[B]]
; CHECK: call void @__ccc_dead_at_site(ptr %[[AT]], i64 %{{.*}}, ptr @ccc.desc)
; CHECK-NEXT: call i32 @__ccc_checkpoint_slow(
define void @_QQmain() {
entry:
  %ma = call ptr @__ccc_malloc(i64 8192)
  store ptr %ma, ptr @_QMmEa
  %mb = call ptr @__ccc_malloc(i64 8192)
  store ptr %mb, ptr @_QMmEb
  br label %step

step:
  %n = phi i64 [ 0, %entry ], [ %n1, %use ]
  %r = call i32 @__ccc_checkpoint_slow(i32 0)
  %old = load double, ptr %ma
  %a = load ptr, ptr @_QMmEa
  %b = load ptr, ptr @_QMmEb
  br label %fill

fill:
  %i = phi i64 [ 0, %step ], [ %i1, %fill ]
  %pa = getelementptr double, ptr %a, i64 %i
  store double %old, ptr %pa
  %pb = getelementptr double, ptr %b, i64 %i
  store double 1.0, ptr %pb
  %i1 = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i1, 1024
  br i1 %done, label %use, label %fill

use:
  %va = load double, ptr %a
  %vb = load double, ptr %b
  %n1 = add nuw nsw i64 %n, 1
  %more = icmp ult i64 %n1, 100
  br i1 %more, label %step, label %exit

exit:
  ret void
}
