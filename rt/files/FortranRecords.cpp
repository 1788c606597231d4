//===- FortranRecords.cpp - Units left inside a record
//---------------------===//
//
// A non-advancing READ or WRITE (ADVANCE='NO') leaves its unit inside a
// record, a state flang's interface neither reports nor lets a restart
// rebuild (and flang 19's FLUSH there corrupts the record: the next WRITE
// overwrites what was flushed). FortranUnits.cpp refuses a checkpoint with
// such a unit, so it must know: every ccc link wraps the calls that begin a
// formatted READ or WRITE on a unit and the one that makes it non-advancing
// (CCC_OBSERVED_FUNCTIONS in ccc/abi.h). A unit is inside a record from a
// non-advancing statement until the next advancing formatted statement on
// it (list-directed and unformatted ones are not seen: a unit stays marked
// until then, which can only refuse a checkpoint, never lose a record).
//
// This file is linked only into programs that make these calls (their
// wrapped references pull it from libccc_rt.a); FortranUnits.cpp asks
// through a weak reference.
//
//===----------------------------------------------------------------------===//
#include "FortranIo.h"

#include <atomic>
#include <cstring>
#include <pthread.h>

using ccc::fio::Cookie;

extern "C" {
Cookie __real__FortranAioBeginExternalFormattedOutput(const char *, size_t,
                                                      const void *, int,
                                                      const char *, int);
Cookie __real__FortranAioBeginExternalFormattedInput(const char *, size_t,
                                                     const void *, int,
                                                     const char *, int);
bool __real__FortranAioSetAdvance(Cookie, const char *, size_t);
}

namespace ccc {
namespace {
// The statement this thread began last, and its unit.
thread_local Cookie LastCookie;
thread_local int LastUnit;

// Units inside a record; Overflow: more than the set holds, any may be.
constexpr int kMaxMarked = 64;
pthread_mutex_t Lock = PTHREAD_MUTEX_INITIALIZER;
int Marked[kMaxMarked];
std::atomic<int> NMarked{0};
bool Overflow;

void mark(int Unit, bool Inside) {
  pthread_mutex_lock(&Lock);
  int N = NMarked.load(std::memory_order_relaxed);
  int I = 0;
  while (I < N && Marked[I] != Unit)
    ++I;
  if (Inside && I == N) {
    if (N == kMaxMarked)
      Overflow = true;
    else
      Marked[N++] = Unit;
  } else if (!Inside && I < N) {
    Marked[I] = Marked[--N];
  }
  NMarked.store(N, std::memory_order_relaxed);
  pthread_mutex_unlock(&Lock);
}

void began(Cookie C, int Unit) {
  LastCookie = C;
  LastUnit = Unit;
  // Advancing unless SetAdvance says otherwise.
  if (NMarked.load(std::memory_order_relaxed) > 0)
    mark(Unit, false);
}

bool isNo(const char *S, size_t N) {
  while (N > 0 && S[N - 1] == ' ')
    --N;
  return N == 2 && (S[0] == 'N' || S[0] == 'n') && (S[1] == 'O' || S[1] == 'o');
}
} // namespace

bool fortranUnitInRecord(int Unit) {
  pthread_mutex_lock(&Lock);
  bool In = Overflow;
  for (int I = 0, N = NMarked.load(std::memory_order_relaxed); I < N; ++I)
    In |= Marked[I] == Unit;
  pthread_mutex_unlock(&Lock);
  return In;
}
} // namespace ccc

extern "C" {
Cookie
__wrap__FortranAioBeginExternalFormattedOutput(const char *Format, size_t Len,
                                               const void *Desc, int Unit,
                                               const char *File, int Line) {
  Cookie C = __real__FortranAioBeginExternalFormattedOutput(Format, Len, Desc,
                                                            Unit, File, Line);
  ccc::began(C, Unit);
  return C;
}

Cookie __wrap__FortranAioBeginExternalFormattedInput(const char *Format,
                                                     size_t Len,
                                                     const void *Desc, int Unit,
                                                     const char *File,
                                                     int Line) {
  Cookie C = __real__FortranAioBeginExternalFormattedInput(Format, Len, Desc,
                                                           Unit, File, Line);
  ccc::began(C, Unit);
  return C;
}

bool __wrap__FortranAioSetAdvance(Cookie C, const char *S, size_t N) {
  if (C == ccc::LastCookie && ccc::isNo(S, N))
    ccc::mark(ccc::LastUnit, true);
  return __real__FortranAioSetAdvance(C, S, N);
}
}
