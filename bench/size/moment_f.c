// moment_f.c - moment.h for the Fortran kernels (bench/size): the same
// measurement moment and noise, with C names a Fortran interface can bind
// to (bind(c)). Compiled with ckpt-cc in the ccc build, with -DBENCH_PLAIN
// in the plain build.
//
// The site itself is in the Fortran kernel (`call ccc_checkpoint()` or
// `call ccc_checkpoint_force()` as bench_forced_f says, then
// bench_after_site_f), where a real code would have it: the pass proves
// allocatables dead only at a site in the code that uses them.
#include "moment.h"

#ifdef BENCH_PLAIN
// The plain build's sites (Fortran's external names): nothing.
void ccc_checkpoint_(void) {}
void ccc_checkpoint_force_(void) {}
#endif

int bench_forced_f(long Step) { return bench_forced(Step); }

void bench_after_site_f(long Step, int Rank, double OracleBytes) {
  bench_after_site(Step, Rank, OracleBytes);
  bench_forget_live();
}

// bench_exclude / bench_include of moment.h (P: the first element of a
// Fortran array, passed by reference).
void bench_exclude_f(const void *P, int64_t Bytes) {
  bench_exclude(P, (size_t)Bytes);
}

void bench_include_f(const void *P) { bench_include(P); }

// bench_live of moment.h.
void bench_live_f(const void *P, int64_t Bytes) { bench_live(P, (size_t)Bytes); }

double bench_noise_f(int64_t G) { return bench_noise((uint64_t)G); }
