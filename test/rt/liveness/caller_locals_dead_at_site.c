// caller_locals_dead_at_site.c - the site is two calls down: main and
// advance() each hold a 2 MiB scratch array on the stack that they refill
// whole after every call of the function below them, before reading it.
// The pass records both as dead after those calls (FrameLiveness.cpp); at
// a checkpoint the runtime finds the two frames by unwinding and leaves the
// arrays out. A restart leaves whatever the fresh stack holds there, and
// the result is still the uninterrupted one. main's 8 KiB history, read
// after every call, must come back whole.
#include "ccc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 1 << 18 };

__attribute__((noinline)) static void step(uint64_t *State, long S) {
  ccc_checkpoint();
  for (long I = 0; I < 4096; ++I)
    State[I] = State[I] * 6364136223846793005ull + (uint64_t)S;
}

__attribute__((noinline)) static void advance(uint64_t *State, long S) {
  double Tmp[N];
  step(State, S);
  for (long I = 0; I < N; ++I)
    Tmp[I] = (double)(State[I % 4096] & 0xffff) * 0.25;
  for (long I = 0; I < 4096; ++I)
    State[I] ^= (uint64_t)Tmp[(I * 131 + S) % N];
}

int main(int argc, char **argv) {
  long Steps = argc > 1 ? atol(argv[1]) : 100;
  uint64_t *State = calloc(4096, sizeof(uint64_t));
  double Work[N];
  uint64_t History[1024] = {0};
  for (long S = 0; S < Steps; ++S) {
    advance(State, S);
    History[S % 1024] = History[(S + 1) % 1024] * 3 + State[S % 4096];
    for (long I = 0; I < N; ++I)
      Work[I] = (double)((I * 2654435761u + S) & 0xffff) * 0.5;
    for (long I = 0; I < 4096; ++I)
      State[I] = State[I] * 31 + (uint64_t)Work[(I * 977 + S) % N];
  }
  uint64_t H = 0;
  for (long I = 0; I < 4096; ++I)
    H = H * 1000003 + State[I];
  for (long I = 0; I < 1024; ++I)
    H = H * 1000003 + History[I];
  printf("steps %ld state %016llx\n", Steps, (unsigned long long)H);
  free(State);
  return 0;
}
