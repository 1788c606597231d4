// rank_logs.c - every rank writes its own log file, open across
// checkpoints (fprintf at every step, after a collective site). After
// kills and restarts of the whole job, each rank's file must be
// byte-identical to an uninterrupted run's: the runtime reopens it at its
// descriptor number in the restarted rank, next to the MPI library's own
// descriptors, and cuts away what was written after the checkpoint.
//   usage: rank_logs STEPS
#include "ccc.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  long Steps = argc > 1 ? atol(argv[1]) : 2000;
  char Name[32];
  snprintf(Name, sizeof(Name), "log.%d.txt", Rank);
  FILE *Log = fopen(Name, "w");
  if (!Log)
    MPI_Abort(MPI_COMM_WORLD, 1);
  double Local = 0, Sum = 0;
  for (long S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    for (int K = 0; K < 3000; ++K)
      Local += 1.0 / (1.0 + Rank + S + K + Local * 1e-9);
    MPI_Allreduce(&Local, &Sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    fprintf(Log, "rank %d step %ld local %.9f sum %.9f\n", Rank, S, Local,
            Sum);
  }
  fclose(Log);
  if (Rank == 0)
    printf("sum %.9f\n", Sum);
  MPI_Finalize();
  return 0;
}
