; ccc-frame-table for a target whose code generator has no assembler parser
; (XCore has none in LLVM 19; flang-new-19 registers none for any target,
; and the pass registers what the process has): writing an object would
; abort on the records' inline asm ("Inline asm not supported by this
; streamer"), so the pass emits no record, no escape, and drops the
; liveness metadata; the local simply stays in images. The same module for
; x86-64 gets its record. The input is what ccc-frame-liveness leaves.
; RUN: %opt -passes=ccc-frame-table -S %s | FileCheck %s
; RUN: sed 's/^target triple = .*/target triple = "x86_64-pc-linux-gnu"/' %s \
; RUN:   | %opt -passes=ccc-frame-table -S | FileCheck %s --check-prefix=X86
; RUN: %opt -passes=ccc-frame-table %s | llc -O2 -o /dev/null

target triple = "xcore"

declare void @step(i64)
declare void @use(double)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

; CHECK-LABEL: define void @caller(
; CHECK-NOT:   localescape
; CHECK-NOT:   asm
; CHECK-NOT:   !ccc.
; CHECK:       ret void
; X86-LABEL:   define void @caller(
; X86:         call void (...) @llvm.localescape(ptr %scratch)
; X86:         call void asm sideeffect "7771:", ""()
; X86-NEXT:    call void @step(i64 %k)
; X86-NEXT:    call void asm sideeffect "7772:{{.*}}.long 8192{{.*}}scratch in caller
define void @caller(i64 %k) {
entry:
  %scratch = alloca [1024 x double], align 4, !ccc.frame.local !0
  call void @step(i64 %k), !ccc.dead.after !0
  call void @llvm.memset.p0.i64(ptr %scratch, i8 0, i64 8192, i1 false)
  %p = getelementptr double, ptr %scratch, i64 %k
  %v = load double, ptr %p
  call void @use(double %v)
  ret void
}

!0 = !{i64 0}
