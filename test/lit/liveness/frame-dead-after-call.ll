; Locals of a site's caller (4 KiB or more) dead after a call that may
; reach a site: every path from the call's return overwrites them whole
; before any read. ccc-frame-liveness marks them (metadata); ccc-frame-table
; escapes them (llvm.localescape) and wraps the call in inline asm that
; records [before, after] the call and each local's frame offset in
; section ccc_dead_locals. Nothing for a local read after the call, one
; whose address the callee gets, one whose lifetime ends before the call,
; one under 4 KiB, a call of a library function, a call passing arguments
; on the stack, or a function with a dynamic alloca.
; RUN: %opt -passes='function(ccc-frame-liveness)' -S %s | FileCheck %s --check-prefix=MARK
; RUN: %opt -passes='function(ccc-frame-liveness),ccc-frame-table' -S %s | FileCheck %s
; RUN: %opt -passes='function(ccc-frame-liveness),ccc-frame-table' %s | llc -O2 | FileCheck %s --check-prefix=ASM

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare i32 @__ccc_checkpoint_slow(i32)
; Reads memory only: cannot take a checkpoint.
declare void @use(double) #0
declare void @step(i64)
declare void @keep(ptr)
declare double @sin(double)
declare void @seven(i64, i64, i64, i64, i64, i64, i64)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare void @llvm.lifetime.start.p0(i64, ptr)
declare void @llvm.lifetime.end.p0(i64, ptr)

; MARK-LABEL: define void @caller(
; MARK:       %scratch = alloca [1024 x double], align 8, !ccc.frame.local ![[L0:[0-9]+]]
; MARK:       call void @step(i64 %k), !ccc.dead.after ![[L0]]

; CHECK-LABEL: define void @caller(
; CHECK:       %scratch = alloca [1024 x double]
; CHECK-NOT:   !ccc.frame.local
; CHECK:       call void (...) @llvm.localescape(ptr %scratch)
; CHECK:       call void asm sideeffect "7771:", ""()
; CHECK-NEXT:  call void @step(i64 %k)
; CHECK-NOT:   !ccc.dead.after
; CHECK-NEXT:  call void asm sideeffect "7772:\0A.pushsection ccc_dead_locals,\22a\22,@progbits\0A.p2align 2\0A.long 7771b - .\0A.long 7772b - .\0A.long .Lcaller$$frame_escape_0\0A.long 8192\0A.long 7773f - .\0A.popsection\0A.pushsection .rodata\0A7773:\0A.asciz \22scratch in caller\22\0A.popsection\0A", ""()
; CHECK-NOT:   asm sideeffect
; CHECK:       ret void

; ASM-LABEL:   caller:
; ASM:         {{(.set )?}}.Lcaller$frame_escape_0{{(, | = )}}[[OFF:[0-9]+]]
; ASM:         [[BEFORE:.Ltmp[0-9]+]]:
; ASM-NEXT:    #NO_APP
; ASM-NEXT:    movq
; ASM-NEXT:    callq step
; ASM-NEXT:    #APP
; ASM-NEXT:    [[AFTER:.Ltmp[0-9]+]]:
; ASM-NEXT:    .section ccc_dead_locals,"a",@progbits
; ASM-NEXT:    .p2align 2
; ASM-NEXT:    [[P0:.Ltmp[0-9]+]]:
; ASM-NEXT:    .long [[BEFORE]]-[[P0]]
; ASM-NEXT:    [[P1:.Ltmp[0-9]+]]:
; ASM-NEXT:    .long [[AFTER]]-[[P1]]
; ASM-NEXT:    .long [[OFF]]
; ASM-NEXT:    .long 8192
define void @caller(i64 %steps) {
entry:
  %scratch = alloca [1024 x double]
  br label %loop
loop:
  %k = phi i64 [ 0, %entry ], [ %k.next, %loop ]
  call void @step(i64 %k)
  call void @llvm.memset.p0.i64(ptr %scratch, i8 0, i64 8192, i1 false)
  %v = load double, ptr %scratch
  call void @use(double %v)
  %s = call double @sin(double %v)
  call void @use(double %s)
  %k.next = add i64 %k, 1
  %kd = icmp eq i64 %k.next, %steps
  br i1 %kd, label %exit, label %loop
exit:
  ret void
}

; CHECK-LABEL: define void @not_dead(
; CHECK-NOT:   localescape
; CHECK-NOT:   asm sideeffect
; CHECK:       ret void
define void @not_dead(i64 %steps) {
entry:
  %readfirst = alloca [1024 x double]
  %given = alloca [1024 x double]
  %inloop = alloca [1024 x double]
  %small = alloca [256 x double]
  br label %loop
loop:
  %k = phi i64 [ 0, %entry ], [ %k.next, %loop ]
  ; Its lifetime ends before the call and starts after it.
  call void @llvm.lifetime.start.p0(i64 8192, ptr %inloop)
  call void @llvm.memset.p0.i64(ptr %inloop, i8 0, i64 8192, i1 false)
  %v0 = load double, ptr %inloop
  call void @use(double %v0)
  call void @llvm.lifetime.end.p0(i64 8192, ptr %inloop)
  call void @step(i64 %k)
  ; Read before it is overwritten.
  %v1 = load double, ptr %readfirst
  call void @use(double %v1)
  call void @llvm.memset.p0.i64(ptr %readfirst, i8 0, i64 8192, i1 false)
  ; The callee gets its address.
  call void @llvm.memset.p0.i64(ptr %given, i8 0, i64 8192, i1 false)
  call void @keep(ptr %given)
  ; 2 KiB.
  call void @llvm.memset.p0.i64(ptr %small, i8 0, i64 2048, i1 false)
  %v4 = load double, ptr %small
  call void @use(double %v4)
  %k.next = add i64 %k, 1
  %kd = icmp eq i64 %k.next, %steps
  br i1 %kd, label %exit, label %loop
exit:
  ret void
}

; A library function never reaches a site; seven integer arguments put
; one on the stack, where the stack pointer at the call is not the
; prologue's.
; CHECK-LABEL: define void @calls_without_record(
; CHECK-NOT:   asm sideeffect
; CHECK:       ret void
define void @calls_without_record(double %x) {
entry:
  %scratch = alloca [1024 x double]
  %s = call double @sin(double %x)
  call void @seven(i64 1, i64 2, i64 3, i64 4, i64 5, i64 6, i64 7)
  call void @llvm.memset.p0.i64(ptr %scratch, i8 0, i64 8192, i1 false)
  %v = load double, ptr %scratch
  call void @use(double %v)
  call void @use(double %s)
  ret void
}

; A dynamic alloca moves the stack pointer: neither pass marks anything.
; MARK-LABEL: define void @dynamic_alloca(
; MARK-NOT:   !ccc.dead.after
; MARK:       ret void
; CHECK-LABEL: define void @dynamic_alloca(
; CHECK-NOT:   asm sideeffect
; CHECK:       ret void
define void @dynamic_alloca(i64 %n) {
entry:
  %scratch = alloca [1024 x double]
  %vla = alloca double, i64 %n
  call void @step(i64 %n)
  call void @llvm.memset.p0.i64(ptr %scratch, i8 0, i64 8192, i1 false)
  %v = load double, ptr %scratch
  call void @use(double %v)
  store double %v, ptr %vla
  call void @keep(ptr %vla)
  ret void
}

attributes #0 = { memory(read) }
