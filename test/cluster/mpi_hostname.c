/* mpi_hostname.c - for test/cluster: every rank reports its rank, the job's
   size, its host name and the sum of all ranks (an MPI_Allreduce across the
   hosts), one line each: "rank R of N on HOST sum S". With SECONDS, first
   waits SECONDS in broadcasts every 10 ms (a job to kill a host of).
   usage: mpi_hostname [SECONDS] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size, Sum = 0;
  char Host[256];
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  gethostname(Host, sizeof(Host));
  double End = MPI_Wtime() + (argc > 1 ? atof(argv[1]) : 0);
  for (int Go = argc > 1; Go;) { /* rank 0's clock decides for all */
    Go = MPI_Wtime() < End;
    MPI_Bcast(&Go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    usleep(10000);
  }
  MPI_Allreduce(&Rank, &Sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  printf("rank %d of %d on %s sum %d\n", Rank, Size, Host, Sum);
  MPI_Finalize();
  return 0;
}
