//===- LibraryHeap.cpp - Libraries' allocations in the saved heap ---------===//
//
// Code compiled with the pass reaches the region directly, and code linked
// into the executable without it through --wrap (LinkWrap.S). Shared
// libraries call malloc by name, and since the executable defines it,
// their calls come here: the region serves a caller whose code is a saved
// library's (rt/layout/Libraries.cpp: HDF5, PETSc, FFTW...), so that what
// their saved .data points to is saved too; glibc serves the rest (the MPI
// library and its transports, which MPI_Init builds anew in a restarted
// process and a restore must not overwrite; libc itself; the loader).
// The caller is the return address: one binary search over the saved
// libraries' code ranges, and no cost for the program's own allocations.
//
// Libc functions that return memory for the caller to keep (strdup,
// asprintf, realpath, ...) allocate inside libc, whose return
// address tells nothing: they are defined here too, by the same rule.
//
// While the runtime is inside its own fopen-like wrapper on this thread
// (streamHeapEnter/Leave), glibc's allocations for the stream (the FILE,
// its lock and wide data, its buffer) come from the region as well.
// free sends region memory back to the region whoever calls it.
//
//===----------------------------------------------------------------------===//
#include "LibraryHeap.h"

#include "HeapRegion.h"
#include "rt/common/LibcHeap.h"
#include "rt/common/NextDefinition.h"
#include "rt/layout/Libraries.h"

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <malloc.h>

// These replace the process's malloc, which runs before anything else,
// the sanitizer's start included (its libasan is not first among the
// libraries, rt/CMakeLists.txt): checked loads before its shadow memory is
// mapped would fault. So they are never instrumented; what they call
// (__ccc_malloc, the sanitizer's allocator) checks itself.
#define CCC_MALLOC_REPLACEMENT                                                 \
  extern "C" __attribute__((no_sanitize("address"), noinline, used))

namespace ccc {
namespace {
// Nesting depth of the runtime's stream wrappers on this thread.
thread_local int InStreamWrapper;
// Read before the sanitizer has mapped its shadow: a builtin, not
// std::atomic, whose out-of-line load (at -O0) would be instrumented.
bool LibrariesOpen;

// Whether an allocation on behalf of Caller belongs in the region. Before
// main there is no region yet: glibc's heap.
__attribute__((no_sanitize("address"))) inline bool
inRegion(const void *Caller) {
  if (InStreamWrapper)
    return heapIsMapped();
  return __atomic_load_n(&LibrariesOpen, __ATOMIC_RELAXED) &&
         savedLibraryCode(reinterpret_cast<uintptr_t>(Caller));
}

// glibc's versions of the functions below.
enum RealFn {
  RealUsableSize,
  RealStrdup,
  RealStrndup,
  RealVasprintf,
  RealRealpath,
  NumRealFns
};
void *RealFns[NumRealFns];
template <typename F> F real(RealFn I, const char *Name) {
  return nextDefinition<F>(RealFns[I], Name);
}
#define CCC_REAL(Type, I, Name) ccc::real<Type>(ccc::I, #Name)

#define CALLER __builtin_return_address(0)
} // namespace
} // namespace ccc

using ccc::inRegion;

void ccc::streamHeapEnter() { ++ccc::InStreamWrapper; }
void ccc::streamHeapLeave() { --ccc::InStreamWrapper; }
void ccc::openLibraryHeap() {
  if (librariesSaved() && heapIsMapped())
    __atomic_store_n(&LibrariesOpen, true, __ATOMIC_RELAXED);
}

CCC_MALLOC_REPLACEMENT void *malloc(size_t N) noexcept {
  return inRegion(CALLER) ? ccc::heapAllocFrom(N, CALLER) : __libc_malloc(N);
}

CCC_MALLOC_REPLACEMENT void *calloc(size_t N, size_t Size) noexcept {
  return inRegion(CALLER) ? __ccc_calloc(N, Size) : __libc_calloc(N, Size);
}

CCC_MALLOC_REPLACEMENT void *realloc(void *P, size_t N) noexcept {
  if (P && ccc::heapContains(P))
    return __ccc_realloc(P, N);
  if (!inRegion(CALLER))
    return __libc_realloc(P, N);
  if (!P)
    return ccc::heapAllocFrom(N, CALLER);
  // A saved library grows a block it got before main (from glibc): the
  // block moves into the region, where images see it.
  void *Q = ccc::heapAllocFrom(N, CALLER);
  if (!Q)
    return nullptr;
  size_t Old = malloc_usable_size(P);
  memcpy(Q, P, Old < N ? Old : N);
  __libc_free(P);
  return Q;
}

// __ccc_free gives memory outside the region to glibc.
CCC_MALLOC_REPLACEMENT void free(void *P) noexcept { __ccc_free(P); }

CCC_MALLOC_REPLACEMENT void *memalign(size_t Align, size_t N) noexcept {
  return inRegion(CALLER) ? ccc::heapMemalignFrom(Align, N, CALLER)
                          : __libc_memalign(Align, N);
}

CCC_MALLOC_REPLACEMENT void *aligned_alloc(size_t Align, size_t N) noexcept {
  return inRegion(CALLER) ? ccc::heapMemalignFrom(Align, N, CALLER)
                          : __libc_memalign(Align, N);
}

CCC_MALLOC_REPLACEMENT int posix_memalign(void **Out, size_t Align,
                                          size_t N) noexcept {
  if (Align < sizeof(void *) || (Align & (Align - 1)))
    return EINVAL;
  int Saved = errno;
  void *P = inRegion(CALLER) ? ccc::heapMemalignFrom(Align, N, CALLER)
                             : __libc_memalign(Align, N);
  int Err = errno;
  errno = Saved;
  if (!P)
    return Err ? Err : ENOMEM;
  *Out = P;
  return 0;
}

CCC_MALLOC_REPLACEMENT void *valloc(size_t N) noexcept {
  return inRegion(CALLER) ? ccc::heapMemalignFrom(4096, N, CALLER)
                          : __libc_memalign(4096, N);
}

CCC_MALLOC_REPLACEMENT void *pvalloc(size_t N) noexcept {
  size_t Up = (N + 4095) & ~size_t(4095);
  return inRegion(CALLER) ? ccc::heapMemalignFrom(4096, Up ? Up : 4096, CALLER)
                          : __libc_memalign(4096, Up ? Up : 4096);
}

CCC_MALLOC_REPLACEMENT size_t malloc_usable_size(void *P) noexcept {
  if (P && ccc::heapContains(P))
    return __ccc_malloc_usable_size(P);
  return CCC_REAL(size_t(*)(void *), RealUsableSize, malloc_usable_size)(P);
}

// Libc functions returning memory the caller keeps (not getline and
// getdelim: glibc's headers inline them into their callers).
CCC_MALLOC_REPLACEMENT char *strdup(const char *S) noexcept {
  return inRegion(CALLER)
             ? __ccc_strdup(S)
             : CCC_REAL(char *(*)(const char *), RealStrdup, strdup)(S);
}

CCC_MALLOC_REPLACEMENT char *strndup(const char *S, size_t N) noexcept {
  return inRegion(CALLER) ? __ccc_strndup(S, N)
                          : CCC_REAL(char *(*)(const char *, size_t),
                                     RealStrndup, strndup)(S, N);
}

CCC_MALLOC_REPLACEMENT int vasprintf(char **Out, const char *Fmt,
                                     va_list Ap) noexcept {
  return inRegion(CALLER) ? __ccc_vasprintf(Out, Fmt, Ap)
                          : CCC_REAL(int (*)(char **, const char *, va_list),
                                     RealVasprintf, vasprintf)(Out, Fmt, Ap);
}

CCC_MALLOC_REPLACEMENT int asprintf(char **Out, const char *Fmt, ...) noexcept {
  va_list Ap;
  va_start(Ap, Fmt);
  int R = inRegion(CALLER) ? __ccc_vasprintf(Out, Fmt, Ap)
                           : CCC_REAL(int (*)(char **, const char *, va_list),
                                      RealVasprintf, vasprintf)(Out, Fmt, Ap);
  va_end(Ap);
  return R;
}

CCC_MALLOC_REPLACEMENT char *realpath(const char *Path,
                                      char *Resolved) noexcept {
  return inRegion(CALLER) ? __ccc_realpath(Path, Resolved)
                          : CCC_REAL(char *(*)(const char *, char *),
                                     RealRealpath, realpath)(Path, Resolved);
}
