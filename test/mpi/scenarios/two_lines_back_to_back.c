// two_lines_back_to_back.c - two checkpoints started by different ranks,
// the second while the first is still open, and a Waitany whose outcome is
// replayed. Three ranks:
//   checkpoint 1 is started by rank 2 (forced site); its early messages make
//            ranks 0 and 1 take it at their next sites;
//   rank 1 stays in checkpoint 1's period: a late message from rank 0
//            (tag 50) reaches it only after
//   checkpoint 2, started by rank 0 (forced, once its own period 1 is
//            over), has sent rank 1 an early message (tag 30);
//   rank 0 then waits with MPI_Waitany for a late message from rank 1
//            (tag 60) and one from rank 2 (tag 61, sent after rank 0's
//            go-ahead): the outcomes are logged;
// then rank 1 SIGKILLs itself (first run, CROSSING_LINE_KILL set) after
// checkpoint 2 is committed. The restart replays period 2 and must print
// what an uninterrupted run prints.
//   usage: two_lines_back_to_back   (exactly 3 ranks)
#include "ccc.h"

#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static double Acc = 1.0; // every received value goes in; order matters

static void take(double V) { Acc = Acc * 1.000001 + V; }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  if (Size != 3) {
    if (Rank == 0)
      fprintf(stderr, "two_lines_back_to_back: run with 3 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  double Got, V = 10.0 * (Rank + 1);
  MPI_Barrier(MPI_COMM_WORLD);
  if (Rank == 2) {
    ccc_checkpoint_force(); // starts checkpoint 1
    double E1 = 2.5, E2 = 3.5;
    MPI_Send(&E1, 1, MPI_DOUBLE, 0, 21, MPI_COMM_WORLD);
    MPI_Send(&E2, 1, MPI_DOUBLE, 1, 22, MPI_COMM_WORLD);
    int Go;
    MPI_Recv(&Go, 1, MPI_INT, 0, 62, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&V, 1, MPI_DOUBLE, 0, 61, MPI_COMM_WORLD);
    ccc_checkpoint(); // checkpoint 2, started by rank 0
  } else if (Rank == 0) {
    double M = 50.5;
    MPI_Send(&M, 1, MPI_DOUBLE, 1, 50, MPI_COMM_WORLD);
    MPI_Recv(&Got, 1, MPI_DOUBLE, 2, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    take(Got);
    ccc_checkpoint(); // checkpoint 1, started by rank 2
    // Start checkpoint 2 as soon as this rank's period 1 is over (a build
    // or run without checkpoints never takes it: give up after 2 s).
    for (int I = 0; I < 2000 && ccc_checkpoint_force() == CCC_NONE; ++I)
      usleep(1000);
    double E3 = 30.25;
    MPI_Send(&E3, 1, MPI_DOUBLE, 1, 30, MPI_COMM_WORLD);
    double In[2];
    MPI_Request R[2];
    MPI_Irecv(&In[0], 1, MPI_DOUBLE, 1, 60, MPI_COMM_WORLD, &R[0]);
    MPI_Irecv(&In[1], 1, MPI_DOUBLE, 2, 61, MPI_COMM_WORLD, &R[1]);
    int First, Second, Go = 1;
    MPI_Waitany(2, R, &First, MPI_STATUS_IGNORE); // rank 2 waits for Go
    MPI_Send(&Go, 1, MPI_INT, 2, 62, MPI_COMM_WORLD);
    MPI_Waitany(2, R, &Second, MPI_STATUS_IGNORE);
    take(In[First] * (First + 1));
    take(In[Second] * (Second + 1));
  } else {
    MPI_Recv(&Got, 1, MPI_DOUBLE, 2, 22, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    take(Got);
    ccc_checkpoint(); // checkpoint 1, started by rank 2
    MPI_Recv(&Got, 1, MPI_DOUBLE, 0, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    take(Got); // early: rank 0 has started checkpoint 2
    MPI_Recv(&Got, 1, MPI_DOUBLE, 0, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    take(Got); // late for checkpoint 1: its period ends here
    MPI_Send(&V, 1, MPI_DOUBLE, 0, 60, MPI_COMM_WORLD);
    ccc_checkpoint(); // checkpoint 2
  }
  // Let the periods end and rank 0 commit, then kill rank 1.
  for (int I = 0; I < 40; ++I) {
    double W = I + Rank;
    MPI_Allreduce(MPI_IN_PLACE, &W, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    take(W);
    usleep(5000);
  }
  if (Rank == 1 && !ccc_restarted() && getenv("CROSSING_LINE_KILL"))
    raise(SIGKILL);
  double All;
  MPI_Reduce(&Acc, &All, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (Rank == 0)
    printf("two_lines_back_to_back: %a\n", All);
  MPI_Finalize();
  return 0;
}
