// traffic.c - the cost of one coordinated checkpoint with messages in
// flight (bench/coordination/run.py). Each rank holds MIB MiB of doubles and
// runs STEPS steps: post the step's messages to both ring neighbours
// (DEPTH Isend/Irecv pairs of MSG bytes each way), reach the site, update an
// eighth of its state, wait for the messages and fold them in. The messages
// are in flight at the site, so a checkpoint there must deal with them
// (the blocking protocol drains them, C3's logs those that cross the line).
// Rank 0 forces a checkpoint at step AT (-1: none). Rank 0 prints the
// slowest rank's time from the first step to the last and a checksum.
// usage: traffic MIB STEPS AT [MSG [DEPTH]]
#include "ccc.h"

#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  if (argc < 4) {
    if (Rank == 0)
      fprintf(stderr, "usage: traffic MIB STEPS AT [MSG [DEPTH]]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  long N = (long)(atof(argv[1]) * 1048576 / sizeof(double));
  long Steps = atol(argv[2]), At = atol(argv[3]);
  long Msg = argc > 4 ? atol(argv[4]) : 65536;
  int Depth = argc > 5 ? atoi(argv[5]) : 4;
  long Words = Msg / (long)sizeof(double);
  if (N < 8 || Steps < 1 || Words < 1 || Depth < 1 || Depth > 64) {
    if (Rank == 0)
      fprintf(stderr, "traffic: bad arguments\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  double *State = malloc(N * sizeof(double));
  double *Out = malloc(2 * Depth * Words * sizeof(double));
  double *In = malloc(2 * Depth * Words * sizeof(double));
  for (long I = 0; I < N; ++I)
    State[I] = sin(0.001 * (double)(I + Rank * N));
  int Left = (Rank + Size - 1) % Size, Right = (Rank + 1) % Size;
  MPI_Request Req[4 * 64];
  MPI_Barrier(MPI_COMM_WORLD);
  double T0 = MPI_Wtime();
  for (long S = 0; S < Steps; ++S) {
    int R = 0;
    for (int D = 0; D < 2 * Depth; ++D) {
      double *O = Out + D * Words, *I = In + D * Words;
      int To = D < Depth ? Right : Left, From = D < Depth ? Left : Right;
      for (long K = 0; K < Words; ++K)
        O[K] = State[(S * 977 + D * 131 + K) % N];
      MPI_Irecv(I, (int)Words, MPI_DOUBLE, From, D, MPI_COMM_WORLD, &Req[R++]);
      MPI_Isend(O, (int)Words, MPI_DOUBLE, To, D, MPI_COMM_WORLD, &Req[R++]);
    }
    if (S == At && Rank == 0)
      ccc_checkpoint_force();
    else
      ccc_checkpoint();
    long Lo = (S % 8) * (N / 8), Hi = Lo + N / 8;
    for (long I = Lo; I < Hi; ++I)
      State[I] = 0.999 * State[I] + 0.001 * cos(State[I]);
    MPI_Waitall(R, Req, MPI_STATUSES_IGNORE);
    for (int D = 0; D < 2 * Depth; ++D)
      for (long K = 0; K < Words; ++K)
        State[(S * 31 + D * 17 + K) % N] += 1e-9 * In[D * Words + K];
  }
  double T = MPI_Wtime() - T0, Slowest;
  MPI_Reduce(&T, &Slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  double Sum = 0, Total;
  for (long I = 0; I < N; ++I)
    Sum += State[I];
  MPI_Reduce(&Sum, &Total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (Rank == 0)
    printf("traffic: %d ranks, %.17g s, sum %.12e\n", Size, Slowest, Total);
  free(State);
  free(Out);
  free(In);
  MPI_Finalize();
  return 0;
}
