// A shared library compiled with the pass, as a code's own solver library
// often is (libwave.so beside the program): an opaque handle from malloc,
// state in the library's globals, a thread-local, a log file it keeps
// open, a scratch array no site needs, and a checkpoint site of its own.
#include "pass_library.h"

#include "ccc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct wave {
  int n;
  double *u, *v;
};

// Written at every step: saved, by name.
static double wave_history[4096];
static long wave_steps;
// Overwritten whole before each read: dead at every site, left out.
static double wave_work[1 << 17];
// One per thread: saved through its getter.
static __thread long wave_calls;
static FILE *wave_log;

struct wave *wave_create(int n, const char *log_path) {
  struct wave *w = malloc(sizeof(*w));
  w->n = n;
  w->u = calloc(n, sizeof(double));
  w->v = calloc(n, sizeof(double));
  for (int i = 0; i < n; ++i)
    w->u[i] = (i > n / 3 && i < n / 2) ? 1.0 : 0.0;
  wave_log = fopen(log_path, "w");
  return w;
}

double wave_step(struct wave *w) {
  // The library's own site: a checkpoint taken inside it restarts into it.
  ccc_checkpoint();
  int n = w->n;
  for (int i = 0; i < (1 << 17); ++i)
    wave_work[i] = 0.5 * i;
  double work = 0;
  for (int i = 0; i < (1 << 17); i += 4096)
    work += wave_work[i];
  for (int i = 1; i < n - 1; ++i)
    w->v[i] += 0.25 * (w->u[i - 1] - 2 * w->u[i] + w->u[i + 1]);
  double e = 0;
  for (int i = 1; i < n - 1; ++i) {
    w->u[i] += w->v[i];
    e += w->u[i] * w->u[i] + w->v[i] * w->v[i];
  }
  wave_history[wave_steps % 4096] = e;
  ++wave_steps;
  ++wave_calls;
  fprintf(wave_log, "step %ld energy %.12e\n", wave_steps, e);
  return e + work * 1e-30;
}

double wave_summary(void) {
  double s = 0;
  for (int i = 0; i < 4096; ++i)
    s += wave_history[i];
  return s + wave_steps + wave_calls;
}

void wave_destroy(struct wave *w) {
  fclose(wave_log);
  free(w->u);
  free(w->v);
  free(w);
}
