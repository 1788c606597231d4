//===- FortranUnits.cpp - Fortran units open at a checkpoint --------------===//
//
// flang's runtime keeps its table of units (which unit number is which open
// file, its position, its buffer) in globals of the runtime library, which
// images do not hold. A unit OPENed before a checkpoint is therefore unknown
// after a restart: a WRITE to it would create a new file fort.N and the
// program's file would silently stop growing. Until units are restored,
// a checkpoint with such a file open is refused with a message naming the
// file, and the previous committed checkpoint stays (the same as for a pipe
// or a deleted file, rt/files/OpenFiles.cpp).
//
// The files are found at their opening: every ccc link wraps open, mkstemp
// (STATUS='SCRATCH') and close (CCC_OBSERVED_FUNCTIONS in ccc/abi.h), and a
// call from flang's runtime, recognised by the symbol of its return address
// (as in AllocationSite.cpp; reading the symbol table opens the executable
// through here too, which ElfSymbols.cpp answers with no symbol), is noted
// here. The program's own calls are
// routed by the pass to rt/files/OpenFiles.cpp instead and never come here.
//
//===----------------------------------------------------------------------===//
#include "FortranUnits.h"
#include "rt/layout/ElfSymbols.h"

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

extern "C" {
int __real_open(const char *Path, int Flags, ...);
int __real_mkstemp(char *Template);
int __real_close(int Fd);
}

namespace ccc {
namespace {
// Descriptors flang's runtime has open (a bit per descriptor below 1024;
// a unit above that is not noted and not refused).
constexpr int kMaxFd = 1024;
std::atomic<uint64_t> UnitFds[kMaxFd / 64];

bool fromFortranRuntime(void *ReturnAddress) {
  const char *F =
      executableFunctionAt(reinterpret_cast<uintptr_t>(ReturnAddress) - 1);
  return F && (!strncmp(F, "_ZN7Fortran7runtime", 19) ||
               !strncmp(F, "_ZNK7Fortran7runtime", 20) ||
               !strncmp(F, "_FortranA", 9));
}

void note(int Fd, bool Open) {
  if (Fd < 0 || Fd >= kMaxFd)
    return;
  uint64_t Bit = uint64_t(1) << (Fd % 64);
  if (Open)
    UnitFds[Fd / 64].fetch_or(Bit, std::memory_order_relaxed);
  else
    UnitFds[Fd / 64].fetch_and(~Bit, std::memory_order_relaxed);
}
} // namespace

bool checkFortranUnits(char *Why, size_t WhyCap) {
  for (int W = 0; W < kMaxFd / 64; ++W) {
    uint64_t Bits = UnitFds[W].load(std::memory_order_relaxed);
    for (; Bits; Bits &= Bits - 1) {
      int Fd = W * 64 + __builtin_ctzll(Bits);
      char Proc[64], Path[1024];
      snprintf(Proc, sizeof(Proc), "/proc/self/fd/%d", Fd);
      ssize_t N = readlink(Proc, Path, sizeof(Path) - 1);
      if (N < 0) { // closed behind our back: nothing to refuse
        note(Fd, false);
        continue;
      }
      Path[N] = 0;
      snprintf(Why, WhyCap,
               "descriptor %d (%s) is a Fortran unit's file, and ccc cannot "
               "restore Fortran units yet (after a restart, its unit would "
               "write to another file): CLOSE it before the site and reopen "
               "it after with POSITION='APPEND'",
               Fd, Path);
      return false;
    }
  }
  return true;
}
} // namespace ccc

using namespace ccc;

extern "C" {
int __wrap_open(const char *Path, int Flags, ...) {
  mode_t Mode = 0;
  if (Flags & (O_CREAT | O_TMPFILE)) {
    va_list Ap;
    va_start(Ap, Flags);
    Mode = va_arg(Ap, int);
    va_end(Ap);
  }
  int Fd = __real_open(Path, Flags, Mode);
  if (Fd >= 0 && fromFortranRuntime(__builtin_return_address(0)))
    note(Fd, true);
  return Fd;
}

int __wrap_mkstemp(char *Template) {
  int Fd = __real_mkstemp(Template);
  if (Fd >= 0 && fromFortranRuntime(__builtin_return_address(0)))
    note(Fd, true);
  return Fd;
}

int __wrap_close(int Fd) {
  note(Fd, false); // whoever closes it, it is no longer a unit's
  return __real_close(Fd);
}
}
