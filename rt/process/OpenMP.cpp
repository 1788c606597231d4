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

#include <dlfcn.h>

namespace ccc {
namespace {
using IntFn = int (*)();

// Resolved once, at the first slow path that asks: by then every library
// of the program is loaded (OpenMP's, if any, is not dlopen()ed later in
// practice; a site before it would see no OpenMP and need no check).
struct OmpFunctions {
  IntFn Level = nullptr, InExplicitTask = nullptr;
};

// Only the main thread calls it (checked before), so no lock.
const OmpFunctions &ompFunctions() {
  static bool Looked;
  static OmpFunctions F;
  if (!Looked) {
    F.Level = reinterpret_cast<IntFn>(dlsym(RTLD_DEFAULT, "omp_get_level"));
    F.InExplicitTask =
        reinterpret_cast<IntFn>(dlsym(RTLD_DEFAULT, "omp_in_explicit_task"));
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
  // Any entry point that needs the caller's thread number registers it.
  if (const OmpFunctions &F = ompFunctions(); F.Level)
    F.Level();
}
} // namespace ccc
