//===- AllocationSite.h - The user's code behind an allocation --*- C++ -*-===//
//
// `ckpt info` names each large heap block by the call that allocated it. A
// Fortran array allocated through flang's runtime (ALLOCATE with SOURCE=,
// derived types, assignment to an unallocated allocatable) reaches malloc
// from inside that runtime (Fortran::runtime::Descriptor::Allocate), which
// names nothing of the program: the site recorded is instead the first
// caller outside the language runtime, found by unwinding, which is done
// only for those allocations.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_RT_ALLOCATIONSITE_H
#define CCC_RT_ALLOCATIONSITE_H

#include <cstdint>

namespace ccc {
// Caller: the return address of the call that reached the allocator.
// Returns the return address in the program's own code that led to it.
uintptr_t allocationSite(uintptr_t Caller);
} // namespace ccc
#endif
