//===- Process.h - What identifies this process's layout --------*- C++ -*-===//
//
// The facts a restart must check before writing a single byte: the build id
// of the executable, where every file is mapped (libraries must land at the
// same addresses), and the table of globals the pass registered.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_RT_PROCESS_H
#define CCC_RT_PROCESS_H

#include <cstddef>
#include <cstdint>

#include "ccc/abi.h"

namespace ccc {
// NT_GNU_BUILD_ID of the executable, or a hash of its file if it has none.
uint32_t executableBuildId(uint8_t *Out, uint32_t Cap);

// "start path\n" for every file mapping with offset 0 and for [vdso], in
// address order. Returns the length (truncated to Cap-1, NUL-terminated).
size_t currentLoadMap(char *Buf, size_t Cap);
// Compares two load maps: every path present in both must start at the same
// address. Returns false and describes the first difference in Why.
bool loadMapsCompatible(const char *Saved, const char *Now, char *Why,
                        size_t WhyCap);

struct GlobalRange {
  uintptr_t Addr;
  uint64_t Size;
  const char *Name;
  void *(*TlsGetter)(); // non-null for thread-locals (Addr unused)
  uint32_t Flags;       // CCC_GLOBAL_* of its record
  // Left out of images: comes back from the binary, or its value is never
  // read after a site (the pass proved it).
  bool unsaved() const {
    return Flags & (CCC_GLOBAL_NEVER_WRITTEN | CCC_GLOBAL_DEAD_AT_SITES |
                    CCC_GLOBAL_OPENMP_STATE);
  }
  // Its address now (the calling thread's instance of a thread-local).
  uintptr_t address() const {
    return TlsGetter ? reinterpret_cast<uintptr_t>(TlsGetter()) : Addr;
  }
};
// The registered globals, sorted by address, duplicates merged. Built once.
const GlobalRange *registeredGlobals(size_t *Count);
} // namespace ccc
#endif
