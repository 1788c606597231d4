// moment.h - the measurement moment of the size kernels (bench/size/run.py).
//
// Every kernel calls bench_site() at the top of its time step, where a real
// code would call ccc_checkpoint(). At step BENCH_AT (the environment; -1 or
// unset: never) it forces a checkpoint (the first, full image), writes
// "PID ORACLE_BYTES" to $BENCH_SIZE_DIR/ready.RANK and waits for
// $BENCH_SIZE_DIR/go.RANK, so that run.py can take the system-level images
// of this process at this moment (run.py takes them of the build without
// ccc, -DBENCH_PLAIN, stopped at the same step). The BENCH_INCR steps after
// it each force a checkpoint: the steady-state incremental images.
//
// ORACLE_BYTES is what the program's author would save by hand to continue
// from here: the data read after this point without being recomputed first
// (bench_live() names it; the plain build writes those bytes, at BENCH_AT
// and one step later, for run.py's codecs).
#ifndef BENCH_SIZE_MOMENT_H
#define BENCH_SIZE_MOMENT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#ifdef BENCH_PLAIN
// The baseline build (no ccc): the system-level images are taken of it.
static inline int ccc_checkpoint(void) { return 0; }
static inline int ccc_checkpoint_force(void) { return 0; }
static inline int ccc_exclude(const void *P, size_t N) { return 0; }
static inline int ccc_include(const void *P) { return 0; }
#else
#include "ccc.h"
#endif

// Hashed noise in [-0.5, 0.5): as incompressible as measured data, and the
// same bits in every build.
static inline double bench_noise(uint64_t G) {
  uint64_t H = G * 0x9e3779b97f4a7c15ull;
  H ^= H >> 31;
  H *= 0x94d049bb133111ebull;
  H ^= H >> 29;
  return (double)(H >> 11) / 9007199254740992.0 - 0.5;
}

// The kernel's own promise (ccc_exclude) that the Bytes at P are recomputed
// before they are read after a site: for scratch that the pass cannot prove
// dead (forces written through linked cells, flang allocatables). Made only
// with BENCH_EXCLUDE=1 in the environment, so that run.py measures such a
// kernel both ways: the analysis alone, and with the user's promise.
static inline int bench_excluding(void) {
  static int On = -1;
  if (On < 0) {
    const char *E = getenv("BENCH_EXCLUDE");
    On = E && atoi(E) == 1;
  }
  return On;
}

static inline void bench_exclude(const void *P, size_t Bytes) {
  if (bench_excluding() && ccc_exclude(P, Bytes) != 0) {
    fprintf(stderr, "bench: ccc_exclude(%p, %zu) failed\n", P, Bytes);
    exit(2);
  }
}

static inline void bench_include(const void *P) {
  if (bench_excluding() && ccc_include(P) != 0) {
    fprintf(stderr, "bench: ccc_include(%p) failed\n", P);
    exit(2);
  }
}

// The kernel's live data at the next site, what its author would save by
// hand (the oracle): registered with bench_live() before every
// bench_site(), which forgets it. At the moment the plain build writes
// these bytes to $BENCH_SIZE_DIR/live.RANK (run.py compresses them as it
// compresses the system-level images), and they must add up to
// ORACLE_BYTES, which the kernel computes on its own. In the ccc build
// bench_live() does nothing: its addresses stored in a list would count
// as escapes in the pass's analysis and change what ccc saves. Nor in a
// plain build with BENCH_NO_ORACLE (bench/overhead: the recording changed
// clang's code for cg's main, 4 % fewer instructions per step, which was
// then counted against ccc).
#if !defined(BENCH_PLAIN) || defined(BENCH_NO_ORACLE)
static inline void bench_live(const void *P, size_t Bytes) {
  (void)P;
  (void)Bytes;
}
static inline void bench_write_live(const char *Path, double OracleBytes) {
  (void)Path;
  (void)OracleBytes;
}
static inline void bench_forget_live(void) {}
#else
typedef struct {
  const void *P;
  size_t N;
} BenchRange;
static BenchRange *BenchLive;
static size_t BenchLiveN, BenchLiveCap;

static inline void bench_live(const void *P, size_t Bytes) {
  if (BenchLiveN == BenchLiveCap) {
    BenchLiveCap = BenchLiveCap ? 2 * BenchLiveCap : 64;
    BenchLive = (BenchRange *)realloc(BenchLive,
                                      BenchLiveCap * sizeof(*BenchLive));
    if (!BenchLive) {
      perror("bench_live");
      exit(2);
    }
  }
  BenchLive[BenchLiveN].P = P;
  BenchLive[BenchLiveN++].N = Bytes;
}

static inline void bench_forget_live(void) { BenchLiveN = 0; }

// Writes the live bytes to Path (through a temporary name); exits unless
// they add up to OracleBytes.
static inline void bench_write_live(const char *Path, double OracleBytes) {
  char T[4096 + 8];
  snprintf(T, sizeof(T), "%s.tmp", Path);
  FILE *F = fopen(T, "wb");
  double Sum = 0;
  for (size_t I = 0; F && I < BenchLiveN; ++I) {
    if (fwrite(BenchLive[I].P, 1, BenchLive[I].N, F) != BenchLive[I].N)
      break;
    Sum += (double)BenchLive[I].N;
  }
  if (!F || fclose(F) != 0 || rename(T, Path) != 0) {
    perror(T);
    exit(2);
  }
  if (Sum != OracleBytes) {
    fprintf(stderr, "bench: live ranges hold %.0f bytes, the oracle %.0f\n",
            Sum, OracleBytes);
    exit(2);
  }
}
#endif

// BENCH_AT, BENCH_INCR and BENCH_SIZE_DIR, read once.
static long BenchAt = -2, BenchIncr;
static const char *BenchDir;
static void bench_read_env(void) {
  if (BenchAt != -2)
    return;
  const char *A = getenv("BENCH_AT"), *I = getenv("BENCH_INCR");
  BenchAt = A ? atol(A) : -1;
  BenchIncr = I ? atol(I) : 0;
  BenchDir = getenv("BENCH_SIZE_DIR");
}

// Whether the site of step Step forces a checkpoint: the moment and the
// BENCH_INCR steps after it.
static int bench_forced(long Step) {
  bench_read_env();
  return BenchAt >= 0 && Step >= BenchAt && Step <= BenchAt + BenchIncr;
}

// Right after the site of step Step: at the moment, the live bytes and the
// handshake with run.py; one step on, the live bytes again.
static void bench_after_site(long Step, int Rank, double OracleBytes) {
  if (!bench_forced(Step) || !BenchDir)
    return;
  const char *Dir = BenchDir;
  long At = BenchAt;
  char P[4096], T[4096];
  if (Step == At + 1) { // the same arrays one step on: what changed
    snprintf(P, sizeof(P), "%s/live.%d.next", Dir, Rank);
    bench_write_live(P, OracleBytes);
  }
  if (Step != At)
    return;
  snprintf(P, sizeof(P), "%s/live.%d", Dir, Rank);
  bench_write_live(P, OracleBytes);
  snprintf(T, sizeof(T), "%s/ready.%d.tmp", Dir, Rank);
  snprintf(P, sizeof(P), "%s/ready.%d", Dir, Rank);
  FILE *F = fopen(T, "w");
  if (!F) {
    perror(T);
    exit(2);
  }
  fprintf(F, "%d %.0f\n", (int)getpid(), OracleBytes);
  fclose(F);
  rename(T, P);
  snprintf(P, sizeof(P), "%s/go.%d", Dir, Rank);
  while (access(P, F_OK) != 0)
    usleep(10000);
}

static void bench_site(long Step, int Rank, double OracleBytes) {
  if (bench_forced(Step))
    ccc_checkpoint_force();
  else
    ccc_checkpoint();
  bench_after_site(Step, Rank, OracleBytes);
  bench_forget_live();
}
#endif
