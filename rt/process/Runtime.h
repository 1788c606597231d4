//===- Runtime.h - ccc runtime: start, checkpoint, restart ------*- C++ -*-===//
#ifndef CCC_RT_RUNTIME_H
#define CCC_RT_RUNTIME_H

#include "rt/image/ImageFormat.h"

#include <cstdint>

extern "C" {
// Defined by the pass in the module that had `main`.
int __ccc_user_main(int, char **, char **);
// Defined by the pass only when main starts a language runtime (abi.h).
void __ccc_restart_init(int, char **, char **) __attribute__((weak));
// Context.S
int __ccc_ctx_save(ccc::SavedContext *) __attribute__((returns_twice));
[[noreturn]] void __ccc_ctx_restore(const ccc::SavedContext *);
[[noreturn]] void __ccc_run_on_stack(void (*)(void *), void *, void *);
}

namespace ccc {
// Fixed address of the top of main's stack (grows down from here).
constexpr uintptr_t kStackTop = 0x1ff000000000ULL;
// Bytes below the saved rsp that are kept too (the SysV red zone).
constexpr uint64_t kRedZone = 128;

typedef int (*UserMain)(int, char **, char **);
// Sets up heap and stack, restarts from an image or runs the program's main
// on the fixed stack. Never returns. (Main is passed in so that only Entry.o
// refers to __ccc_user_main: a program built without the pass can still link
// the runtime for ccc_checkpoint().)
[[noreturn]] void runtimeStart(UserMain Main, char **Argv, char **Envp);

// A site's slow path: takes a checkpoint if Kind is CCC_SITE_FORCE or one is
// pending. Returns CCC_NONE, CCC_TAKEN or CCC_RESTARTED.
int checkpointSlow(int Kind);
} // namespace ccc
#endif
