; Locals of the site's function (4 KiB or more) are dead at a site like
; heap objects: every path from the site overwrites them whole before any
; read. They are marked only where they own their stack slot: no lifetime
; markers, or one lifetime.start dominating the site and no lifetime.end
; that reaches it (stack coloring may share the slot of a local outside its
; lifetime with a live one). Nothing is marked for a local read first, one
; whose lifetime starts and ends in the loop, one whose address escapes,
; or one under 4 KiB.
; RUN: %opt -passes=ccc-heap-liveness -S %s | FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare i32 @__ccc_checkpoint_slow(i32)
declare void @use(double)
declare void @keep(ptr)
declare void @llvm.lifetime.start.p0(i64, ptr)
declare void @llvm.lifetime.end.p0(i64, ptr)

; CHECK: @ccc.alloc = {{.*}} c"scratch in no_markers\00"
; CHECK: @ccc.alloc.1 = {{.*}} c"scratch in lifetime_whole_call\00"

; CHECK-LABEL: define void @no_markers(
; CHECK:       step:
; CHECK-NEXT:  phi
; CHECK-NEXT:  %[[AT:.*]] = getelementptr i8, ptr %scratch, i64 0
; CHECK-NEXT:  call void @__ccc_dead_at_site(ptr %[[AT]], i64 8192, ptr @ccc.alloc)
; CHECK-NEXT:  call i32 @__ccc_checkpoint_slow(i32 0)
define void @no_markers(i64 %steps) {
entry:
  %scratch = alloca [1024 x double]
  br label %step
step:
  %k = phi i64 [ 0, %entry ], [ %k.next, %use ]
  %r = call i32 @__ccc_checkpoint_slow(i32 0)
  br label %fill
fill:
  %i = phi i64 [ 0, %step ], [ %i.next, %fill ]
  %p = getelementptr double, ptr %scratch, i64 %i
  store double 1.0, ptr %p
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, 1024
  br i1 %done, label %use, label %fill
use:
  %v = load double, ptr %scratch
  call void @use(double %v)
  %k.next = add i64 %k, 1
  %kd = icmp eq i64 %k.next, %steps
  br i1 %kd, label %exit, label %step
exit:
  ret void
}

; CHECK-LABEL: define void @lifetime_whole_call(
; CHECK:       call void @__ccc_dead_at_site(ptr %{{.*}}, i64 8192, ptr @ccc.alloc.1)
define void @lifetime_whole_call(i64 %steps) {
entry:
  %scratch = alloca [1024 x double]
  call void @llvm.lifetime.start.p0(i64 8192, ptr %scratch)
  br label %step
step:
  %k = phi i64 [ 0, %entry ], [ %k.next, %step ]
  %r = call i32 @__ccc_checkpoint_slow(i32 0)
  call void @llvm.memset.p0.i64(ptr %scratch, i8 0, i64 8192, i1 false)
  %v = load double, ptr %scratch
  call void @use(double %v)
  %k.next = add i64 %k, 1
  %kd = icmp eq i64 %k.next, %steps
  br i1 %kd, label %exit, label %step
exit:
  call void @llvm.lifetime.end.p0(i64 8192, ptr %scratch)
  ret void
}
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

; CHECK-LABEL: define void @not_dead(
; CHECK-NOT:   @__ccc_dead_at_site
; CHECK:       ret void
define void @not_dead(i64 %steps) {
entry:
  %readfirst = alloca [1024 x double]
  %inloop = alloca [1024 x double]
  %escapes = alloca [1024 x double]
  %small = alloca [256 x double]
  call void @keep(ptr %escapes)
  br label %step
step:
  %k = phi i64 [ 0, %entry ], [ %k.next, %step ]
  %r = call i32 @__ccc_checkpoint_slow(i32 0)
  ; Read before it is overwritten.
  %v1 = load double, ptr %readfirst
  call void @use(double %v1)
  call void @llvm.memset.p0.i64(ptr %readfirst, i8 0, i64 8192, i1 false)
  ; Its lifetime starts after the site and ends before the next one.
  call void @llvm.lifetime.start.p0(i64 8192, ptr %inloop)
  call void @llvm.memset.p0.i64(ptr %inloop, i8 0, i64 8192, i1 false)
  %v2 = load double, ptr %inloop
  call void @use(double %v2)
  call void @llvm.lifetime.end.p0(i64 8192, ptr %inloop)
  ; Its address went to other code.
  call void @llvm.memset.p0.i64(ptr %escapes, i8 0, i64 8192, i1 false)
  %v3 = load double, ptr %escapes
  call void @use(double %v3)
  ; 2 KiB.
  call void @llvm.memset.p0.i64(ptr %small, i8 0, i64 2048, i1 false)
  %v4 = load double, ptr %small
  call void @use(double %v4)
  %k.next = add i64 %k, 1
  %kd = icmp eq i64 %k.next, %steps
  br i1 %kd, label %exit, label %step
exit:
  ret void
}
