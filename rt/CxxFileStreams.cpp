//===- CxxFileStreams.cpp - std::fstream's FILE in the saved heap ---------===//
//
// std::basic_filebuf opens its file with fopen64 and closes it with fclose,
// both called from libstdc++.so, which the pass never sees. The program's
// filebuf (its buffer, its state) is saved like any object; its FILE, made
// by glibc, would not be, and the filebuf's close() after a restart would
// fclose a dangling pointer. So this object defines fopen64 and fclose for
// the process: called from libstdc++, they make the FILE in the saved heap
// and track its descriptor (OpenFiles.cpp), which a restart reopens; called
// from anywhere else (libc, an MPI library, the runtime), they are glibc's.
//
// Linked only into programs with a module that uses file streams: the pass
// makes such a module refer to __ccc_cxx_file_streams (CCC_CXX_FILE_STREAMS).
//
//===----------------------------------------------------------------------===//
#include "OpenFiles.h"

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <locale>

extern "C" const char __ccc_cxx_file_streams = 0;

namespace ccc {
namespace {
bool fromLibstdcxx(const void *ReturnAddress) {
  Dl_info I;
  return dladdr(ReturnAddress, &I) && I.dli_fname &&
         strstr(I.dli_fname, "libstdc++");
}

template <typename Fn> Fn glibc(Fn &Cache, const char *Name) {
  if (!Cache)
    Cache = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, Name));
  return Cache;
}

// libstdc++ builds the classic locale's facets, which every stream refers
// to, when the first stream or locale is made (or at start, in programs
// that include <iostream>). A restored stream was made by the first
// process: in the restarted one, nothing would build them before the
// stream's next use reads them.
__attribute__((constructor)) void buildClassicLocale() {
  (void)std::locale::classic();
}

// The filebuf's buffer is allocated by operator new[] inside libstdc++: the
// runtime's (OperatorNew.cpp) must be linked, even in a program that never
// says `new` itself, or the buffer would be glibc's, not saved.
[[gnu::used]] void *(*const PullOperatorNew)(std::size_t) = &::operator new[];

FILE *(*GlibcFopen64)(const char *, const char *);
int (*GlibcFclose)(FILE *);
} // namespace
} // namespace ccc

using namespace ccc;

extern "C" {
FILE *fopen64(const char *Path, const char *Mode) {
  auto *Open = glibc(GlibcFopen64, "fopen64");
  if (!fromLibstdcxx(__builtin_return_address(0)))
    return Open(Path, Mode);
  streamHeapEnter();
  FILE *F = leaveStreamHeap(Open(Path, Mode));
  if (F)
    trackOpenFile(fileno(F), F);
  return F;
}

int fclose(FILE *F) {
  auto *Close = glibc(GlibcFclose, "fclose");
  if (fromLibstdcxx(__builtin_return_address(0)))
    forgetStream(F);
  return Close(F);
}
}
