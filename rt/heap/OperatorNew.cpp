//===- OperatorNew.cpp - C++ operator new/delete in the saved region ------===//
//
// A C++ program's objects are allocated by the global operator new, often
// from inside libstdc++.so (std::string's members are instantiated there,
// not in the program), where the pass cannot reach. Defining every
// replaceable operator new/delete in the executable replaces them for the
// whole process, libstdc++ included, as the C++ standard allows.
//
// This file is its own archive member: a C or Fortran program never refers
// to operator new, never pulls it in, and so needs no libstdc++. It is the
// one runtime file built with exceptions, since operator new must throw
// std::bad_alloc.
//
//===----------------------------------------------------------------------===//
#include "HeapRegion.h"

#include <cstddef>
#include <new>

namespace {
// The standard's loop: call the new_handler until memory appears, or throw.
// Inlined into each operator new, so the return address it records for
// `ckpt info` is the new-expression's.
[[gnu::always_inline]] inline void *allocate(std::size_t N, std::size_t Align,
                                             bool Throw) {
  if (N == 0)
    N = 1;
  const void *Caller = __builtin_return_address(0);
  for (;;) {
    void *P = Align <= __STDCPP_DEFAULT_NEW_ALIGNMENT__
                  ? ccc::heapAllocFrom(N, Caller)
                  : ccc::heapMemalignFrom(Align, N, Caller);
    if (P)
      return P;
    std::new_handler H = std::get_new_handler();
    if (!H) {
      if (Throw)
        throw std::bad_alloc();
      return nullptr;
    }
    if (!Throw) {
      try {
        H();
      } catch (...) {
        return nullptr;
      }
    } else {
      H();
    }
  }
}

constexpr std::size_t kDefault = __STDCPP_DEFAULT_NEW_ALIGNMENT__;
} // namespace

// Weak, so that a program replacing some of them itself (a pool allocator)
// still links; its versions win, and memory they take from malloc or from
// a global is saved all the same.
#define CCC_REPLACEABLE __attribute__((weak))

using std::align_val_t;
using std::nothrow_t;
using std::size_t;

CCC_REPLACEABLE void *operator new(size_t N) {
  return allocate(N, kDefault, true);
}
CCC_REPLACEABLE void *operator new[](size_t N) {
  return allocate(N, kDefault, true);
}
CCC_REPLACEABLE void *operator new(size_t N, const nothrow_t &) noexcept {
  return allocate(N, kDefault, false);
}
CCC_REPLACEABLE void *operator new[](size_t N, const nothrow_t &) noexcept {
  return allocate(N, kDefault, false);
}
CCC_REPLACEABLE void *operator new(size_t N, align_val_t A) {
  return allocate(N, static_cast<size_t>(A), true);
}
CCC_REPLACEABLE void *operator new[](size_t N, align_val_t A) {
  return allocate(N, static_cast<size_t>(A), true);
}
CCC_REPLACEABLE void *operator new(size_t N, align_val_t A,
                                   const nothrow_t &) noexcept {
  return allocate(N, static_cast<size_t>(A), false);
}
CCC_REPLACEABLE void *operator new[](size_t N, align_val_t A,
                                     const nothrow_t &) noexcept {
  return allocate(N, static_cast<size_t>(A), false);
}

// __ccc_free frees aligned blocks and blocks of other allocators too.
CCC_REPLACEABLE void operator delete(void *P) noexcept { __ccc_free(P); }
CCC_REPLACEABLE void operator delete[](void *P) noexcept { __ccc_free(P); }
CCC_REPLACEABLE void operator delete(void *P, size_t) noexcept {
  __ccc_free(P);
}
CCC_REPLACEABLE void operator delete[](void *P, size_t) noexcept {
  __ccc_free(P);
}
CCC_REPLACEABLE void operator delete(void *P, const nothrow_t &) noexcept {
  __ccc_free(P);
}
CCC_REPLACEABLE void operator delete[](void *P, const nothrow_t &) noexcept {
  __ccc_free(P);
}
CCC_REPLACEABLE void operator delete(void *P, align_val_t) noexcept {
  __ccc_free(P);
}
CCC_REPLACEABLE void operator delete[](void *P, align_val_t) noexcept {
  __ccc_free(P);
}
CCC_REPLACEABLE void operator delete(void *P, size_t, align_val_t) noexcept {
  __ccc_free(P);
}
CCC_REPLACEABLE void operator delete[](void *P, size_t, align_val_t) noexcept {
  __ccc_free(P);
}
CCC_REPLACEABLE void operator delete(void *P, align_val_t,
                                     const nothrow_t &) noexcept {
  __ccc_free(P);
}
CCC_REPLACEABLE void operator delete[](void *P, align_val_t,
                                       const nothrow_t &) noexcept {
  __ccc_free(P);
}
