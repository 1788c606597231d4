/* wtime_continues.c - MPI_Wtime across a restart.
 *
 * A time-step code that times itself: it reads MPI_Wtime before every
 * step and checks the clock never runs backwards. At step 10 every rank
 * takes a forced checkpoint; then the job keeps stepping (barriers) until
 * it is killed. Restarted, it resumes at that site and rank 0 prints how
 * far the clock moved between the reading just before the site and the
 * first one after it. The test (wtime_across_restart.py) kills the job a
 * measured time after the checkpoint was committed and requires the move
 * to be smaller than that time and not negative: the clock goes on from its
 * value at the checkpoint.
 *
 * usage: mpirun -np 2 wtime_continues
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "ccc.h"

static double Previous; /* the last reading, saved with the image */

static double now(void) {
  double T = MPI_Wtime();
  if (T < Previous) {
    fprintf(stderr,
            "wtime_continues: MPI_Wtime ran backwards: %.6f after "
            "%.6f\n",
            T, Previous);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  Previous = T;
  return T;
}

int main(int argc, char **argv) {
  int Rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  for (long Step = 0; Step < 100000000; ++Step) {
    double Before = now();
    int Site = Step == 10 ? ccc_checkpoint_force() : ccc_checkpoint();
    if (Site == CCC_RESTARTED) {
      double After = now();
      if (Rank == 0)
        printf("resumed at step %ld: the clock moved %.6f s\n", Step,
               After - Before);
      break;
    }
    if (Site == CCC_TAKEN && Rank == 0) {
      printf("checkpoint at step %ld\n", Step);
      fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
