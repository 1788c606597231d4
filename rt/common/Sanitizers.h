//===- Sanitizers.h - What a sanitized runtime does differently -*- C++ -*-===//
//
// CCC_RT_ASAN: the runtime is built with AddressSanitizer (CCC_SANITIZE,
// docs/sanitizers.md).
//
// The runtime runs main on a stack of its own (at kStackTop), and a restart
// jumps onto it from the process stack. AddressSanitizer knows one stack per
// thread: after a switch it is not told of, it ignores the unpoisoning of
// noreturn calls (exit, fatal) and its stack reports may name the wrong
// stack. So a sanitized runtime announces each switch (its fiber interface;
// the process stack is never returned to, so no fake stack is kept). Without
// AddressSanitizer both calls are empty.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_RT_SANITIZERS_H
#define CCC_RT_SANITIZERS_H

#include <cstddef>
#include <cstdint>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CCC_RT_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define CCC_RT_ASAN 1
#endif

#ifdef CCC_RT_ASAN
// <sanitizer/common_interface_defs.h>, which compilers without the
// sanitizer runtime (Debian's clang-19) do not ship.
extern "C" void __sanitizer_start_switch_fiber(void **FakeStackSave,
                                               const void *Bottom, size_t Size);
extern "C" void __sanitizer_finish_switch_fiber(void *FakeStackSave,
                                                const void **BottomOld,
                                                size_t *SizeOld);
#endif

namespace ccc {

// Right before switching to the stack [Low, High), for good.
inline void beforeStackSwitch(uintptr_t Low, uintptr_t High) {
#ifdef CCC_RT_ASAN
  __sanitizer_start_switch_fiber(nullptr, reinterpret_cast<const void *>(Low),
                                 High - Low);
#else
  (void)Low;
  (void)High;
#endif
}

// First thing on the new stack.
inline void afterStackSwitch() {
#ifdef CCC_RT_ASAN
  __sanitizer_finish_switch_fiber(nullptr, nullptr, nullptr);
#endif
}

} // namespace ccc

#endif // CCC_RT_SANITIZERS_H
