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

#include <stddef.h>

extern "C" {
void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void __libc_free(void *);
}

#endif
