; Liveness of globals across sites: a local global whose every read, in
; every function, is preceded on every path from the function's entry and
; from every call that may reach a site by a write of the whole object (a
; store, a memset, or a loop nest that scalar evolution shows stores every
; element) is dead at every site: its record carries
; CCC_GLOBAL_DEAD_AT_SITES (4) and images leave it out. Every other case
; stays saved (0).
; RUN: %opt -passes=ccc-globals -S %s | FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Dead: overwritten before any read.
; CHECK-DAG: @__ccc_gr.fill_loop = {{.*}} i32 4,
; CHECK-DAG: @__ccc_gr.fill_nest_2d = {{.*}} i32 4,
; CHECK-DAG: @__ccc_gr.scalar_tmp = {{.*}} i32 4,
; CHECK-DAG: @__ccc_gr.memset_whole = {{.*}} i32 4,
; CHECK-DAG: @__ccc_gr.across_libcall = {{.*}} i32 4,
; CHECK-DAG: @__ccc_gr.written_never_read = {{.*}} i32 4,
; CHECK-DAG: @__ccc_gr.both_branches_write = {{.*}} i32 4,
; CHECK-DAG: @__ccc_gr.fill_interleaved = {{.*}} i32 4,
; Live: some value may be read after a site.
; CHECK-DAG: @__ccc_gr.fill_short_by_one = {{.*}} i32 0,
; CHECK-DAG: @__ccc_gr.fill_maybe_skipped = {{.*}} i32 0,
; CHECK-DAG: @__ccc_gr.read_first = {{.*}} i32 0,
; CHECK-DAG: @__ccc_gr.site_between = {{.*}} i32 0,
; CHECK-DAG: @__ccc_gr.site_in_fill_loop = {{.*}} i32 0,
; CHECK-DAG: @__ccc_gr.read_after_unknown_call = {{.*}} i32 0,
; CHECK-DAG: @__ccc_gr.read_after_site_callee = {{.*}} i32 0,
; CHECK-DAG: @__ccc_gr.one_branch_writes = {{.*}} i32 0,
; CHECK-DAG: @__ccc_gr.element_store = {{.*}} i32 0,
; CHECK-DAG: @__ccc_gr.escapes = {{.*}} i32 0,
; CHECK-DAG: @__ccc_gr.visible = {{.*}} i32 0,
; CHECK-DAG: @__ccc_gr.read_in_fill_loop = {{.*}} i32 0,
; CHECK-DAG: @__ccc_gr.fill_interleaved_gap = {{.*}} i32 0,
; CHECK-DAG: @__ccc_gr.under_setjmp = {{.*}} i32 0,

@fill_loop = internal global [1024 x double] zeroinitializer
@fill_nest_2d = internal global [32 x [64 x double]] zeroinitializer
@scalar_tmp = internal global double 0.0
@memset_whole = internal global [256 x i8] zeroinitializer
@across_libcall = internal global double 0.0
@written_never_read = internal global i32 0
@both_branches_write = internal global i64 0
@fill_short_by_one = internal global [1024 x double] zeroinitializer
@fill_maybe_skipped = internal global [1024 x double] zeroinitializer
@read_first = internal global i32 0
@site_between = internal global double 0.0
@site_in_fill_loop = internal global [1024 x double] zeroinitializer
@read_after_unknown_call = internal global double 0.0
@read_after_site_callee = internal global double 0.0
@one_branch_writes = internal global i64 0
@element_store = internal global [2 x double] zeroinitializer
@escapes = internal global double 0.0
@visible = global double 0.0
@read_in_fill_loop = internal global [1024 x double] zeroinitializer
@fill_interleaved = internal global [1024 x double] zeroinitializer
@fill_interleaved_gap = internal global [1024 x double] zeroinitializer
@under_setjmp = internal global double 0.0

declare i32 @__ccc_checkpoint_slow(i32)
declare double @sqrt(double)
declare void @ext()
declare void @use(ptr)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

; The time-step loop: a site, then every kernel.
define void @step(i1 %c) {
  %r = call i32 @__ccc_checkpoint_slow(i32 0)
  %a = call double @fill_loop_then_read(i64 5)
  %b = call double @fill_2d_then_read(i64 3, i64 7)
  %d = call double @scalar(double 2.0)
  %e = call i8 @memset_then_read(i64 9)
  call void @site_between_write_and_read()
  call void @site_inside_fill()
  call void @unknown_between()
  call void @site_callee_between()
  %f = call i64 @branches(i1 %c)
  %g = call double @short_fill(i64 2)
  %h = call double @maybe_fill(i64 %f, i64 2)
  %k = call double @elements()
  call void @use(ptr @escapes)
  store double 1.0, ptr @visible
  %v = load double, ptr @visible
  %l = call double @read_while_filling()
  %m = call double @vectorized_fill(i64 3)
  %o = call double @scalar_under_setjmp(ptr null, double 1.0)
  ret void
}

define internal void @calls_site() {
  %r = call i32 @__ccc_checkpoint_slow(i32 0)
  ret void
}

define internal double @fill_loop_then_read(i64 %j) {
entry:
  br label %fill
fill:
  %i = phi i64 [ 0, %entry ], [ %i.next, %fill ]
  %p = getelementptr inbounds [1024 x double], ptr @fill_loop, i64 0, i64 %i
  %x = sitofp i64 %i to double
  store double %x, ptr %p
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, 1024
  br i1 %done, label %read, label %fill
read:
  %q = getelementptr inbounds [1024 x double], ptr @fill_loop, i64 0, i64 %j
  %v = load double, ptr %q
  ret double %v
}

define internal double @fill_2d_then_read(i64 %a, i64 %b) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %outer.latch ]
  br label %inner
inner:
  %j = phi i64 [ 0, %outer ], [ %j.next, %inner ]
  %p = getelementptr inbounds [32 x [64 x double]], ptr @fill_nest_2d, i64 0, i64 %i, i64 %j
  store double 1.0, ptr %p
  %j.next = add nuw nsw i64 %j, 1
  %jd = icmp eq i64 %j.next, 64
  br i1 %jd, label %outer.latch, label %inner
outer.latch:
  %i.next = add nuw nsw i64 %i, 1
  %id = icmp eq i64 %i.next, 32
  br i1 %id, label %read, label %outer
read:
  %q = getelementptr inbounds [32 x [64 x double]], ptr @fill_nest_2d, i64 0, i64 %a, i64 %b
  %v = load double, ptr %q
  ret double %v
}

define internal double @scalar(double %x) {
  store double %x, ptr @scalar_tmp
  %s = call double @sqrt(double %x)
  store double %s, ptr @across_libcall
  store i32 1, ptr @written_never_read
  %v = load double, ptr @scalar_tmp
  %w = load double, ptr @across_libcall
  %r = fadd double %v, %w
  ret double %r
}

define internal i8 @memset_then_read(i64 %i) {
  call void @llvm.memset.p0.i64(ptr @memset_whole, i8 7, i64 256, i1 false)
  %p = getelementptr inbounds [256 x i8], ptr @memset_whole, i64 0, i64 %i
  %v = load i8, ptr %p
  ret i8 %v
}

define internal void @site_between_write_and_read() {
  store double 1.0, ptr @site_between
  %r = call i32 @__ccc_checkpoint_slow(i32 0)
  %v = load double, ptr @site_between
  call void @use(ptr null)
  ret void
}

define internal void @site_inside_fill() {
entry:
  br label %fill
fill:
  %i = phi i64 [ 0, %entry ], [ %i.next, %fill ]
  %p = getelementptr inbounds [1024 x double], ptr @site_in_fill_loop, i64 0, i64 %i
  store double 1.0, ptr %p
  call void @calls_site()
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, 1024
  br i1 %done, label %read, label %fill
read:
  %v = load double, ptr @site_in_fill_loop
  ret void
}

define internal void @unknown_between() {
  store double 1.0, ptr @read_after_unknown_call
  call void @ext()
  %v = load double, ptr @read_after_unknown_call
  ret void
}

define internal void @site_callee_between() {
  store double 1.0, ptr @read_after_site_callee
  call void @calls_site()
  %v = load double, ptr @read_after_site_callee
  ret void
}

define internal i64 @branches(i1 %c) {
  br i1 %c, label %a, label %b
a:
  store i64 1, ptr @both_branches_write
  store i64 1, ptr @one_branch_writes
  br label %join
b:
  store i64 2, ptr @both_branches_write
  br label %join
join:
  %v = load i64, ptr @both_branches_write
  %w = load i64, ptr @one_branch_writes
  %s = add i64 %v, %w
  ret i64 %s
}

define internal double @short_fill(i64 %j) {
entry:
  br label %fill
fill:
  %i = phi i64 [ 0, %entry ], [ %i.next, %fill ]
  %p = getelementptr inbounds [1024 x double], ptr @fill_short_by_one, i64 0, i64 %i
  store double 1.0, ptr %p
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, 1023
  br i1 %done, label %read, label %fill
read:
  %q = getelementptr inbounds [1024 x double], ptr @fill_short_by_one, i64 0, i64 %j
  %v = load double, ptr %q
  ret double %v
}

; The store happens only in some iterations: no whole overwrite.
define internal double @maybe_fill(i64 %k, i64 %j) {
entry:
  br label %fill
fill:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %odd = icmp eq i64 %i, %k
  br i1 %odd, label %latch, label %st
st:
  %p = getelementptr inbounds [1024 x double], ptr @fill_maybe_skipped, i64 0, i64 %i
  store double 1.0, ptr %p
  br label %latch
latch:
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, 1024
  br i1 %done, label %read, label %fill
read:
  %q = getelementptr inbounds [1024 x double], ptr @fill_maybe_skipped, i64 0, i64 %j
  %v = load double, ptr %q
  ret double %v
}

define internal double @elements() {
  %e = getelementptr inbounds [2 x double], ptr @element_store, i64 0, i64 1
  store double 1.0, ptr %e
  %v = load double, ptr %e
  %w = load double, ptr @read_first
  store i32 1, ptr @read_first
  ret double %v
}

; Each iteration reads the next element before it is written.
define internal double @read_while_filling() {
entry:
  br label %fill
fill:
  %i = phi i64 [ 0, %entry ], [ %i.next, %fill ]
  %s = phi double [ 0.0, %entry ], [ %t, %fill ]
  %p = getelementptr inbounds [1024 x double], ptr @read_in_fill_loop, i64 0, i64 %i
  %i.next = add nuw nsw i64 %i, 1
  %n = getelementptr inbounds [1024 x double], ptr @read_in_fill_loop, i64 0, i64 %i.next
  %old = load double, ptr %n
  %t = fadd double %s, %old
  store double %t, ptr %p
  %done = icmp eq i64 %i.next, 1024
  br i1 %done, label %exit, label %fill
exit:
  ret double %t
}

; A vectorized, interleaved loop: two <2 x double> stores write 32
; contiguous bytes per iteration (dead); with a 16-byte hole between them
; each iteration, the other global is not covered (live).
define internal double @vectorized_fill(i64 %j) {
entry:
  br label %fill
fill:
  %i = phi i64 [ 0, %entry ], [ %i.next, %fill ]
  %p0 = getelementptr inbounds [1024 x double], ptr @fill_interleaved, i64 0, i64 %i
  %p1 = getelementptr inbounds double, ptr %p0, i64 2
  store <2 x double> <double 1.0, double 2.0>, ptr %p1
  store <2 x double> <double 1.0, double 2.0>, ptr %p0
  %g0 = getelementptr inbounds [1024 x double], ptr @fill_interleaved_gap, i64 0, i64 %i
  %g1 = getelementptr inbounds double, ptr %g0, i64 4
  store <2 x double> <double 1.0, double 2.0>, ptr %g0
  store <2 x double> <double 1.0, double 2.0>, ptr %g1
  %i.next = add nuw nsw i64 %i, 4
  %done = icmp eq i64 %i.next, 1024
  br i1 %done, label %read, label %fill
read:
  %q = getelementptr inbounds [1024 x double], ptr @fill_interleaved, i64 0, i64 %j
  %v = load double, ptr %q
  %r = getelementptr inbounds [1024 x double], ptr @fill_interleaved_gap, i64 0, i64 %j
  %w = load double, ptr %r
  %s = fadd double %v, %w
  ret double %s
}

; Overwritten before read, but the function calls setjmp: live.
declare i32 @setjmp(ptr) returns_twice
define internal double @scalar_under_setjmp(ptr %env, double %x) {
  %j = call i32 @setjmp(ptr %env) returns_twice
  store double %x, ptr @under_setjmp
  %v = load double, ptr @under_setjmp
  ret double %v
}
