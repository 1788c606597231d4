//===- Exclusions.h - Memory the program promised need not be saved -*- C++ -*-//
//
// ccc_exclude(P, N) records a range of heap or global memory that the
// program recomputes before reading it again; checkpoints leave it out. The
// table lives in the heap region (so it is restored with the heap and the
// promise outlives a restart; RuntimeState::Exclusions points to it). A
// freed heap block drops the exclusions it overlapped: its memory may come
// back as live data of another allocation.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_RT_EXCLUSIONS_H
#define CCC_RT_EXCLUSIONS_H

#include <cstddef>
#include <cstdint>

namespace ccc {
struct ExcludedRange {
  uint64_t Addr, Len;
};
struct ExclusionTable {
  uint64_t N, Cap;
  ExcludedRange R[1]; // Cap entries
};

// Null until the first ccc_exclude.
extern ExclusionTable *Excluded;

// [Lo, Hi) was freed (heap lock held).
void forgetExclusionsIn(uintptr_t Lo, uintptr_t Hi);
// Calls Fn for each part of [A, A+L) not excluded, in address order; stops
// and returns false when Fn does.
bool forEachIncludedPart(uint64_t A, uint64_t L,
                         bool (*Fn)(uint64_t A, uint64_t L, void *Ctx),
                         void *Ctx);
// Bytes excluded in total.
uint64_t excludedBytes();
} // namespace ccc
#endif
