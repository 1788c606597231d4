//===- LibraryFiles.cpp - Files that saved libraries open -----------------===//
//
// A library whose memory images hold (rt/layout/Libraries.cpp) keeps the
// descriptors and FILEs it opened in that memory: serial HDF5 its file's
// descriptor, NetCDF its FILE. After a restart they must be open again at
// the same numbers and offsets, as the program's own files are. The pass
// routes the program's calls to OpenFiles.cpp; a shared library calls
// open, fopen, close... by name, and since the executable defines them
// (exported, CCC_RT_LDFLAG), its calls come here: from a saved library
// they go to the same tracking, from anyone else (the MPI library, libc,
// the runtime itself, flang's runtime through --wrap's __real_open)
// straight to glibc. A socket a saved library opens is tracked too, so
// that a checkpoint with it open is refused (it cannot be reopened)
// instead of restoring a library that talks to nobody.
//
//===----------------------------------------------------------------------===//
#include "OpenFiles.h"

#include "rt/common/NextDefinition.h"
#include "rt/layout/Libraries.h"

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <dlfcn.h>
#include <fcntl.h>

extern "C" {
int __ccc_open(const char *Path, int Flags, ...);
int __ccc_openat(int Dir, const char *Path, int Flags, ...);
int __ccc_close(int Fd);
int __ccc_socket(int Domain, int Type, int Protocol);
FILE *__ccc_fopen(const char *Path, const char *Mode);
FILE *__ccc_fdopen(int Fd, const char *Mode);
int __ccc_fclose(FILE *F);
}

namespace ccc {
namespace {
// Set while a call is in OpenFiles.cpp's tracking, whose own open or close
// comes back here, possibly with the library's return address still the
// caller's (a tail call keeps it): that one goes to glibc.
thread_local int Tracking;

__attribute__((no_sanitize("address"))) bool
fromSavedLibrary(const void *Caller) {
  return !Tracking && codeOwner(reinterpret_cast<uintptr_t>(Caller)) ==
                          CodeOwner::SavedLibrary;
}

// Calls F (a tracking function of OpenFiles.cpp) with Tracking set.
template <typename F> auto tracked(F Call) {
  ++Tracking;
  auto R = Call();
  --Tracking;
  return R;
}

enum RealFile {
  RealOpen,
  RealOpenat,
  RealClose,
  RealSocket,
  RealFopen,
  RealFdopen,
  RealFclose,
  NumRealFiles
};
void *RealFiles[NumRealFiles];
template <typename F> F real(RealFile I, const char *Name) {
  return nextDefinition<F>(RealFiles[I], Name);
}

// open's mode argument, present with O_CREAT or O_TMPFILE.
#define CCC_OPEN_MODE(Flags, Last)                                             \
  mode_t Mode = 0;                                                             \
  if ((Flags) & (O_CREAT | O_TMPFILE)) {                                       \
    va_list Ap;                                                                \
    va_start(Ap, Last);                                                        \
    Mode = va_arg(Ap, int);                                                    \
    va_end(Ap);                                                                \
  }

int openFor(const void *Caller, const char *Path, int Flags, mode_t Mode) {
  if (fromSavedLibrary(Caller))
    return tracked([&] { return __ccc_open(Path, Flags, Mode); });
  return real<int (*)(const char *, int, ...)>(RealOpen, "open")(Path, Flags,
                                                                 Mode);
}

int openatFor(const void *Caller, int Dir, const char *Path, int Flags,
              mode_t Mode) {
  if (fromSavedLibrary(Caller))
    return tracked([&] { return __ccc_openat(Dir, Path, Flags, Mode); });
  return real<int (*)(int, const char *, int, ...)>(RealOpenat, "openat")(
      Dir, Path, Flags, Mode);
}

FILE *fopenFor(const void *Caller, const char *Path, const char *Mode) {
  if (fromSavedLibrary(Caller))
    return tracked([&] { return __ccc_fopen(Path, Mode); });
  return real<FILE *(*)(const char *, const char *)>(RealFopen, "fopen")(Path,
                                                                         Mode);
}
} // namespace
} // namespace ccc

using namespace ccc;

#define CALLER __builtin_return_address(0)
// Not instrumented: a library's constructor may call them before the
// sanitizer has mapped its shadow.
#define CCC_FILE_REPLACEMENT                                                   \
  extern "C" __attribute__((noinline, used, no_sanitize("address")))

CCC_FILE_REPLACEMENT int open(const char *Path, int Flags, ...) {
  CCC_OPEN_MODE(Flags, Flags)
  return openFor(CALLER, Path, Flags, Mode);
}

CCC_FILE_REPLACEMENT int open64(const char *Path, int Flags, ...) {
  CCC_OPEN_MODE(Flags, Flags)
  return openFor(CALLER, Path, Flags, Mode);
}

CCC_FILE_REPLACEMENT int openat(int Dir, const char *Path, int Flags, ...) {
  CCC_OPEN_MODE(Flags, Flags)
  return openatFor(CALLER, Dir, Path, Flags, Mode);
}

CCC_FILE_REPLACEMENT int openat64(int Dir, const char *Path, int Flags, ...) {
  CCC_OPEN_MODE(Flags, Flags)
  return openatFor(CALLER, Dir, Path, Flags, Mode);
}

CCC_FILE_REPLACEMENT int creat(const char *Path, mode_t Mode) {
  return openFor(CALLER, Path, O_CREAT | O_WRONLY | O_TRUNC, Mode);
}

CCC_FILE_REPLACEMENT int creat64(const char *Path, mode_t Mode) {
  return openFor(CALLER, Path, O_CREAT | O_WRONLY | O_TRUNC, Mode);
}

CCC_FILE_REPLACEMENT int close(int Fd) {
  if (fromSavedLibrary(CALLER))
    return tracked([&] { return __ccc_close(Fd); });
  return real<int (*)(int)>(RealClose, "close")(Fd);
}

CCC_FILE_REPLACEMENT int socket(int Domain, int Type, int Protocol) {
  if (fromSavedLibrary(CALLER))
    return tracked([&] { return __ccc_socket(Domain, Type, Protocol); });
  return real<int (*)(int, int, int)>(RealSocket, "socket")(Domain, Type,
                                                            Protocol);
}

CCC_FILE_REPLACEMENT FILE *fopen(const char *Path, const char *Mode) {
  return fopenFor(CALLER, Path, Mode);
}

// Weak: a program with C++ file streams gets the pass's fopen64, which
// serves libstdc++ and comes back here for the rest (CxxFileStreams.cpp).
extern "C" __attribute__((noinline, used, weak, no_sanitize("address"))) FILE *
fopen64(const char *Path, const char *Mode) {
  return fopenFor(CALLER, Path, Mode);
}

CCC_FILE_REPLACEMENT FILE *fdopen(int Fd, const char *Mode) {
  if (fromSavedLibrary(CALLER))
    return tracked([&] { return __ccc_fdopen(Fd, Mode); });
  return real<FILE *(*)(int, const char *)>(RealFdopen, "fdopen")(Fd, Mode);
}

CCC_FILE_REPLACEMENT int fclose(FILE *F) {
  if (fromSavedLibrary(CALLER))
    return tracked([&] { return __ccc_fclose(F); });
  return real<int (*)(FILE *)>(RealFclose, "fclose")(F);
}

// For CxxFileStreams.cpp: an fopen64 call that did not come from libstdc++.
FILE *ccc::libraryFopen(const char *Path, const char *Mode,
                        const void *Caller) {
  return fopenFor(Caller, Path, Mode);
}

const char ccc::LibraryFilesLinked = 1;
