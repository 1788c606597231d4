//===- StreamHeap.cpp - glibc's stream objects in the saved heap ----------===//
//
// A FILE that fopen returns is allocated by glibc with malloc, outside the
// region a checkpoint saves: after a restart the program's pointer to it
// would point into unrelated memory. The runtime therefore defines malloc,
// calloc, realloc and free for the whole process (glibc's documented way of
// replacing malloc; glibc's own calls reach them too). They are glibc's
// allocator, except while the runtime is inside its own fopen-like wrapper
// on this thread (streamHeapEnter/Leave): then glibc's allocations for the
// stream (the FILE, its lock and wide data, its buffer) come from the
// region and are saved with it. free sends region memory back to the region
// whoever calls it, so fclose frees such a FILE correctly.
//
// This object is linked only into programs whose code opens streams (it is
// referenced by OpenFiles.cpp alone), so no other program's malloc changes.
//
//===----------------------------------------------------------------------===//
#include "OpenFiles.h"
#include "rt/common/LibcHeap.h"
#include "rt/heap/HeapRegion.h"

#include <cstdlib>

// These replace the process's malloc, which runs before anything else,
// the sanitizer's start included (its libasan is not first among the
// libraries, rt/CMakeLists.txt): checked loads before its shadow memory is
// mapped would fault. So they are never instrumented; what they call
// (__ccc_malloc, the sanitizer's allocator) checks itself.
#define CCC_MALLOC_REPLACEMENT __attribute__((no_sanitize("address")))

namespace ccc {
namespace {
// Nesting depth of the runtime's stream wrappers on this thread.
thread_local int InStreamWrapper;
// Before main there is no region yet: glibc's heap.
CCC_MALLOC_REPLACEMENT bool inRegion() {
  return InStreamWrapper && heapIsMapped();
}
} // namespace
} // namespace ccc

using ccc::inRegion;

void ccc::streamHeapEnter() { ++ccc::InStreamWrapper; }
void ccc::streamHeapLeave() { --ccc::InStreamWrapper; }

extern "C" {
CCC_MALLOC_REPLACEMENT void *malloc(size_t N) noexcept {
  return inRegion() ? __ccc_malloc(N) : __libc_malloc(N);
}

CCC_MALLOC_REPLACEMENT void *calloc(size_t N, size_t Size) noexcept {
  return inRegion() ? __ccc_calloc(N, Size) : __libc_calloc(N, Size);
}

CCC_MALLOC_REPLACEMENT void *realloc(void *P, size_t N) noexcept {
  if (P ? ccc::heapContains(P) : inRegion())
    return __ccc_realloc(P, N);
  return __libc_realloc(P, N);
}

// __ccc_free gives memory outside the region to glibc.
CCC_MALLOC_REPLACEMENT void free(void *P) noexcept { __ccc_free(P); }
}
