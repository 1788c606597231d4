; Loop nests that write by block copies and in transposed order. A pack
; buffer filled by a memcpy per row (of a symbolic length, the distance it
; moves by) is dead whole; a transpose target whose innermost loop strides
; by ny elements covers its allocation only when ny == nyl * size, which the
; run time alone knows: it is dead over the range the nest writes, computed
; at the site, and 0 bytes unless that equality and the guards of the
; nest's loops hold there. Nothing is marked when two loops' strides are
; unrelated, or an inner loop's guard changes in the nest.
; RUN: %opt -passes=ccc-heap-liveness -S %s | FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare ptr @__ccc_malloc(i64)
declare i32 @__ccc_checkpoint_slow(i32)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

; for (d < size) for (i < rows) memcpy(buf + d * rows * len + i * len, src, len)
; CHECK-LABEL: define void @pack_each_step(
; CHECK:       step:
; CHECK-NEXT:  phi
; CHECK-NEXT:  %[[HS:.*]] = icmp sgt i64 %size, 0
; CHECK-NEXT:  %[[HR:.*]] = icmp sgt i64 %rows, 0
; CHECK-NEXT:  %[[H:.*]] = and i1 %[[HS]], %[[HR]]
; CHECK-NEXT:  %[[B:.*]] = select i1 %[[H]], i64 %bytes, i64 0
; CHECK-NEXT:  call void @__ccc_dead_at_site(ptr %buf, i64 %[[B]],
; CHECK-NEXT:  call i32 @__ccc_checkpoint_slow(i32 0)
define void @pack_each_step(ptr %src, i64 %size, i64 %rows, i64 %len, i64 %steps) {
entry:
  %rl = mul i64 %rows, %len
  %bytes = mul i64 %rl, %size
  %buf = call ptr @__ccc_malloc(i64 %bytes)
  %havesize = icmp sgt i64 %size, 0
  %haverows = icmp sgt i64 %rows, 0
  br label %step
step:
  %k = phi i64 [ 0, %entry ], [ %k.next, %use ]
  %r = call i32 @__ccc_checkpoint_slow(i32 0)
  br i1 %havesize, label %dloop, label %use
dloop:
  %d = phi i64 [ 0, %step ], [ %d.next, %dlatch ]
  br i1 %haverows, label %iloop.ph, label %dlatch
iloop.ph:
  %dofs = mul i64 %d, %rl
  %dbase = getelementptr i8, ptr %buf, i64 %dofs
  br label %iloop
iloop:
  %i = phi i64 [ 0, %iloop.ph ], [ %i.next, %iloop ]
  %iofs = mul i64 %i, %len
  %dst = getelementptr i8, ptr %dbase, i64 %iofs
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 %len, i1 false)
  %i.next = add nuw nsw i64 %i, 1
  %idone = icmp eq i64 %i.next, %rows
  br i1 %idone, label %dlatch, label %iloop
dlatch:
  %d.next = add nuw nsw i64 %d, 1
  %ddone = icmp eq i64 %d.next, %size
  br i1 %ddone, label %use, label %dloop
use:
  %v = load double, ptr %buf
  %k.next = add i64 %k, 1
  %kd = icmp eq i64 %k.next, %steps
  br i1 %kd, label %exit, label %step
exit:
  ret void
}

%struct.C = type { double, double }

; for (s < size) for (i < nyl) for (j < nxl) t[j * ny + s * nyl + i] = ...
; covers t when ny == nyl * size, which only the run time knows.
; CHECK-LABEL: define void @transpose_each_step(
; CHECK:       %[[SN:.*]] = mul i64 %size, %nyl
; CHECK-NEXT:  %[[SNX:.*]] = mul i64 %[[SN]], %nxl
; CHECK-NEXT:  %[[W:.*]] = shl i64 %[[SNX]], 4
; CHECK-NEXT:  %[[JS:.*]] = shl i64 %ny, 4
; CHECK-NEXT:  %[[WS:.*]] = shl i64 %[[SN]], 4
; CHECK:       step:
; CHECK-NEXT:  phi
; CHECK-NEXT:  %[[EQ:.*]] = icmp eq i64 %[[JS]], %[[WS]]
; CHECK-NEXT:  %[[HS:.*]] = icmp sgt i64 %size, 0
; CHECK-NEXT:  %[[H1:.*]] = and i1 %[[EQ]], %[[HS]]
; CHECK-NEXT:  %[[HJ:.*]] = icmp sgt i64 %nxl, 0
; CHECK-NEXT:  %[[H2:.*]] = and i1 %[[H1]], %[[HJ]]
; CHECK-NEXT:  %[[HI:.*]] = icmp sgt i64 %nyl, 0
; CHECK-NEXT:  %[[H:.*]] = and i1 %[[H2]], %[[HI]]
; CHECK-NEXT:  %[[B:.*]] = select i1 %[[H]], i64 %[[W]], i64 0
; CHECK-NEXT:  %[[AT:.*]] = getelementptr i8, ptr %t, i64 0
; CHECK-NEXT:  call void @__ccc_dead_at_site(ptr %[[AT]], i64 %[[B]],
; CHECK-NEXT:  call i32 @__ccc_checkpoint_slow(i32 0)
define void @transpose_each_step(ptr %src, i64 %nxl, i64 %nyl, i64 %size, i64 %ny, i64 %steps) {
entry:
  %n = mul i64 %nxl, %ny
  %bytes = shl i64 %n, 4
  %t = call ptr @__ccc_malloc(i64 %bytes)
  %hs = icmp sgt i64 %size, 0
  %hi = icmp sgt i64 %nyl, 0
  %hj = icmp sgt i64 %nxl, 0
  br label %step
step:
  %k = phi i64 [ 0, %entry ], [ %k.next, %use ]
  %r = call i32 @__ccc_checkpoint_slow(i32 0)
  br i1 %hs, label %sloop, label %use
sloop:
  %s = phi i64 [ 0, %step ], [ %s.next, %slatch ]
  br i1 %hi, label %iloop, label %slatch
iloop:
  %i = phi i64 [ 0, %sloop ], [ %i.next, %ilatch ]
  br i1 %hj, label %jloop, label %ilatch
jloop:
  %j = phi i64 [ 0, %iloop ], [ %j.next, %jloop ]
  %a = mul i64 %j, %ny
  %b = mul i64 %s, %nyl
  %ab = add i64 %a, %b
  %idx = add i64 %ab, %i
  %p = getelementptr inbounds %struct.C, ptr %t, i64 %idx
  call void @llvm.memcpy.p0.p0.i64(ptr %p, ptr %src, i64 16, i1 false)
  %j.next = add nuw nsw i64 %j, 1
  %jdone = icmp eq i64 %j.next, %nxl
  br i1 %jdone, label %ilatch, label %jloop
ilatch:
  %i.next = add nuw nsw i64 %i, 1
  %idone = icmp eq i64 %i.next, %nyl
  br i1 %idone, label %slatch, label %iloop
slatch:
  %s.next = add nuw nsw i64 %s, 1
  %sdone = icmp eq i64 %s.next, %size
  br i1 %sdone, label %use, label %sloop
use:
  %v = load double, ptr %t
  %k.next = add i64 %k, 1
  %kd = icmp eq i64 %k.next, %steps
  br i1 %kd, label %exit, label %step
exit:
  ret void
}

; t[j * ny + s * nyl + i * m]: two strides to check, not one.
; CHECK-LABEL: define void @transpose_two_unrelated_strides(
; CHECK-NOT:   __ccc_dead_at_site
; CHECK:       ret void
define void @transpose_two_unrelated_strides(ptr %src, i64 %nxl, i64 %nyl, i64 %size, i64 %ny, i64 %m, i64 %steps) {
entry:
  %n = mul i64 %nxl, %ny
  %bytes = shl i64 %n, 4
  %t = call ptr @__ccc_malloc(i64 %bytes)
  %hs = icmp sgt i64 %size, 0
  %hi = icmp sgt i64 %nyl, 0
  %hj = icmp sgt i64 %nxl, 0
  br label %step
step:
  %k = phi i64 [ 0, %entry ], [ %k.next, %use ]
  %r = call i32 @__ccc_checkpoint_slow(i32 0)
  br i1 %hs, label %sloop, label %use
sloop:
  %s = phi i64 [ 0, %step ], [ %s.next, %slatch ]
  br i1 %hi, label %iloop, label %slatch
iloop:
  %i = phi i64 [ 0, %sloop ], [ %i.next, %ilatch ]
  br i1 %hj, label %jloop, label %ilatch
jloop:
  %j = phi i64 [ 0, %iloop ], [ %j.next, %jloop ]
  %a = mul i64 %j, %ny
  %b = mul i64 %s, %nyl
  %ab = add i64 %a, %b
  %im = mul i64 %i, %m
  %idx = add i64 %ab, %im
  %p = getelementptr inbounds %struct.C, ptr %t, i64 %idx
  call void @llvm.memcpy.p0.p0.i64(ptr %p, ptr %src, i64 16, i1 false)
  %j.next = add nuw nsw i64 %j, 1
  %jdone = icmp eq i64 %j.next, %nxl
  br i1 %jdone, label %ilatch, label %jloop
ilatch:
  %i.next = add nuw nsw i64 %i, 1
  %idone = icmp eq i64 %i.next, %nyl
  br i1 %idone, label %slatch, label %iloop
slatch:
  %s.next = add nuw nsw i64 %s, 1
  %sdone = icmp eq i64 %s.next, %size
  br i1 %sdone, label %use, label %sloop
use:
  %v = load double, ptr %t
  %k.next = add i64 %k, 1
  %kd = icmp eq i64 %k.next, %steps
  br i1 %kd, label %exit, label %step
exit:
  ret void
}

; The inner loop runs only while nxl > s: not on every iteration of the nest.
; CHECK-LABEL: define void @transpose_inner_guard_varies(
; CHECK-NOT:   __ccc_dead_at_site
; CHECK:       ret void
define void @transpose_inner_guard_varies(ptr %src, i64 %nxl, i64 %nyl, i64 %size, i64 %ny, i64 %steps) {
entry:
  %n = mul i64 %nxl, %ny
  %bytes = shl i64 %n, 4
  %t = call ptr @__ccc_malloc(i64 %bytes)
  %hs = icmp sgt i64 %size, 0
  %hi = icmp sgt i64 %nyl, 0
  %hj = icmp sgt i64 %nxl, 0
  br label %step
step:
  %k = phi i64 [ 0, %entry ], [ %k.next, %use ]
  %r = call i32 @__ccc_checkpoint_slow(i32 0)
  br i1 %hs, label %sloop, label %use
sloop:
  %s = phi i64 [ 0, %step ], [ %s.next, %slatch ]
  br i1 %hi, label %iloop, label %slatch
iloop:
  %i = phi i64 [ 0, %sloop ], [ %i.next, %ilatch ]
  %hjs = icmp sgt i64 %nxl, %s
  br i1 %hjs, label %jloop, label %ilatch
jloop:
  %j = phi i64 [ 0, %iloop ], [ %j.next, %jloop ]
  %a = mul i64 %j, %ny
  %b = mul i64 %s, %nyl
  %ab = add i64 %a, %b
  %idx = add i64 %ab, %i
  %p = getelementptr inbounds %struct.C, ptr %t, i64 %idx
  call void @llvm.memcpy.p0.p0.i64(ptr %p, ptr %src, i64 16, i1 false)
  %j.next = add nuw nsw i64 %j, 1
  %jdone = icmp eq i64 %j.next, %nxl
  br i1 %jdone, label %ilatch, label %jloop
ilatch:
  %i.next = add nuw nsw i64 %i, 1
  %idone = icmp eq i64 %i.next, %nyl
  br i1 %idone, label %slatch, label %iloop
slatch:
  %s.next = add nuw nsw i64 %s, 1
  %sdone = icmp eq i64 %s.next, %size
  br i1 %sdone, label %use, label %sloop
use:
  %v = load double, ptr %t
  %k.next = add i64 %k, 1
  %kd = icmp eq i64 %k.next, %steps
  br i1 %kd, label %exit, label %step
exit:
  ret void
}

; for (y = 1; y < 511; ++y) for (x = 1; x < 511; ++x) g[y * 512 + x] = ...
; The rows' interiors (510 elements) do not chain (512 apart): the ghost
; columns between them are not written, so no range is, and no mark is
; made (not even one of 0 bytes behind a check that cannot hold).
; CHECK-LABEL: define void @rows_with_ghost_columns(
; CHECK-NOT:   @__ccc_dead_at_site
; CHECK:       ret void
define void @rows_with_ghost_columns(i64 %steps) {
entry:
  %g = call ptr @__ccc_malloc(i64 2097152)
  br label %step
step:
  %k = phi i64 [ 0, %entry ], [ %k.next, %use ]
  %r = call i32 @__ccc_checkpoint_slow(i32 0)
  br label %yloop
yloop:
  %y = phi i64 [ 1, %step ], [ %y.next, %ylatch ]
  %row = mul i64 %y, 512
  br label %xloop
xloop:
  %x = phi i64 [ 1, %yloop ], [ %x.next, %xloop ]
  %i = add i64 %row, %x
  %p = getelementptr double, ptr %g, i64 %i
  store double 1.0, ptr %p
  %x.next = add nuw nsw i64 %x, 1
  %xd = icmp eq i64 %x.next, 511
  br i1 %xd, label %ylatch, label %xloop
ylatch:
  %y.next = add nuw nsw i64 %y, 1
  %yd = icmp eq i64 %y.next, 511
  br i1 %yd, label %use, label %yloop
use:
  %v = load double, ptr %g
  %k.next = add i64 %k, 1
  %kd = icmp eq i64 %k.next, %steps
  br i1 %kd, label %exit, label %step
exit:
  ret void
}
