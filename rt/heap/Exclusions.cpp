//===- Exclusions.cpp - Memory the program promised need not be saved -----===//
#include "Exclusions.h"
#include "HeapRegion.h"
#include "rt/common/Log.h"
#include "rt/layout/Process.h"
#include "rt/layout/ProgramStack.h"

#include "ccc.h"

#include <cstring>

namespace ccc {
ExclusionTable *Excluded = nullptr;
ExcludedRange DeadAtSite[kMaxDeadAtSite];
const char *DeadAtSiteWhere[kMaxDeadAtSite];
unsigned NumDeadAtSite;

void forgetExclusionsIn(uintptr_t Lo, uintptr_t Hi) {
  ExclusionTable *T = Excluded;
  for (uint64_t I = 0; I < T->N;) {
    const ExcludedRange &X = T->R[I];
    if (X.Addr < Hi && X.Addr + X.Len > Lo)
      T->R[I] = T->R[--T->N];
    else
      ++I;
  }
}

// The excluded range (of either kind) overlapping [Cur, End) that starts
// first, or null.
static const ExcludedRange *firstExcluded(uint64_t Cur, uint64_t End) {
  const ExcludedRange *First = nullptr;
  auto Consider = [&](const ExcludedRange &X) {
    if (X.Addr < End && X.Addr + X.Len > Cur &&
        (!First || X.Addr < First->Addr))
      First = &X;
  };
  for (uint64_t I = 0; Excluded && I < Excluded->N; ++I)
    Consider(Excluded->R[I]);
  for (unsigned I = 0; I < NumDeadAtSite; ++I)
    Consider(DeadAtSite[I]);
  return First;
}

bool forEachIncludedPart(uint64_t A, uint64_t L,
                         bool (*Fn)(uint64_t, uint64_t, void *), void *Ctx) {
  uint64_t End = A + L, Cur = A;
  while (Cur < End) {
    const ExcludedRange *First = firstExcluded(Cur, End);
    if (!First)
      return Fn(Cur, End - Cur, Ctx);
    if (First->Addr > Cur && !Fn(Cur, First->Addr - Cur, Ctx))
      return false;
    Cur = First->Addr + First->Len;
  }
  return true;
}

uint64_t excludedBytes() {
  uint64_t B = 0;
  for (uint64_t I = 0; Excluded && I < Excluded->N; ++I)
    B += Excluded->R[I].Len;
  return B;
}

// Whether [A, A+L) lies in the heap region or in one registered global.
static bool excludable(uintptr_t A, size_t L) {
  if (heapIsMapped() && A >= heapBase() && L <= heapReserve() &&
      A - heapBase() <= heapReserve() - L)
    return true;
  size_t NG;
  const GlobalRange *G = registeredGlobals(&NG);
  for (size_t I = 0; I < NG; ++I)
    if (!G[I].TlsGetter && A >= G[I].Addr && L <= G[I].Size &&
        A - G[I].Addr <= G[I].Size - L)
      return true;
  return false;
}
} // namespace ccc

using namespace ccc;

extern "C" int ccc_exclude(const void *P, size_t N) {
  uintptr_t A = reinterpret_cast<uintptr_t>(P);
  // N == 0, or ccc is not active (no pass, CCC_DISABLE): nothing is saved.
  if (N == 0 || !heapIsMapped())
    return 0;
  if (!excludable(A, N)) {
    logMessage("ccc_exclude(%p, %zu): not excluded: only heap memory and "
               "global variables can be (stack memory is reused when its "
               "function returns; library memory is never saved anyway)",
               P, N);
    return -1;
  }
  ExclusionTable *T = Excluded;
  if (!T || T->N == T->Cap) {
    uint64_t Cap = T ? 2 * T->Cap : 16;
    auto *New = static_cast<ExclusionTable *>(__ccc_malloc(
        sizeof(ExclusionTable) + (Cap - 1) * sizeof(ExcludedRange)));
    if (!New) {
      logMessage("ccc_exclude(%p, %zu): out of memory", P, N);
      return -1;
    }
    New->N = T ? T->N : 0;
    New->Cap = Cap;
    if (T)
      memcpy(New->R, T->R, T->N * sizeof(ExcludedRange));
    Excluded = New;
    __ccc_free(T);
    T = New;
  }
  T->R[T->N++] = {A, N};
  return 0;
}

// Emitted by the pass right before a site's slow path. Only heap memory
// and the program stack are taken (a null or failed allocation, or
// anything else, is ignored); beyond kMaxDeadAtSite ranges the rest is
// simply saved.
extern "C" void __ccc_dead_at_site(const void *P, uint64_t N,
                                   const char *Where) {
  uintptr_t A = reinterpret_cast<uintptr_t>(P);
  if (N == 0 || NumDeadAtSite == kMaxDeadAtSite || !heapIsMapped())
    return;
  // Another thread's site (an OpenMP worker's): what is dead there may be
  // live for the main thread, and the list is the main thread's alone.
  if (!inProgramStack(reinterpret_cast<uintptr_t>(__builtin_frame_address(0)),
                      1))
    return;
  bool InHeap = A >= heapBase() && N <= heapReserve() &&
                A - heapBase() <= heapReserve() - N;
  if (!InHeap && !inProgramStack(A, N))
    return;
  DeadAtSiteWhere[NumDeadAtSite] = Where;
  DeadAtSite[NumDeadAtSite++] = {A, N};
}

extern "C" int ccc_include(const void *P) {
  uintptr_t A = reinterpret_cast<uintptr_t>(P);
  int Found = -1;
  for (uint64_t I = 0; Excluded && I < Excluded->N;) {
    if (Excluded->R[I].Addr == A) {
      Excluded->R[I] = Excluded->R[--Excluded->N];
      Found = 0;
    } else {
      ++I;
    }
  }
  return Found;
}

// No Fortran implicit-interface names (ccc_exclude_): a default-integer
// byte count passed by reference would be read as 8 bytes. Fortran uses
// the bind(c) interfaces of module ccc (include/ccc.f90).
