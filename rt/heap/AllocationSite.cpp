//===- AllocationSite.cpp - The user's code behind an allocation ----------===//
#include "AllocationSite.h"
#include "rt/layout/ElfSymbols.h"

#include <cstring>
#include <unwind.h>

namespace ccc {
namespace {
// flang's runtime library: Fortran::runtime and Fortran::decimal (C++
// names, const methods included) and its C entry points.
bool inLanguageRuntime(uintptr_t IP) {
  const char *F = executableFunctionAt(IP);
  if (!F)
    return false;
  return !strncmp(F, "_FortranA", 9) || !strncmp(F, "_ZN7Fortran", 11) ||
         !strncmp(F, "_ZNK7Fortran", 12);
}

struct Walk {
  uintptr_t Caller, Found;
  bool Seen;
  int Depth;
};

_Unwind_Reason_Code step(_Unwind_Context *C, void *Arg) {
  auto *W = static_cast<Walk *>(Arg);
  uintptr_t IP = _Unwind_GetIP(C);
  if (++W->Depth > 64)
    return _URC_END_OF_STACK;
  if (!W->Seen) { // the allocator's own frames, up to the runtime's call
    W->Seen = IP == W->Caller;
    return _URC_NO_REASON;
  }
  if (inLanguageRuntime(IP - 1))
    return _URC_NO_REASON;
  W->Found = IP;
  return _URC_END_OF_STACK;
}
} // namespace

uintptr_t allocationSite(uintptr_t Caller) {
  // A return address may be one past its function's end: look at the call.
  if (!Caller || !inLanguageRuntime(Caller - 1))
    return Caller;
  Walk W = {Caller, 0, false, 0};
  _Unwind_Backtrace(step, &W);
  return W.Found ? W.Found : Caller;
}
} // namespace ccc
