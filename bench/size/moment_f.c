// moment_f.c - moment.h for the Fortran kernels (bench/size): the same
// measurement moment and noise, with C names a Fortran interface can bind
// to (bind(c)). Compiled with ckpt-cc in the ccc build, so the site is a
// ccc site here, in the step's callee; with -DBENCH_PLAIN in the plain build.
//
// Putting the site here rather than in the Fortran loop changes nothing in
// the images: the pass's heap liveness proves no flang allocatable dead
// even with the site in the Fortran routine that allocates it (tried on a
// local scratch array overwritten whole every step), and for the globals'
// liveness a call of an external function may reach a site.
#include "moment.h"

void bench_site_f(long Step, int Rank, double OracleBytes) {
  bench_site(Step, Rank, OracleBytes);
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
