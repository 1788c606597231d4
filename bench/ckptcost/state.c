// state.c - N MiB of application state (3/4 smooth doubles, 1/4 integers)
// for bench/ckptcost/run.py.
//   state MB dump FILE   writes the state's raw bytes to FILE (the
//                        baseline's input) and exits
//   state MB ckpt        takes one forced checkpoint and prints its time
//   state MB ckpt        (run again with CCC_RESTART=require) restarts from
//                        it and exits as soon as the site returns
//   state MB steps K     K forced checkpoints; after each, steps (one pass
//                        rewriting every double) until its commit record
//                        exists ("busy": a background write runs, under
//                        CCC_ASYNC=1) and then 3 more ("idle"); prints
//                        each checkpoint's stall and each step's time
//   state MB forks K     fork() as the snapshot, K times: the child reads
//                        the whole state and lives 0.4 s (as a writer
//                        would), the parent steps meanwhile ("cow": the
//                        first step, which copies every page it writes;
//                        "busy": the others) and 3 steps after it ended
#include "ccc.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return T.tv_sec + 1e-9 * T.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  size_t Bytes = (size_t)(atof(argv[1]) * 1048576) / 32 * 32;
  size_t ND = Bytes / 4 * 3 / 8, NI = Bytes / 4 / 8;
  double *D = malloc(ND * sizeof(double));
  uint64_t *I64 = malloc(NI * sizeof(uint64_t));
  for (size_t I = 0; I < ND; ++I)
    D[I] = sin(1e-4 * (double)I) * exp(-1e-9 * (double)I);
  for (size_t I = 0; I < NI; ++I)
    I64[I] = I / 3 * 2654435761u % 100000;
  if (!strcmp(argv[2], "dump")) {
    FILE *F = fopen(argv[3], "wb");
    if (!F || fwrite(D, 8, ND, F) != ND || fwrite(I64, 8, NI, F) != NI ||
        fclose(F))
      return 1;
    return 0;
  }
  if (!strcmp(argv[2], "forks")) {
    int K = argc > 3 ? atoi(argv[3]) : 4;
    for (int C = 1; C <= K; ++C) {
      double T0 = now();
      pid_t P = fork();
      if (P == 0) {
        volatile double S = 0;
        for (size_t I = 0; I < ND; I += 8)
          S += D[I];
        usleep(400000);
        _exit(0);
      }
      printf("fork %d %.6f\n", C, now() - T0);
      int Alive = 1;
      for (int N = 0, Idle = 0; Idle < 3; ++N) {
        double S0 = now();
        for (size_t I = 0; I < ND; ++I)
          D[I] = D[I] * 0.999 + 1e-3;
        printf("step %s %.6f\n",
               !Alive ? "idle"
               : N    ? "busy"
                      : "cow",
               now() - S0);
        Idle += !Alive;
        if (Alive && waitpid(P, NULL, WNOHANG) == P)
          Alive = 0;
      }
    }
    printf("sum %.12e\n", D[ND / 2]);
    return 0;
  }
  if (!strcmp(argv[2], "steps")) {
    int K = argc > 3 ? atoi(argv[3]) : 4;
    const char *Dir = getenv("CCC_DIR"), *Name = getenv("CCC_NAME");
    for (int C = 1; C <= K; ++C) {
      double T0 = now();
      if (ccc_checkpoint_force() != CCC_TAKEN)
        return 1;
      printf("stall %d %.6f\n", C, now() - T0);
      char Commit[4096];
      snprintf(Commit, sizeof(Commit), "%s/%s.v%06d.commit", Dir, Name, C);
      for (int Idle = 0; Idle < 3;) {
        int Busy = access(Commit, F_OK) != 0;
        double S0 = now();
        for (size_t I = 0; I < ND; ++I)
          D[I] = D[I] * 0.999 + 1e-3;
        printf("step %s %.6f\n", Busy ? "busy" : "idle", now() - S0);
        Idle += !Busy;
      }
    }
    printf("sum %.12e\n", D[ND / 2]);
    return 0;
  }
  double T0 = now();
  int R = ccc_checkpoint_force();
  double T1 = now();
  if (R == CCC_RESTARTED) {
    printf("restarted %.12e\n", D[ND / 2] + (double)I64[NI / 2]);
    return 0;
  }
  printf("checkpoint %.6f s %s\n", T1 - T0, R == CCC_TAKEN ? "taken" : "NOT");
  return R == CCC_TAKEN ? 0 : 1;
}
