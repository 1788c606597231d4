//===- OpenMP.cpp - Whether an OpenMP construct is active at a site -------===//
//
// An image holds the main thread's stack and the program's memory, not the
// OpenMP runtime's: its thread pool, team and task descriptors live in
// libomp's (or libgomp's) own data and in glibc's heap, and a restarted
// process builds them afresh. That is exact at a site outside every
// parallel region and task, where the workers only wait for the next
// region. Inside one, the image would miss the other threads' stacks and
// the task's data: no checkpoint is taken there.
//
// A restarted process has a fresh OpenMP runtime, but the restored frames
// may hold the main thread's OpenMP thread number (clang and flang fetch it
// once at a function's entry, __kmpc_global_thread_num, and pass it to
// every __kmpc_* call after). Registering the main thread first again, at
// the restored site, gives it the same number, 0, as in the first run.
//
// The OpenMP functions are looked up at run time, not linked: a program
// without OpenMP must not need libomp, and one whose OpenMP comes from a
// library (libgomp under a BLAS) is checked as well.
//
//===----------------------------------------------------------------------===//
#include "RuntimeGlobals.h"

#include "ccc/abi.h"

#include <dlfcn.h>

extern "C" {
// The pass's records of threadprivate caches (ccc/abi.h).
extern const ccc_omp_threadprivate_record __start_ccc_omp_threadprivate[]
    __attribute__((weak));
extern const ccc_omp_threadprivate_record __stop_ccc_omp_threadprivate[]
    __attribute__((weak));
}

namespace ccc {
namespace {
using IntFn = int (*)();
using CachedFn = void *(*)(void *Loc, int Gtid, void *Data, size_t Size,
                           void ***Cache);

// Resolved once, at the first slow path that asks: by then every library
// of the program is loaded (OpenMP's, if any, is not dlopen()ed later in
// practice; a site before it would see no OpenMP and need no check).
struct OmpFunctions {
  IntFn Level = nullptr, InExplicitTask = nullptr;
  CachedFn ThreadprivateCached = nullptr;
  int (*GlobalThreadNum)(void *Loc) = nullptr;
};

// Only the main thread calls it (checked before), so no lock.
const OmpFunctions &ompFunctions() {
  static bool Looked;
  static OmpFunctions F;
  if (!Looked) {
    F.Level = reinterpret_cast<IntFn>(dlsym(RTLD_DEFAULT, "omp_get_level"));
    F.InExplicitTask =
        reinterpret_cast<IntFn>(dlsym(RTLD_DEFAULT, "omp_in_explicit_task"));
    F.ThreadprivateCached = reinterpret_cast<CachedFn>(
        dlsym(RTLD_DEFAULT, "__kmpc_threadprivate_cached"));
    F.GlobalThreadNum = reinterpret_cast<int (*)(void *)>(
        dlsym(RTLD_DEFAULT, "__kmpc_global_thread_num"));
    Looked = true;
  }
  return F;
}
} // namespace

const char *openMPConstructAtSite() {
  const OmpFunctions &F = ompFunctions();
  // omp_get_level counts enclosing parallel regions, active or not (a team
  // of one thread, an if(0) region): its frame is the outlined region's.
  if (F.Level && F.Level() > 0)
    return "inside an OpenMP parallel region";
  // An undeferred task outside every region runs on the main thread, but
  // its data is the OpenMP runtime's.
  if (F.InExplicitTask && F.InExplicitTask())
    return "inside an OpenMP task";
  return nullptr;
}

void initOpenMPAfterRestart() {
  const OmpFunctions &F = ompFunctions();
  // Any entry point that needs the caller's thread number registers it.
  if (!F.Level)
    return;
  F.Level();
  // Outside any region, libomp makes the variable itself the main thread's
  // copy (see ccc_omp_threadprivate_record).
  if (F.ThreadprivateCached && F.GlobalThreadNum)
    for (const ccc_omp_threadprivate_record *R = __start_ccc_omp_threadprivate;
         R < __stop_ccc_omp_threadprivate; ++R)
      F.ThreadprivateCached(nullptr, F.GlobalThreadNum(nullptr), R->data,
                            R->size, R->cache);
}
} // namespace ccc
