// Context.S - register context save/restore and stack switch (x86-64 SysV).
//
// glibc's setjmp mangles the saved rsp/rip with a per-process pointer guard,
// so a jmp_buf cannot be restored in a new process. These save exactly what
// the ABI says survives a call: rbx, rbp, r12-r15, rsp, the return address,
// MXCSR and the x87 control word. Offsets match struct SavedContext in
// ImageFormat.h.

        .text

// int __ccc_ctx_save(SavedContext *ctx)  -- returns 0; returns 1 again when
// __ccc_ctx_restore(ctx) resumes it (possibly in another process).
        .globl  __ccc_ctx_save
        .hidden __ccc_ctx_save
        .type   __ccc_ctx_save,@function
__ccc_ctx_save:
        movq    %rbx, 0(%rdi)
        movq    %rbp, 8(%rdi)
        movq    %r12, 16(%rdi)
        movq    %r13, 24(%rdi)
        movq    %r14, 32(%rdi)
        movq    %r15, 40(%rdi)
        leaq    8(%rsp), %rax           // rsp after our return
        movq    %rax, 48(%rdi)
        movq    (%rsp), %rax            // our return address
        movq    %rax, 56(%rdi)
        stmxcsr 64(%rdi)
        fnstcw  68(%rdi)
        xorl    %eax, %eax
        ret
        .size   __ccc_ctx_save, .-__ccc_ctx_save

// [[noreturn]] void __ccc_ctx_restore(const SavedContext *ctx)
        .globl  __ccc_ctx_restore
        .hidden __ccc_ctx_restore
        .type   __ccc_ctx_restore,@function
__ccc_ctx_restore:
        movq    0(%rdi), %rbx
        movq    8(%rdi), %rbp
        movq    16(%rdi), %r12
        movq    24(%rdi), %r13
        movq    32(%rdi), %r14
        movq    40(%rdi), %r15
        ldmxcsr 64(%rdi)
        fldcw   68(%rdi)
        movq    48(%rdi), %rsp
        movl    $1, %eax
        jmpq    *56(%rdi)
        .size   __ccc_ctx_restore, .-__ccc_ctx_restore

// [[noreturn]] void __ccc_run_on_stack(void (*fn)(void *), void *arg,
//                                      void *stack_top)
// Calls fn(arg) with rsp = stack_top (16-byte aligned) and rbp = 0 so frame
// chains end here. fn must not return.
        .globl  __ccc_run_on_stack
        .hidden __ccc_run_on_stack
        .type   __ccc_run_on_stack,@function
__ccc_run_on_stack:
        movq    %rdi, %rax
        movq    %rsi, %rdi
        movq    %rdx, %rsp
        andq    $-16, %rsp
        xorl    %ebp, %ebp
        callq   *%rax
        ud2
        .size   __ccc_run_on_stack, .-__ccc_run_on_stack

        .section .note.GNU-stack,"",@progbits
