//===- CxxFileStreams.cpp - std::fstream's FILE in the saved heap ---------===//
//
// std::basic_filebuf opens its file with fopen64 inside libstdc++.so, which
// the pass never sees. The program's filebuf (its buffer, its state) is
// saved like any object; its FILE, made by glibc, would not be, and the
// filebuf's close() after a restart would fclose a dangling pointer. The
// pass therefore defines fopen64 in the executable (CCC_CXX_FOPEN64 in
// ccc/abi.h) as a call of this: for libstdc++'s calls it makes the FILE in
// the saved heap and tracks its descriptor (OpenFiles.cpp), which a restart
// reopens; anyone else's goes where LibraryFiles.cpp sends it. libstdc++'s fclose needs
// nothing: the FILE is freed to the region by free (heap/LibraryHeap.cpp), and a
// checkpoint forgets a stream that is no longer open.
//
// This object is linked only into programs with a module that uses file
// streams, which are linked with libstdc++.
//
//===----------------------------------------------------------------------===//
#include "OpenFiles.h"

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <locale>

namespace ccc {
namespace {
bool fromLibstdcxx(const void *Caller) {
  Dl_info I;
  return dladdr(Caller, &I) && I.dli_fname && strstr(I.dli_fname, "libstdc++");
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
} // namespace
} // namespace ccc

using namespace ccc;

extern "C" FILE *__ccc_cxx_fopen64(const char *Path, const char *Mode,
                                   const void *Caller) {
  if (!fromLibstdcxx(Caller)) // a saved library's is tracked too
    return libraryFopen(Path, Mode, Caller);
  streamHeapEnter();
  FILE *F = leaveStreamHeap(fopen(Path, Mode));
  if (F)
    trackOpenFile(fileno(F), F);
  return F;
}
