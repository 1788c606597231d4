//===- HeapRegion.h - The fixed-address heap of the application -*- C++ -*-===//
//
// Every heap allocation of instrumented code lands in one region mapped at a
// fixed address, and the allocator keeps ALL of its state (free lists, bump
// pointer, free extents) inside that region. Restoring the region's used
// bytes therefore restores the heap and the allocator together, at the same
// addresses, with no fix-up. Libraries keep using glibc malloc.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_RT_HEAPREGION_H
#define CCC_RT_HEAPREGION_H

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cwchar>
#include <sys/types.h>

namespace ccc {
constexpr uintptr_t kHeapBase = 0x200000000000ULL;  // 32 TiB
constexpr size_t kHeapDefaultReserve = 64ULL << 30; // 64 GiB, MAP_NORESERVE

// Maps the region at Base (MAP_FIXED_NOREPLACE). If Fresh, writes empty
// allocator state; otherwise leaves zero memory for a restore to fill.
bool heapMap(uintptr_t Base, size_t Reserve, bool Fresh);
// After a restore has written the allocator's state back: makes the part of
// the region in use part of core dumps again (the rest stays out).
void heapRestored();
void heapUnmap();
bool heapIsMapped();
bool heapContains(const void *P);
uintptr_t heapBase();
size_t heapReserve();
// Calls Fn for each range holding live data or allocator state, in address
// order; the bodies of large free extents are skipped. Call with the heap
// locked (checkpoint time).
void heapForEachUsedRange(void (*Fn)(uintptr_t Addr, size_t Len, void *Ctx),
                          void *Ctx);
size_t heapUsedBytes();
// Calls Fn for each large block in use whose allocation was recorded: its
// data (Addr, Len) and the return address of the call that allocated it.
// Call with the heap locked.
void heapForEachPlacedBlock(void (*Fn)(uintptr_t Addr, size_t Len, uintptr_t PC,
                                       void *Ctx),
                            void *Ctx);
// malloc and memalign on behalf of the allocating call at Caller (the
// runtime's own entry points pass their return address).
void *heapAllocFrom(size_t N, const void *Caller);
void *heapMemalignFrom(size_t Align, size_t N, const void *Caller);
void heapLock();
void heapUnlock();
} // namespace ccc

extern "C" {
void *__ccc_malloc(size_t);
void *__ccc_calloc(size_t, size_t);
void *__ccc_realloc(void *, size_t);
void *__ccc_reallocarray(void *, size_t, size_t);
void __ccc_free(void *);
void *__ccc_aligned_alloc(size_t, size_t);
int __ccc_posix_memalign(void **, size_t, size_t);
void *__ccc_memalign(size_t, size_t);
void *__ccc_valloc(size_t);
void *__ccc_pvalloc(size_t);
size_t __ccc_malloc_usable_size(void *);
char *__ccc_strdup(const char *);
char *__ccc_strndup(const char *, size_t);
wchar_t *__ccc_wcsdup(const wchar_t *);
ssize_t __ccc_getline(char **, size_t *, FILE *);
ssize_t __ccc_getdelim(char **, size_t *, int, FILE *);
int __ccc_asprintf(char **, const char *, ...);
int __ccc_vasprintf(char **, const char *, va_list);
char *__ccc_realpath(const char *, char *);
char *__ccc_getcwd(char *, size_t);
}
#endif
