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

#include <dlfcn.h>

namespace ccc {
// Not instrumented, builtins rather than std::atomic: a library may call
// before the sanitizer has mapped its shadow (a constructor's
// pthread_key_create).
template <typename F>
__attribute__((no_sanitize("address"))) F nextDefinition(void *&Cache,
                                                         const char *Name) {
  void *P = __atomic_load_n(&Cache, __ATOMIC_RELAXED);
  if (!P) {
    P = dlsym(RTLD_NEXT, Name);
    __atomic_store_n(&Cache, P, __ATOMIC_RELAXED);
  }
  return reinterpret_cast<F>(P);
}
} // namespace ccc
#endif
