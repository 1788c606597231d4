//===- NextDefinition.h - The libc function the runtime stands in for ----===//
//
// The executable defines some libc functions (malloc, open, pthread_create,
// ...) so that shared libraries' calls reach the runtime, which passes the
// calls it does not keep to the next definition: libc's, or a sanitizer's
// in front of it. Found at the first call (dlsym may allocate: by then the
// runtime's malloc answers), then cached.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_RT_NEXTDEFINITION_H
#define CCC_RT_NEXTDEFINITION_H

#include <atomic>
#include <dlfcn.h>

namespace ccc {
template <typename F>
F nextDefinition(std::atomic<void *> &Cache, const char *Name) {
  void *P = Cache.load(std::memory_order_relaxed);
  if (!P) {
    P = dlsym(RTLD_NEXT, Name);
    Cache.store(P, std::memory_order_relaxed);
  }
  return reinterpret_cast<F>(P);
}
} // namespace ccc
#endif
