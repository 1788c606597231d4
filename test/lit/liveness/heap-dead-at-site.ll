; Heap liveness per site: an allocation of this function whose address goes
; nowhere else, overwritten whole (by a loop nest whose extent scalar
; evolution computes, here %n elements of malloc(%n * 8)) before any read
; on every path from the site, gets __ccc_dead_at_site(ptr, bytes) right
; before the site; with the overwrite under a loop guard, the bytes are 0
; unless the guard holds at the site. Every other allocation gets nothing.
; RUN: %opt -passes=ccc-heap-liveness -S %s | FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare ptr @__ccc_malloc(i64)
declare ptr @__ccc_calloc(i64, i64)
declare void @__ccc_free(ptr)
declare i32 @__ccc_checkpoint_slow(i32)
declare void @use(ptr)

; The allocation's place, for `ckpt info` (no debug information here).
; CHECK: @ccc.alloc = {{.*}} c"scratch_filled_each_step\00"
; CHECK-LABEL: define void @scratch_filled_each_step(
; CHECK:       %[[BYTES:.*]] = shl nuw nsw i64 %n, 3
; CHECK:       %[[W:.*]] = call ptr @__ccc_malloc(i64 %[[BYTES]])
; CHECK:       %[[S:.*]] = call ptr @__ccc_malloc(i64 %[[BYTES]])
; CHECK:       step:
; CHECK-NEXT:  phi
; CHECK-NEXT:  call void @__ccc_dead_at_site(ptr %[[W]], i64 %[[BYTES]], ptr @ccc.alloc)
; CHECK-NEXT:  call i32 @__ccc_checkpoint_slow(i32 0)
; CHECK-NOT:   __ccc_dead_at_site
; CHECK:       ret void
define void @scratch_filled_each_step(i64 %n, i64 %steps) {
entry:
  %bytes = shl nuw nsw i64 %n, 3
  %w = call ptr @__ccc_malloc(i64 %bytes)      ; dead: filled before read
  %s = call ptr @__ccc_malloc(i64 %bytes)      ; live: read before written
  %pos = icmp sgt i64 %n, 0
  call void @llvm.assume(i1 %pos)
  br label %step
step:
  %t = phi i64 [ 0, %entry ], [ %t.next, %sum.done ]
  %r = call i32 @__ccc_checkpoint_slow(i32 0)
  br label %fill
fill:
  %i = phi i64 [ 0, %step ], [ %i.next, %fill ]
  %p = getelementptr inbounds double, ptr %w, i64 %i
  %x = sitofp i64 %i to double
  store double %x, ptr %p
  %i.next = add nuw nsw i64 %i, 1
  %fd = icmp eq i64 %i.next, %n
  br i1 %fd, label %sum, label %fill
sum:
  %j = phi i64 [ 0, %fill ], [ %j.next, %sum ]
  %q = getelementptr inbounds double, ptr %w, i64 %j
  %v = load double, ptr %q
  %sp = getelementptr inbounds double, ptr %s, i64 %j
  %old = load double, ptr %sp
  %new = fadd double %old, %v
  store double %new, ptr %sp
  %j.next = add nuw nsw i64 %j, 1
  %sd = icmp eq i64 %j.next, %n
  br i1 %sd, label %sum.done, label %sum
sum.done:
  %t.next = add i64 %t, 1
  %td = icmp eq i64 %t.next, %steps
  br i1 %td, label %exit, label %step
exit:
  ret void
}

; A rotated loop behind its guard: dead only if %n > 0 at the site.
; CHECK-LABEL: define void @guarded_fill(
; CHECK:       %[[B:.*]] = mul i64 %n, 8
; CHECK:       %[[W:.*]] = call ptr @__ccc_malloc(i64 %[[B]])
; CHECK:       %[[G:.*]] = icmp sgt i64 %n, 0
; CHECK-NEXT:  %[[L:.*]] = select i1 %[[G]], i64 %[[B]], i64 0
; CHECK-NEXT:  call void @__ccc_dead_at_site(ptr %[[W]], i64 %[[L]], ptr @ccc.alloc.1)
; CHECK-NEXT:  call i32 @__ccc_checkpoint_slow(i32 1)
define void @guarded_fill(i64 %n) {
entry:
  %b = mul i64 %n, 8
  %w = call ptr @__ccc_malloc(i64 %b)
  %r = call i32 @__ccc_checkpoint_slow(i32 1)
  %g = icmp sgt i64 %n, 0
  br i1 %g, label %ph, label %after
ph:
  br label %fill
fill:
  %i = phi i64 [ 0, %ph ], [ %i.next, %fill ]
  %p = getelementptr inbounds double, ptr %w, i64 %i
  store double 1.0, ptr %p
  %i.next = add nuw nsw i64 %i, 1
  %fd = icmp eq i64 %i.next, %n
  br i1 %fd, label %after, label %fill
after:
  %v = load double, ptr %w
  ret void
}

; A memset under a guard (what loop-idiom makes of a fill loop).
; CHECK-LABEL: define void @guarded_memset(
; CHECK:       %[[W:.*]] = call ptr @__ccc_malloc(i64 %b)
; CHECK:       %[[G:.*]] = icmp sgt i64 %n, 0
; CHECK-NEXT:  %[[L:.*]] = select i1 %[[G]], i64 %b, i64 0
; CHECK-NEXT:  call void @__ccc_dead_at_site(ptr %[[W]], i64 %[[L]], ptr @ccc.alloc.2)
define void @guarded_memset(i64 %n) {
entry:
  %b = shl nuw nsw i64 %n, 3
  %w = call ptr @__ccc_malloc(i64 %b)
  %r = call i32 @__ccc_checkpoint_slow(i32 1)
  %g = icmp sgt i64 %n, 0
  br i1 %g, label %fill, label %after
fill:
  call void @llvm.memset.p0.i64(ptr %w, i8 -1, i64 %b, i1 false)
  br label %after
after:
  %v = load double, ptr %w
  ret void
}

; The same under setjmp (control may come back along no edge): nothing.
; CHECK-LABEL: define void @memset_with_setjmp(
; CHECK-NOT:   __ccc_dead_at_site
; CHECK:       ret void
define void @memset_with_setjmp(i64 %n, ptr %env) {
entry:
  %b = shl nuw nsw i64 %n, 3
  %w = call ptr @__ccc_malloc(i64 %b)
  %j = call i32 @setjmp(ptr %env) returns_twice
  %r = call i32 @__ccc_checkpoint_slow(i32 1)
  call void @llvm.memset.p0.i64(ptr %w, i8 -1, i64 %b, i1 false)
  %v = load double, ptr %w
  ret void
}

; Passed, after the overwrite, to a leaf function that does not capture it
; (it calls only intrinsics): still dead. Passed to one that calls an
; external function (which might free it or take a checkpoint), or that may
; capture it: not analysed.
; CHECK-LABEL: define void @passed_to_calls(
; CHECK:       %[[A:.*]] = call ptr @__ccc_malloc(i64 %b)
; CHECK:       call void @__ccc_dead_at_site(ptr %[[A]], i64 %b, ptr @ccc.alloc.3)
; CHECK-NOT:   __ccc_dead_at_site
; CHECK:       ret void
define void @passed_to_calls(i64 %n) {
entry:
  %b = shl nuw nsw i64 %n, 3
  %leaf = call ptr @__ccc_malloc(i64 %b)
  %nonleaf = call ptr @__ccc_malloc(i64 %b)
  %captured = call ptr @__ccc_malloc(i64 %b)
  %r = call i32 @__ccc_checkpoint_slow(i32 1)
  call void @llvm.memset.p0.i64(ptr %leaf, i8 0, i64 %b, i1 false)
  call void @llvm.memset.p0.i64(ptr %nonleaf, i8 0, i64 %b, i1 false)
  call void @llvm.memset.p0.i64(ptr %captured, i8 0, i64 %b, i1 false)
  call void @scale(ptr %leaf, i64 %n)
  call void @scale_and_report(ptr %nonleaf, i64 %n)
  call void @scale_may_capture(ptr %captured, i64 %n)
  ret void
}

define internal void @scale(ptr nocapture %p, i64 %n) {
  %v = load double, ptr %p
  %w = fmul double %v, 2.0
  store double %w, ptr %p
  ret void
}

define internal void @scale_and_report(ptr nocapture %p, i64 %n) {
  %v = load double, ptr %p
  call void @use(ptr null)
  ret void
}

define internal void @scale_may_capture(ptr %p, i64 %n) {
  %v = load double, ptr %p
  ret void
}

; Not dead whole: one element short (only the n - 1 elements its loop
; writes are left out, a range); passed to a call; freed before the site
; (its memory may hold another object): nothing of these two is marked.
; (Pointers swapped through phis: heap-dead-at-site-swapped.ll; ranges
; written by copies and transposes: heap-dead-at-site-ranges.ll.)
; CHECK-LABEL: define void @not_dead(
; CHECK:       %[[SHORT:.*]] = add i64 %b, -8
; CHECK:       loop:
; CHECK-NEXT:  phi
; CHECK-NEXT:  %[[AT:.*]] = getelementptr i8, ptr %short, i64 0
; CHECK-NEXT:  call void @__ccc_dead_at_site(ptr %[[AT]], i64 %[[SHORT]],
; CHECK-NEXT:  call i32 @__ccc_checkpoint_slow(i32 0)
; CHECK-NOT:   __ccc_dead_at_site
; CHECK:       ret void
define void @not_dead(i64 %n, i1 %c) {
entry:
  %pos = icmp sgt i64 %n, 1
  call void @llvm.assume(i1 %pos)
  %b = shl nuw nsw i64 %n, 3
  %short = call ptr @__ccc_malloc(i64 %b)
  %esc = call ptr @__ccc_malloc(i64 %b)
  %freed = call ptr @__ccc_malloc(i64 %b)
  call void @use(ptr %esc)
  call void @__ccc_free(ptr %freed)
  br label %loop
loop:
  %k = phi i64 [ 0, %entry ], [ %k.next, %loop.end ]
  %r = call i32 @__ccc_checkpoint_slow(i32 0)
  %m = add nsw i64 %n, -1
  br label %fill
fill:
  %i = phi i64 [ 0, %loop ], [ %i.next, %fill ]
  %pe = getelementptr inbounds double, ptr %esc, i64 %i
  store double 1.0, ptr %pe
  %pf = getelementptr inbounds double, ptr %freed, i64 %i
  store double 1.0, ptr %pf
  %i.next = add nuw nsw i64 %i, 1
  %fd = icmp eq i64 %i.next, %n
  br i1 %fd, label %fill.short, label %fill
fill.short:
  %h = phi i64 [ 0, %fill ], [ %h.next, %fill.short ]
  %p = getelementptr inbounds double, ptr %short, i64 %h
  store double 1.0, ptr %p
  %h.next = add nuw nsw i64 %h, 1
  %hd = icmp eq i64 %h.next, %m
  br i1 %hd, label %loop.end, label %fill.short
loop.end:
  %v1 = load double, ptr %short
  %v2 = load double, ptr %esc
  %v3 = load double, ptr %freed
  %k.next = add i64 %k, 1
  %kd = icmp eq i64 %k.next, 10
  br i1 %kd, label %exit, label %loop
exit:
  ret void
}

declare void @llvm.assume(i1)
declare i32 @setjmp(ptr) returns_twice
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
