// zero_freed.c - a code with a large zero and freed footprint (bench/size):
// a 64 MiB table that stays zero (written once, at start), a working set
// of 100-byte-to-64-KiB records of which most were freed again after the
// set-up phase, and the live state: one field of doubles evolved by a
// relaxation sweep. usage: zero_freed [MB per rank] [steps]
#include "moment.h"

#include <math.h>
#include <mpi.h>
#include <string.h>

static double ZeroTable[(64 << 20) / sizeof(double)];

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  double MB = argc > 1 ? atof(argv[1]) : 120;
  long Steps = argc > 2 ? atol(argv[2]) : 40;
  memset(ZeroTable, 0, sizeof(ZeroTable));
  // Set-up phase: records of mixed sizes, 7 of every 8 freed afterwards.
  long NRec = (long)(MB * 1048576 / 2 / 32768);
  char **Rec = malloc(NRec * sizeof(char *));
  for (long I = 0; I < NRec; ++I) {
    size_t L = 100 + (size_t)(I * 7919 % 65436);
    Rec[I] = malloc(L);
    memset(Rec[I], (int)(I & 0x7f) | 1, L);
  }
  double Kept = 0;
  for (long I = 0; I < NRec; ++I)
    if (I % 8) {
      free(Rec[I]);
      Rec[I] = NULL;
    } else {
      Kept += 100 + (double)(I * 7919 % 65436);
    }
  long N = (long)(MB * 1048576 / 2 / sizeof(double));
  double *Field = malloc(N * sizeof(double));
  for (long I = 0; I < N; ++I)
    Field[I] = sin(0.0003 * (double)I) + 0.01 * cos(0.17 * (double)I);
  double Oracle = (double)N * 8 + Kept + NRec * 8.0;
  double Total = 0;
  for (long S = 0; S < Steps; ++S) {
    bench_live(Field, N * sizeof(double));
    bench_live(Rec, NRec * sizeof(char *));
    for (long I = 0; I < NRec; I += 8)
      bench_live(Rec[I], 100 + (size_t)(I * 7919 % 65436));
    bench_site(S, Rank, Oracle);
    double Local = 0;
    for (long I = 1; I < N - 1; ++I) {
      Field[I] = 0.5 * Field[I] + 0.25 * (Field[I - 1] + Field[I + 1]);
      Local += Field[I];
    }
    for (long I = 0; I < NRec; I += 8)
      Local += Rec[I][S % 100] + ZeroTable[(S * 4099) % (64 << 17)];
    MPI_Allreduce(MPI_IN_PLACE, &Local, 1, MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
    Total += Local;
  }
  if (Rank == 0)
    printf("zero_freed: %ld doubles per rank, total %.12e\n", N, Total);
  MPI_Finalize();
  return 0;
}
