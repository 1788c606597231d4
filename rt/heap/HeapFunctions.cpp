//===- HeapFunctions.cpp - libc functions that return heap memory ---------===//
//
// The runtime versions of the functions in CCC_HEAP_FUNCTIONS (ccc/abi.h)
// that are not the allocator itself: they return memory of the region, so
// that what the program keeps is saved and restored with it. None hands a
// region pointer to libc, which would realloc or free it with glibc.
//
//===----------------------------------------------------------------------===//
#include "HeapRegion.h"

#include <cerrno>
#include <climits>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <cwchar>
#include <unistd.h>

extern "C" {

void *__ccc_calloc(size_t N, size_t Size) {
  size_t Total;
  if (__builtin_mul_overflow(N, Size, &Total)) {
    errno = ENOMEM;
    return nullptr;
  }
  void *P = ccc::heapAllocFrom(Total, __builtin_return_address(0));
  if (P)
    memset(P, 0, Total);
  return P;
}

void *__ccc_reallocarray(void *P, size_t N, size_t Size) {
  size_t Total;
  if (__builtin_mul_overflow(N, Size, &Total)) {
    errno = ENOMEM;
    return nullptr;
  }
  return __ccc_realloc(P, Total);
}

void *__ccc_aligned_alloc(size_t Align, size_t N) {
  return ccc::heapMemalignFrom(Align, N, __builtin_return_address(0));
}

int __ccc_posix_memalign(void **Out, size_t Align, size_t N) {
  if (Align < sizeof(void *) || (Align & (Align - 1)))
    return EINVAL;
  int Saved = errno;
  void *P = __ccc_memalign(Align, N);
  int Err = errno;
  errno = Saved;
  if (!P)
    return Err ? Err : ENOMEM;
  *Out = P;
  return 0;
}

void *__ccc_valloc(size_t N) { return __ccc_memalign(4096, N); }

void *__ccc_pvalloc(size_t N) {
  return __ccc_memalign(4096, (N + 4095) & ~(size_t)4095);
}

char *__ccc_strdup(const char *S) {
  size_t L = strlen(S) + 1;
  char *P = static_cast<char *>(__ccc_malloc(L));
  return P ? static_cast<char *>(memcpy(P, S, L)) : nullptr;
}

char *__ccc_strndup(const char *S, size_t N) {
  size_t L = strnlen(S, N);
  char *P = static_cast<char *>(__ccc_malloc(L + 1));
  if (!P)
    return nullptr;
  memcpy(P, S, L);
  P[L] = 0;
  return P;
}

wchar_t *__ccc_wcsdup(const wchar_t *S) {
  size_t L = (wcslen(S) + 1) * sizeof(wchar_t);
  auto *P = static_cast<wchar_t *>(__ccc_malloc(L));
  return P ? static_cast<wchar_t *>(memcpy(P, S, L)) : nullptr;
}

ssize_t __ccc_getdelim(char **Line, size_t *Cap, int Delim, FILE *F) {
  if (!Line || !Cap || !F) {
    errno = EINVAL;
    return -1;
  }
  size_t Len = 0;
  flockfile(F);
  for (;;) {
    int C = getc_unlocked(F);
    if (C == EOF)
      break;
    if (Len + 2 > *Cap || !*Line) {
      size_t NewCap = *Cap < 120 ? 120 : *Cap * 2;
      char *P = static_cast<char *>(__ccc_realloc(*Line, NewCap));
      if (!P) {
        funlockfile(F);
        return -1;
      }
      *Line = P;
      *Cap = NewCap;
    }
    (*Line)[Len++] = (char)C;
    if (C == Delim)
      break;
  }
  funlockfile(F);
  if (Len == 0)
    return -1;
  (*Line)[Len] = 0;
  return (ssize_t)Len;
}

ssize_t __ccc_getline(char **Line, size_t *Cap, FILE *F) {
  return __ccc_getdelim(Line, Cap, '\n', F);
}

int __ccc_vasprintf(char **Out, const char *Fmt, va_list Ap) {
  va_list Copy;
  va_copy(Copy, Ap);
  int N = vsnprintf(nullptr, 0, Fmt, Copy);
  va_end(Copy);
  if (N < 0)
    return -1;
  char *P = static_cast<char *>(__ccc_malloc((size_t)N + 1));
  if (!P)
    return -1;
  vsnprintf(P, (size_t)N + 1, Fmt, Ap);
  *Out = P;
  return N;
}

int __ccc_asprintf(char **Out, const char *Fmt, ...) {
  va_list Ap;
  va_start(Ap, Fmt);
  int N = __ccc_vasprintf(Out, Fmt, Ap);
  va_end(Ap);
  return N;
}

char *__ccc_realpath(const char *Path, char *Resolved) {
  if (Resolved)
    return realpath(Path, Resolved);
  char Buf[PATH_MAX];
  if (!realpath(Path, Buf))
    return nullptr;
  return __ccc_strdup(Buf);
}

char *__ccc_getcwd(char *Buf, size_t Size) {
  if (Buf)
    return getcwd(Buf, Size);
  char Tmp[PATH_MAX];
  if (!getcwd(Tmp, sizeof(Tmp)))
    return nullptr;
  if (Size && strlen(Tmp) + 1 > Size) {
    errno = ERANGE;
    return nullptr;
  }
  return __ccc_strdup(Tmp);
}
}
