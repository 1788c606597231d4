// fftw_spectral.c - a spectral solver's loop over FFTW's MPI transforms:
// the plans and their buffer are made once, before the time loop (planning
// is expensive, so real codes never re-plan), and executed every step. A
// plan is FFTW's memory: its twiddle tables and codelet choices in the
// heap FFTW allocates, its communicator a duplicate FFTW made. Without
// them a restarted rank executes a plan through stale pointers.
// Heat equation on an N x N periodic grid: forward transform, decay of
// each mode, backward transform; rank 0 logs the energy to spectral.log,
// open across the loop. FFTW_ESTIMATE: measured plans differ from run to
// run, and with them the last bits of the results, with or without ccc.
//   usage: fftw_spectral STEPS [N]
#include "ccc.h"

#include <fftw3-mpi.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fftw_mpi_init();
  int Rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  long Steps = argc > 1 ? atol(argv[1]) : 200;
  ptrdiff_t N = argc > 2 ? atol(argv[2]) : 64;

  ptrdiff_t LocalN, Start;
  ptrdiff_t Alloc =
      fftw_mpi_local_size_2d(N, N, MPI_COMM_WORLD, &LocalN, &Start);
  fftw_complex *Data = fftw_alloc_complex(Alloc);
  fftw_plan Forward = fftw_mpi_plan_dft_2d(N, N, Data, Data, MPI_COMM_WORLD,
                                           FFTW_FORWARD, FFTW_ESTIMATE);
  fftw_plan Backward = fftw_mpi_plan_dft_2d(N, N, Data, Data, MPI_COMM_WORLD,
                                            FFTW_BACKWARD, FFTW_ESTIMATE);
  for (ptrdiff_t I = 0; I < LocalN; ++I)
    for (ptrdiff_t J = 0; J < N; ++J) {
      double X = (double)(Start + I) / N, Y = (double)J / N;
      Data[I * N + J][0] = sin(2 * M_PI * X) * cos(4 * M_PI * Y) +
                           ((Start + I) * 7 + J) % 13 * 0.01;
      Data[I * N + J][1] = 0;
    }

  FILE *Log = Rank == 0 ? fopen("spectral.log", "w") : NULL;
  double Energy = 0;
  for (long S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    fftw_execute(Forward);
    for (ptrdiff_t I = 0; I < LocalN; ++I) {
      ptrdiff_t Kx = Start + I < N / 2 ? Start + I : Start + I - N;
      for (ptrdiff_t J = 0; J < N; ++J) {
        ptrdiff_t Ky = J < N / 2 ? J : J - N;
        double Decay = exp(-1e-4 * (double)(Kx * Kx + Ky * Ky)) / (N * N);
        Data[I * N + J][0] *= Decay;
        Data[I * N + J][1] *= Decay;
      }
    }
    fftw_execute(Backward);
    double Mine = 0;
    for (ptrdiff_t I = 0; I < LocalN * N; ++I)
      Mine += Data[I][0] * Data[I][0];
    MPI_Allreduce(&Mine, &Energy, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (Log && S % 10 == 0)
      fprintf(Log, "step %ld energy %.12e\n", S, Energy);
  }
  if (Log) {
    fclose(Log);
    printf("final energy %.12e\n", Energy);
  }
  fftw_destroy_plan(Forward);
  fftw_destroy_plan(Backward);
  fftw_free(Data);
  fftw_mpi_cleanup();
  MPI_Finalize();
  return 0;
}
