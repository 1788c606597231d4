; ccc-descriptor-liveness: a range that depends on a value of the loop
; around the site is not recomputed there. The nest after the site (a trip
; later: the site ends the iteration) writes a(k .. k+1023) with k a value
; the loop carries (0, 5, 0, 5, ...: not an induction variable), another
; one than at the site; taking k from the site would leave out the wrong
; bytes, so nothing is marked for a. The same nest writes b from a fixed
; start: marked.
; RUN: %opt -passes=ccc-descriptor-liveness -S %s \
; RUN:   | FileCheck %s --implicit-check-not='(module m)'

%box = type { ptr, i64, i32, i8, i8, i8, i8, [1 x [3 x i64]] }
@_QMmEa = global %box zeroinitializer
@_QMmEb = global %box zeroinitializer

declare i32 @__ccc_checkpoint_slow(i32)

; CHECK: c"b (module m)\00"
; CHECK-LABEL: define void @_QQmain(
; CHECK: %[[B:ccc.desc.addr[0-9]*]] = load ptr, ptr @_QMmEb
; CHECK: %[[AT:.*]] = getelementptr i8, ptr %[[B]]
; CHECK: call void @__ccc_dead_at_site(ptr %[[AT]], i64 %{{.*}}, ptr @ccc.desc)
; CHECK-NEXT: call i32 @__ccc_checkpoint_slow(
define void @_QQmain() {
entry:
  br label %step

step:
  %k = phi i64 [ 0, %entry ], [ %k1, %step.end ]
  %n = phi i64 [ 0, %entry ], [ %n1, %step.end ]
  %a = load ptr, ptr @_QMmEa
  %b = load ptr, ptr @_QMmEb
  br label %fill

fill:
  %i = phi i64 [ 0, %step ], [ %i1, %fill ]
  %ia = add i64 %i, %k
  %pa = getelementptr double, ptr %a, i64 %ia
  store double 0.0, ptr %pa
  %pb = getelementptr double, ptr %b, i64 %i
  store double 1.0, ptr %pb
  %i1 = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i1, 1024
  br i1 %done, label %use, label %fill

use:
  %va = load double, ptr %a
  %vb = load double, ptr %b
  %r = call i32 @__ccc_checkpoint_slow(i32 0)
  br label %step.end

step.end:
  %k1 = xor i64 %k, 5
  %n1 = add nuw nsw i64 %n, 1
  %more = icmp ult i64 %n1, 100
  br i1 %more, label %step, label %exit

exit:
  ret void
}
