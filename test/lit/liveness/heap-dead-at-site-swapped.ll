; Heap liveness of two allocations whose pointers a loop swaps every
; iteration (u and unew of a Jacobi sweep): at a site in the loop, the
; object one phi holds is dead when every path from the site rewrites a
; range of it (here the interior, past a ghost plane of %g elements)
; before anything reads it through that phi, and nothing reads it through
; another name; then __ccc_dead_at_site(phi + offset, range bytes) comes
; right before the site. Blocking MPI calls on the other phi's object are
; accesses of that object only.
; RUN: %opt -passes=ccc-heap-liveness -S %s | FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare ptr @__ccc_malloc(i64)
declare ptr @__ccc_calloc(i64, i64)
declare void @__ccc_free(ptr)
declare i32 @__ccc_checkpoint_slow(i32)
declare void @use(ptr)
declare i32 @MPI_Sendrecv(ptr, i32, ptr, i32, i32, ptr, i32, ptr, i32, i32, ptr, ptr)
declare i32 @MPI_Isend(ptr, i32, ptr, i32, i32, ptr, ptr)
@comm = external global i8

; u is read (a halo exchange through MPI, the sweep), unew's interior
; [g, g + n) is written: unew's interior is dead, u is not.
; CHECK-LABEL: define void @jacobi(
; CHECK:       %[[A:.*]] = call ptr @__ccc_calloc(
; CHECK:       %[[B:.*]] = call ptr @__ccc_calloc(
; CHECK:       %[[OFF:.*]] = shl i64 %g, 3
; CHECK:       %[[LEN:.*]] = shl i64 %n, 3
; CHECK:       step:
; CHECK:       %[[U:.*]] = phi ptr [ %[[A]], %entry ], [ %[[UN:.*]], %step.end ]
; CHECK:       %[[UN]] = phi ptr [ %[[B]], %entry ], [ %[[U]], %step.end ]
; CHECK-NEXT:  %[[AT:.*]] = getelementptr i8, ptr %[[UN]], i64 %[[OFF]]
; CHECK-NEXT:  call void @__ccc_dead_at_site(ptr %[[AT]], i64 %[[LEN]], ptr @ccc.alloc)
; CHECK-NEXT:  call i32 @__ccc_checkpoint_slow(i32 0)
; CHECK-NOT:   __ccc_dead_at_site
; CHECK:       ret void
define void @jacobi(i64 %n, i64 %g, i64 %steps) {
entry:
  %pos = icmp sgt i64 %n, 0
  call void @llvm.assume(i1 %pos)
  %gpos = icmp sgt i64 %g, 0
  call void @llvm.assume(i1 %gpos)
  %g2 = shl nuw nsw i64 %g, 1
  %tot = add nuw nsw i64 %n, %g2
  %a = call ptr @__ccc_calloc(i64 %tot, i64 8)
  %b = call ptr @__ccc_calloc(i64 %tot, i64 8)
  br label %step
step:
  %t = phi i64 [ 0, %entry ], [ %t.next, %step.end ]
  %u = phi ptr [ %a, %entry ], [ %unew, %step.end ]
  %unew = phi ptr [ %b, %entry ], [ %u, %step.end ]
  %r = call i32 @__ccc_checkpoint_slow(i32 0)
  %last = getelementptr inbounds double, ptr %u, i64 %n
  %x = call i32 @MPI_Sendrecv(ptr %last, i32 1, ptr @comm, i32 0, i32 0, ptr %u, i32 1, ptr @comm, i32 0, i32 0, ptr @comm, ptr null)
  br label %sweep
sweep:
  %i = phi i64 [ 0, %step ], [ %i.next, %sweep ]
  %gi = add nuw nsw i64 %i, %g
  %pu = getelementptr inbounds double, ptr %u, i64 %gi
  %v = load double, ptr %pu
  %pn = getelementptr inbounds double, ptr %unew, i64 %gi
  store double %v, ptr %pn
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %step.end, label %sweep
step.end:
  %t.next = add i64 %t, 1
  %tdone = icmp eq i64 %t.next, %steps
  br i1 %tdone, label %exit, label %step
exit:
  %final = load double, ptr %u
  ret void
}

; In each function below one thing differs from @jacobi, and nothing is
; marked.

; unew read after the site, before the sweep rewrites it.
; CHECK-LABEL: define void @reread(
; CHECK-NOT:   __ccc_dead_at_site
; CHECK:       ret void
define void @reread(i64 %n, ptr %req) {
entry:
  %pos = icmp sgt i64 %n, 0
  call void @llvm.assume(i1 %pos)
  %a = call ptr @__ccc_malloc(i64 800)
  %b = call ptr @__ccc_malloc(i64 800)
  br label %step
step:
  %t = phi i64 [ 0, %entry ], [ %t.next, %step.end ]
  %u = phi ptr [ %a, %entry ], [ %unew, %step.end ]
  %unew = phi ptr [ %b, %entry ], [ %u, %step.end ]
  %r = call i32 @__ccc_checkpoint_slow(i32 0)
  %odd = trunc i64 %t to i1
  %old = load double, ptr %unew
  br label %sweep.ph
sweep.ph:
  br label %sweep
sweep:
  %i = phi i64 [ 0, %sweep.ph ], [ %i.next, %sweep ]
  %pu = getelementptr inbounds double, ptr %u, i64 %i
  %v = load double, ptr %pu
  %pn = getelementptr inbounds double, ptr %unew, i64 %i
  store double %v, ptr %pn
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %step.end, label %sweep
step.end:
  %t.next = add i64 %t, 1
  %tdone = icmp eq i64 %t.next, 10
  br i1 %tdone, label %exit, label %step
exit:
  ret void
}

; The sweep writes through u (the other phi's object), not unew.
; CHECK-LABEL: define void @sweep_writes_u(
; CHECK-NOT:   __ccc_dead_at_site
; CHECK:       ret void
define void @sweep_writes_u(i64 %n, ptr %req) {
entry:
  %pos = icmp sgt i64 %n, 0
  call void @llvm.assume(i1 %pos)
  %a = call ptr @__ccc_malloc(i64 800)
  %b = call ptr @__ccc_malloc(i64 800)
  br label %step
step:
  %t = phi i64 [ 0, %entry ], [ %t.next, %step.end ]
  %u = phi ptr [ %a, %entry ], [ %unew, %step.end ]
  %unew = phi ptr [ %b, %entry ], [ %u, %step.end ]
  %r = call i32 @__ccc_checkpoint_slow(i32 0)
  %odd = trunc i64 %t to i1
  br label %sweep.ph
sweep.ph:
  br label %sweep
sweep:
  %i = phi i64 [ 0, %sweep.ph ], [ %i.next, %sweep ]
  %pu = getelementptr inbounds double, ptr %u, i64 %i
  %v = load double, ptr %pu
  %pn = getelementptr inbounds double, ptr %u, i64 %i
  store double %v, ptr %pn
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %step.end, label %sweep
step.end:
  %t.next = add i64 %t, 1
  %tdone = icmp eq i64 %t.next, 10
  br i1 %tdone, label %exit, label %step
exit:
  ret void
}

; On odd steps a path from the site leaves the loop before the sweep;
; unew is read after the loop (through the exit's phi).
; CHECK-LABEL: define void @leaves_loop(
; CHECK-NOT:   __ccc_dead_at_site
; CHECK:       ret void
define void @leaves_loop(i64 %n, ptr %req) {
entry:
  %pos = icmp sgt i64 %n, 0
  call void @llvm.assume(i1 %pos)
  %a = call ptr @__ccc_malloc(i64 800)
  %b = call ptr @__ccc_malloc(i64 800)
  br label %step
step:
  %t = phi i64 [ 0, %entry ], [ %t.next, %step.end ]
  %u = phi ptr [ %a, %entry ], [ %unew, %step.end ]
  %unew = phi ptr [ %b, %entry ], [ %u, %step.end ]
  %r = call i32 @__ccc_checkpoint_slow(i32 0)
  %odd = trunc i64 %t to i1
  br i1 %odd, label %exit, label %sweep.ph
sweep.ph:
  br label %sweep
sweep:
  %i = phi i64 [ 0, %sweep.ph ], [ %i.next, %sweep ]
  %pu = getelementptr inbounds double, ptr %u, i64 %i
  %v = load double, ptr %pu
  %pn = getelementptr inbounds double, ptr %unew, i64 %i
  store double %v, ptr %pn
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %step.end, label %sweep
step.end:
  %t.next = add i64 %t, 1
  %tdone = icmp eq i64 %t.next, 10
  br i1 %tdone, label %exit, label %step
exit:
  %out = phi ptr [ %unew, %step ], [ %u, %step.end ]
  %f = load double, ptr %out
  ret void
}

; u given to MPI_Isend, which may use it after the call returns (and
; u's object is unew's in the next step).
; CHECK-LABEL: define void @captured(
; CHECK-NOT:   __ccc_dead_at_site
; CHECK:       ret void
define void @captured(i64 %n, ptr %req) {
entry:
  %pos = icmp sgt i64 %n, 0
  call void @llvm.assume(i1 %pos)
  %a = call ptr @__ccc_malloc(i64 800)
  %b = call ptr @__ccc_malloc(i64 800)
  br label %step
step:
  %t = phi i64 [ 0, %entry ], [ %t.next, %step.end ]
  %u = phi ptr [ %a, %entry ], [ %unew, %step.end ]
  %unew = phi ptr [ %b, %entry ], [ %u, %step.end ]
  %r = call i32 @__ccc_checkpoint_slow(i32 0)
  %odd = trunc i64 %t to i1
  %x = call i32 @MPI_Isend(ptr %u, i32 1, ptr @comm, i32 0, i32 0, ptr @comm, ptr %req)
  br label %sweep.ph
sweep.ph:
  br label %sweep
sweep:
  %i = phi i64 [ 0, %sweep.ph ], [ %i.next, %sweep ]
  %pu = getelementptr inbounds double, ptr %u, i64 %i
  %v = load double, ptr %pu
  %pn = getelementptr inbounds double, ptr %unew, i64 %i
  store double %v, ptr %pn
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %step.end, label %sweep
step.end:
  %t.next = add i64 %t, 1
  %tdone = icmp eq i64 %t.next, 10
  br i1 %tdone, label %exit, label %step
exit:
  ret void
}

; Odd steps skip the sweep: the next step, where the phis have swapped,
; reads the object through u before rewriting it.
; CHECK-LABEL: define void @skips_sweep(
; CHECK-NOT:   __ccc_dead_at_site
; CHECK:       unreachable
define void @skips_sweep(i64 %n, ptr %req) {
entry:
  %pos = icmp sgt i64 %n, 0
  call void @llvm.assume(i1 %pos)
  %a = call ptr @__ccc_malloc(i64 800)
  %b = call ptr @__ccc_malloc(i64 800)
  br label %step
step:
  %t = phi i64 [ 0, %entry ], [ %t.next, %step.end ]
  %u = phi ptr [ %a, %entry ], [ %unew, %step.end ]
  %unew = phi ptr [ %b, %entry ], [ %u, %step.end ]
  %r = call i32 @__ccc_checkpoint_slow(i32 0)
  %odd = trunc i64 %t to i1
  br i1 %odd, label %step.end, label %sweep.ph
sweep.ph:
  br label %sweep
sweep:
  %i = phi i64 [ 0, %sweep.ph ], [ %i.next, %sweep ]
  %pu = getelementptr inbounds double, ptr %u, i64 %i
  %v = load double, ptr %pu
  %pn = getelementptr inbounds double, ptr %unew, i64 %i
  store double %v, ptr %pn
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %step.end, label %sweep
step.end:
  %t.next = add i64 %t, 1
  %tdone = icmp eq i64 %t.next, 10
  br i1 %tdone, label %exit, label %step
exit:
  call void @abort()
  unreachable
}

; unew comes back as itself and u takes unew's pointer: from the second
; step on they are the same object, and the sweep reads it through u.
; CHECK-LABEL: define void @not_swapped(
; CHECK-NOT:   __ccc_dead_at_site
; CHECK:       ret void
define void @not_swapped(i64 %n, ptr %req) {
entry:
  %pos = icmp sgt i64 %n, 0
  call void @llvm.assume(i1 %pos)
  %a = call ptr @__ccc_malloc(i64 800)
  %b = call ptr @__ccc_malloc(i64 800)
  br label %step
step:
  %t = phi i64 [ 0, %entry ], [ %t.next, %step.end ]
  %u = phi ptr [ %a, %entry ], [ %unew, %step.end ]
  %unew = phi ptr [ %b, %entry ], [ %unew, %step.end ]
  %r = call i32 @__ccc_checkpoint_slow(i32 0)
  %odd = trunc i64 %t to i1
  br label %sweep.ph
sweep.ph:
  br label %sweep
sweep:
  %i = phi i64 [ 0, %sweep.ph ], [ %i.next, %sweep ]
  %pu = getelementptr inbounds double, ptr %u, i64 %i
  %v = load double, ptr %pu
  %pn = getelementptr inbounds double, ptr %unew, i64 %i
  store double %v, ptr %pn
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %step.end, label %sweep
step.end:
  %t.next = add i64 %t, 1
  %tdone = icmp eq i64 %t.next, 10
  br i1 %tdone, label %exit, label %step
exit:
  ret void
}

declare void @llvm.assume(i1)
declare void @abort() noreturn
