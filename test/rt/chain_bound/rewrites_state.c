// rewrites_state.c - STEPS forced checkpoints of 4 MiB of state of which
// PERCENT % is rewritten with new random bits between two checkpoints
// (100: a spectral code's whole state; 1: a code whose state barely
// changes). After each checkpoint it prints the bytes of this program's
// images in CCC_DIR, the largest image, and how many there are. With
// CHAIN_DIE_AT=K in its environment (read at each step: a restarted run
// has its own) it dies (_exit) right after checkpoint K, as a crash would,
// so that the next run restarts there; with CHAIN_EXIT_AT=K it calls
// exit(2) there instead (a failure the program reports itself).
#include "ccc.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WORDS (512 * 1024) // 4 MiB of 64-bit words

static uint64_t State[WORDS];
static uint64_t Seed = 88172645463325252ull;

static uint64_t next(void) {
  Seed ^= Seed << 13, Seed ^= Seed >> 7, Seed ^= Seed << 17;
  return Seed;
}

static void measureImages(long Step) {
  const char *Dir = getenv("CCC_DIR") ? getenv("CCC_DIR") : "ccc-ckpt";
  DIR *D = opendir(Dir);
  long long Total = 0, Largest = 0;
  int Count = 0;
  for (struct dirent *E; D && (E = readdir(D));) {
    size_t L = strlen(E->d_name);
    char P[4096];
    struct stat St;
    if (L < 4 || strcmp(E->d_name + L - 4, ".ccc"))
      continue;
    snprintf(P, sizeof(P), "%s/%s", Dir, E->d_name);
    if (stat(P, &St) != 0)
      continue;
    Total += St.st_size;
    Largest = St.st_size > Largest ? St.st_size : Largest;
    Count++;
  }
  if (D)
    closedir(D);
  printf("step %ld images %d bytes %lld largest %lld\n", Step, Count, Total,
         Largest);
  fflush(stdout);
}

int main(int argc, char **argv) {
  long Steps = argc > 1 ? atol(argv[1]) : 12;
  long Percent = argc > 2 ? atol(argv[2]) : 100;
  for (long I = 0; I < WORDS; ++I)
    State[I] = next();
  for (long S = 0; S < Steps; ++S) {
    ccc_checkpoint_force();
    measureImages(S);
    const char *DieAt = getenv("CHAIN_DIE_AT");
    if (DieAt && S == atol(DieAt))
      _exit(9);
    const char *ExitAt = getenv("CHAIN_EXIT_AT");
    if (ExitAt && S == atol(ExitAt))
      exit(2);
    long N = WORDS * Percent / 100, Start = (S * 7919) % WORDS;
    for (long I = 0; I < N; ++I)
      State[(Start + I) % WORDS] = next();
  }
  uint64_t H = 0;
  for (long I = 0; I < WORDS; ++I)
    H = H * 31 + State[I];
  printf("done %016llx\n", (unsigned long long)H);
  return 0;
}
