// growth.c - the workload of bench/mpi/growth.py: how the non-blocking
// protocol's control traffic grows with the number of ranks. Every
// iteration does an 8-byte MPI_Allreduce on MPI_COMM_WORLD, a ring halo
// exchange (MPI_Sendrecv with the right neighbour, then with the left) and
// a ccc_checkpoint() site; checkpoints come from CCC_INTERVAL. The ccc
// layer counts its control messages (CCC_MPI_COUNTS); this program says
// what it did itself, so the two can be compared.
//
// usage: mpirun -np N growth [-t SECONDS] [-n MIN_ITERATIONS]
//   runs until rank 0 has run SECONDS (default 2) and at least
//   MIN_ITERATIONS iterations are done (default 10); the Allreduce carries
//   rank 0's decision, so every rank runs the same iterations.
//
// Output (rank 0, one line):
//   growth NP ITERATIONS SECONDS COLLECTIVES P2P_SENDS
//     COLLECTIVES: collective calls each rank made on MPI_COMM_WORLD;
//     P2P_SENDS: messages each rank sent (2 per iteration).
#include <mpi.h>

// Declared here rather than from ccc.h so a plain build compiles the same
// source; it leaves the symbol undefined (null).
int ccc_checkpoint(void) __attribute__((weak));

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
  int Rank, Size, Opt;
  double Seconds = 2.0;
  long MinIters = 10;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  while ((Opt = getopt(argc, argv, "t:n:")) != -1) {
    if (Opt == 't')
      Seconds = atof(optarg);
    else if (Opt == 'n')
      MinIters = atol(optarg);
    else {
      if (Rank == 0)
        fprintf(stderr, "usage: growth [-t SECONDS] [-n MIN_ITERATIONS]\n");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  int Right = (Rank + 1) % Size, Left = (Rank + Size - 1) % Size;
  double Halo[2] = {Rank, Rank}, In[2];
  long Iters = 0, Colls = 0, Sends = 0;
  double T0 = MPI_Wtime(), Stop = 0;
  while (!Stop) {
    // Rank 0 decides when to stop; MPI_MAX hands its decision to all.
    double Mine =
        Rank == 0 && Iters + 1 >= MinIters && MPI_Wtime() - T0 >= Seconds;
    MPI_Allreduce(&Mine, &Stop, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    ++Colls;
    MPI_Sendrecv(&Halo[0], 1, MPI_DOUBLE, Right, 1, &In[0], 1, MPI_DOUBLE, Left,
                 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&Halo[1], 1, MPI_DOUBLE, Left, 2, &In[1], 1, MPI_DOUBLE, Right,
                 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    Sends += 2;
    Halo[0] = 0.5 * (In[0] + Halo[0]);
    Halo[1] = 0.5 * (In[1] + Halo[1]);
    ++Iters;
    if (ccc_checkpoint)
      ccc_checkpoint();
  }
  if (Rank == 0) {
    printf("growth %d %ld %.3f %ld %ld\n", Size, Iters, MPI_Wtime() - T0, Colls,
           Sends);
    fflush(stdout);
  }
  MPI_Finalize();
  return 0;
}
