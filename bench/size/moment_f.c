// moment_f.c - moment.h for the Fortran kernels (bench/size): the same
// measurement moment and noise, with C names a Fortran interface can bind
// to (bind(c)). Compiled with ckpt-cc in the ccc build, so the site is a
// ccc site here, in the step's callee; with -DBENCH_PLAIN in the plain build.
//
// Putting the site here rather than in the Fortran loop changes nothing in
// the images: the pass's heap liveness does not prove flang's allocatables
// dead either way (their address is converted to an integer for the
// allocation-status test), and a call of an external function counts as a
// call that may reach a site for the globals' liveness.
#include "moment.h"

void bench_site_f(long Step, int Rank, double OracleBytes) {
  bench_site(Step, Rank, OracleBytes);
}

double bench_noise_f(int64_t G) { return bench_noise((uint64_t)G); }
