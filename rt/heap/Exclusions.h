//===- Exclusions.h - Memory left out of images -----------------*- C++ -*-===//
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

// Heap ranges and local variables of the program stack that the pass proved
// dead at the site being executed (__ccc_dead_at_site, called right before
// the slow path; and locals of its callers, from the pass's table): left
// out of the image taken in that slow-path call only.
// Kept outside the heap region, so no image holds them.
constexpr unsigned kMaxDeadAtSite = 64;
extern ExcludedRange DeadAtSite[kMaxDeadAtSite];
extern const char *DeadAtSiteWhere[kMaxDeadAtSite]; // allocation, for ckpt
extern unsigned NumDeadAtSite;
inline void forgetDeadAtSite() { NumDeadAtSite = 0; }
inline bool anyExcluded() { return (Excluded && Excluded->N) || NumDeadAtSite; }

// [Lo, Hi) was freed (heap lock held).
void forgetExclusionsIn(uintptr_t Lo, uintptr_t Hi);
// Calls Fn for each part of [A, A+L) not excluded (by either kind), in
// address order; stops
// and returns false when Fn does.
bool forEachIncludedPart(uint64_t A, uint64_t L,
                         bool (*Fn)(uint64_t A, uint64_t L, void *Ctx),
                         void *Ctx);
// Bytes excluded in total (ccc_exclude only).
uint64_t excludedBytes();
} // namespace ccc

// Marks [P, P+N) dead for the next image (the pass calls it before a site;
// the runtime for callers' dead locals).
extern "C" void __ccc_dead_at_site(const void *P, uint64_t N,
                                   const char *Where);
#endif
