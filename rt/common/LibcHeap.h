//===- LibcHeap.h - The runtime's own buffers come from libc --------------===//
//
// Programs are linked with --wrap=malloc (and the rest of
// CCC_WRAPPED_FUNCTIONS), which also rewrites the runtime's own calls. The
// runtime's scratch buffers must not live in the region a checkpoint saves
// (and __ccc_free's fallback must not call itself), so the runtime reaches
// glibc's allocator by its internal names, which no wrap touches.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_RT_LIBCHEAP_H
#define CCC_RT_LIBCHEAP_H

#include "Sanitizers.h"

#include <stddef.h>

extern "C" {
void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void __libc_free(void *);
void *__libc_memalign(size_t, size_t);
}

#ifdef CCC_RT_ASAN
// Under AddressSanitizer the process's allocator is the sanitizer's, and
// glibc's behind it would leave the runtime's buffers unchecked; worse,
// __ccc_free would give glibc the blocks libraries got from the sanitizer
// (a crash at the first such free). So the runtime uses the sanitizer's
// allocator, by the names GCC's libasan (and LLVM's before 17) exports it
// under, which neither --wrap nor the runtime's own malloc (heap/LibraryHeap.cpp)
// touches.
extern "C" {
void *__interceptor_malloc(size_t);
void *__interceptor_calloc(size_t, size_t);
void *__interceptor_realloc(void *, size_t);
void __interceptor_free(void *);
void *__interceptor_memalign(size_t, size_t);
}
#define __libc_malloc __interceptor_malloc
#define __libc_calloc __interceptor_calloc
#define __libc_realloc __interceptor_realloc
#define __libc_free __interceptor_free
#define __libc_memalign __interceptor_memalign
#endif

#endif
