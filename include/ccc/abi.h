/*===- ccc/abi.h - Layouts shared by the ccc pass and runtime --------------===*\
 *
 * The ONE place where the pass (pass/) and the runtime (rt/) agree on names
 * and table layouts. The pass emits IR that matches these declarations; the
 * runtime reads them. Change both sides together and bump CCC_ABI_VERSION.
 *
\*===----------------------------------------------------------------------===*/
#ifndef CCC_ABI_H
#define CCC_ABI_H

#ifndef __ASSEMBLER__
#include <stdint.h>
#endif

#define CCC_ABI_VERSION 2

/* One record per writable global (or thread-local) of an instrumented module.
 * The pass places each record, as a separate global, in the ELF section
 * CCC_GLOBALS_SECTION; the linker concatenates them and the runtime walks
 * __start_/__stop_ of that section. Records of the same object (e.g. a C++
 * inline variable emitted in several modules) are de-duplicated by address.
 *
 * IR type: { ptr, i64, ptr, i32, i32 }, 8-byte aligned, 32 bytes. */
#ifndef __ASSEMBLER__
struct ccc_global_record {
  /* The object's address; for CCC_GLOBAL_TLS a pointer to a function
   * `void *getter(void)` returning the calling thread's instance. */
  void *addr;
  uint64_t size;     /* bytes */
  const char *name;  /* symbol name, for diagnostics and `ckpt info` */
  uint32_t flags;    /* CCC_GLOBAL_* */
  uint32_t reserved; /* 0 */
};
#endif

#define CCC_GLOBALS_SECTION "ccc_globals"
#define CCC_GLOBAL_TLS 0x1u
/* Never written after initialisation (the pass proved it): it comes back
 * from the binary, so no image holds it. */
#define CCC_GLOBAL_NEVER_WRITTEN 0x2u
/* Written, but overwritten before any read after every site (the pass's
 * liveness analysis proved it): no image holds it, and a restart leaves its
 * initial value there. */
#define CCC_GLOBAL_DEAD_AT_SITES 0x4u
/* Written by the OpenMP runtime, not the program: a critical section's
 * lock word (`.gomp_critical_user_*`, which libomp points at a lock it
 * allocates) or a threadprivate variable's cache of per-thread copies.
 * Both point into the OpenMP runtime's memory, which no image holds: no
 * image holds them either, and a restart leaves their initial value (zero)
 * there, so the new process's libomp builds them again. */
#define CCC_GLOBAL_OPENMP_STATE 0x8u

/* Locals of a site's callers: one record per call that may reach a site and
 * per local of the caller (4 KiB or more) that every path from the call's
 * return overwrites whole before reading it. The pass emits the records
 * (FrameTable.cpp) in the ELF section CCC_DEAD_LOCALS_SECTION; the runtime
 * walks __start_/__stop_ of it at a checkpoint and leaves out of the image
 * the local of each frame whose return address lies in a record's range.
 * Addresses are relative to the field holding them, so the table needs no
 * relocation at run time. 4-byte aligned, 20 bytes. x86-64 only. */
#ifndef __ASSEMBLER__
struct ccc_dead_local_record {
  int32_t before;    /* a point before the call */
  int32_t after;     /* a point after it: before < return address <= after */
  /* the local's address minus the stack pointer at the end of the
   * prologue (>= 0), or minus %rbp in a function with a frame pointer */
  int32_t sp_offset;
  uint32_t size;     /* bytes */
  int32_t name;      /* "VAR in function", for `ckpt info` */
};
#endif
#define CCC_DEAD_LOCALS_SECTION "ccc_dead_locals"

/* Names the pass emits calls to / defines (all in the runtime). */
#define CCC_PENDING_FLAG "__ccc_pending"     /* volatile int: checkpoint due */
#define CCC_SLOW_PATH "__ccc_checkpoint_slow" /* int (int kind) */
#define CCC_USER_MAIN "__ccc_user_main"       /* int (int, char**, char**) */
/* Called right before a site's slow path: heap bytes [p, p+n) are dead at
 * this site (the pass proved it), so the image taken in the next slow-path
 * call leaves them out. n == 0: nothing. where: the allocation's source
 * location ("file:line in function"), for `ckpt info`. */
#define CCC_DEAD_AT_SITE                                                       \
  "__ccc_dead_at_site" /* void (void *p, uint64_t n, const char *where) */
/* Defined by the pass when main initialises a language runtime (flang's
 * _FortranAProgramStart); the runtime calls it on restart, after the image
 * is restored, since the restored process never runs main's prologue. */
#define CCC_RESTART_INIT "__ccc_restart_init" /* void (int, char**, char**) */

/* Kinds passed to the slow path. */
#define CCC_SITE_MAYBE 0 /* ccc_checkpoint(): only if pending */
#define CCC_SITE_FORCE 1 /* ccc_checkpoint_force() */

/* Heap entry points: every heap call of an instrumented module is routed to
 * the runtime's version, which allocates in the fixed-address region.
 * X(libc name, runtime name). */
#define CCC_HEAP_FUNCTIONS(X)                                                  \
  X(malloc, __ccc_malloc)                                                      \
  X(calloc, __ccc_calloc)                                                      \
  X(realloc, __ccc_realloc)                                                    \
  X(reallocarray, __ccc_reallocarray)                                          \
  X(free, __ccc_free)                                                          \
  X(aligned_alloc, __ccc_aligned_alloc)                                        \
  X(posix_memalign, __ccc_posix_memalign)                                      \
  X(memalign, __ccc_memalign)                                                  \
  X(valloc, __ccc_valloc)                                                      \
  X(pvalloc, __ccc_pvalloc)                                                    \
  X(malloc_usable_size, __ccc_malloc_usable_size)                              \
  X(strdup, __ccc_strdup)                                                      \
  X(strndup, __ccc_strndup)                                                    \
  X(__strdup, __ccc_strdup)                                                    \
  X(__strndup, __ccc_strndup)                                                  \
  X(wcsdup, __ccc_wcsdup)                                                      \
  X(getline, __ccc_getline)                                                    \
  X(getdelim, __ccc_getdelim)                                                  \
  X(asprintf, __ccc_asprintf)                                                  \
  X(vasprintf, __ccc_vasprintf)                                                \
  X(realpath, __ccc_realpath)                                                  \
  X(getcwd, __ccc_getcwd)

/* Calls that open or close descriptors and streams: routed like the heap
 * functions (instrumented code only, so descriptors of libraries and of libc
 * itself are never tracked) to runtime versions that keep the table of the
 * program's open files, which a restart reopens (rt/files/OpenFiles.cpp).
 * X(libc name, runtime name). */
#define CCC_FILE_FUNCTIONS(X)                                                  \
  X(open, __ccc_open)                                                          \
  X(open64, __ccc_open)                                                        \
  X(openat, __ccc_openat)                                                      \
  X(openat64, __ccc_openat)                                                    \
  X(creat, __ccc_creat)                                                        \
  X(creat64, __ccc_creat)                                                      \
  X(close, __ccc_close)                                                        \
  X(dup, __ccc_dup)                                                            \
  X(dup2, __ccc_dup2)                                                          \
  X(dup3, __ccc_dup3)                                                          \
  X(pipe, __ccc_pipe)                                                          \
  X(pipe2, __ccc_pipe2)                                                        \
  X(socket, __ccc_socket)                                                      \
  X(fopen, __ccc_fopen)                                                        \
  X(fopen64, __ccc_fopen)                                                      \
  X(fdopen, __ccc_fdopen)                                                      \
  X(freopen, __ccc_freopen)                                                    \
  X(freopen64, __ccc_freopen)                                                  \
  X(fclose, __ccc_fclose)

/* A module that uses C++ file streams (std::basic_filebuf, which opens its
 * FILE with fopen64 inside libstdc++.so) gets from the pass a weak
 * definition of fopen64 that calls this with its return address; the
 * executable's fopen64 then serves libstdc++ too (rt/files/CxxFileStreams.cpp).
 * FILE *(const char *path, const char *mode, void *caller) */
#define CCC_CXX_FOPEN64 "__ccc_cxx_fopen64"

/* The allocator core, which code compiled WITHOUT the pass (static libraries
 * such as flang's runtime, or objects built without the plugin) reaches
 * through the linker's --wrap=NAME: the runtime defines __wrap_NAME as its
 * __ccc_ version, so memory such code allocates is saved too and frees of
 * either kind match. One line per name: CMake reads this list to build the
 * link flags. Functions that only return libc memory (strdup, getline, ...)
 * are not wrapped: their results are freed correctly and are, like the
 * rest of an uninstrumented object's state, not saved (see
 * docs/languages.md). */
#define CCC_WRAPPED_FUNCTIONS(W)                                               \
  W(malloc)                                                                    \
  W(calloc)                                                                    \
  W(realloc)                                                                   \
  W(reallocarray)                                                              \
  W(free)                                                                      \
  W(aligned_alloc)                                                             \
  W(posix_memalign)                                                            \
  W(memalign)                                                                  \
  W(valloc)                                                                    \
  W(pvalloc)                                                                   \
  W(malloc_usable_size)

/* Linked with -Wl,--wrap=NAME too, but observed rather than routed: their
 * __wrap_NAME calls the real function. open, mkstemp and close
 * (rt/files/FortranUnits.cpp) note the files that flang's runtime opens for
 * Fortran units, which checkpoints record and restarts open again; the
 * beginnings of formatted external READ/WRITE statements and SetAdvance
 * (rt/files/FortranRecords.cpp) note units left inside a record by
 * ADVANCE='NO', which a checkpoint refuses (see docs/languages.md).
 */
#define CCC_OBSERVED_FUNCTIONS(W)                                              \
  W(open)                                                                      \
  W(mkstemp)                                                                   \
  W(close)                                                                     \
  W(_FortranAioBeginExternalFormattedOutput)                                   \
  W(_FortranAioBeginExternalFormattedInput)                                    \
  W(_FortranAioSetAdvance)

#endif /* CCC_ABI_H */
