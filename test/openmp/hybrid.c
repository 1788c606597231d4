// hybrid.c - a hybrid MPI + OpenMP program in C survives SIGKILL and
// restart with its output bit for bit: every step, a site on the main
// thread outside any parallel region, then a `parallel for` sweep with a
// static schedule and a reduction, tasks (one per block, then taskwait), a
// threadprivate counter (the main thread's copy carries across steps and
// restarts; the workers get it by copyin) and a critical section (whose
// lock word libomp owns), and an MPI_Allreduce of the step's result. With
// the thread level "serialized" or "multiple" the Allreduce is made inside
// a parallel region by whichever thread runs the `single`. Integer
// arithmetic only: the result does not depend on the threads' order.
//   usage: hybrid STEPS funneled|serialized|multiple   (OMP_NUM_THREADS=2)
#include <ccc.h>
#include <mpi.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 1 << 15, Blocks = 8 };

static uint64_t Tp; // regions entered, counted by the main thread
#pragma omp threadprivate(Tp)
static uint64_t Hist[8];

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: hybrid STEPS funneled|serialized|multiple\n");
    return 2;
  }
  int Steps = atoi(argv[1]);
  int Want = !strcmp(argv[2], "multiple")     ? MPI_THREAD_MULTIPLE
             : !strcmp(argv[2], "serialized") ? MPI_THREAD_SERIALIZED
                                              : MPI_THREAD_FUNNELED;
  int Got, Rank;
  MPI_Init_thread(&argc, &argv, Want, &Got);
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  if (Got < Want || omp_get_max_threads() != 2) {
    fprintf(stderr,
            "hybrid: thread level %d (wanted %d), %d threads "
            "(OMP_NUM_THREADS=2 expected)\n",
            Got, Want, omp_get_max_threads());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  uint64_t *A = malloc(N * sizeof(uint64_t));
  for (int I = 0; I < N; ++I)
    A[I] = (uint64_t)I * (Rank + 1);
  uint64_t Global = 0, Trail = 0; // Trail: every step's result
  for (int S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    uint64_t Sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : Sum)
    for (int I = 0; I < N; ++I) {
      A[I] = (A[I] * 6364136223846793005ull + 1442695040888963407ull + I) >> 7;
      Sum += A[I];
    }
    uint64_t Part[Blocks];
#pragma omp parallel
#pragma omp single
    {
      for (int T = 0; T < Blocks; ++T) {
#pragma omp task firstprivate(T) shared(Part, A)
        {
          uint64_t P = 0;
          for (int I = T; I < N; I += Blocks)
            P ^= A[I] << T;
          Part[T] = P;
        }
      }
#pragma omp taskwait
    }
    ++Tp;
#pragma omp parallel copyin(Tp)
    {
      uint64_t Mine = Tp * (omp_get_thread_num() + 1);
#pragma omp critical
      Hist[(Mine + S) & 7] += Mine;
    }
    uint64_t Mix = Sum;
    for (int T = 0; T < Blocks; ++T)
      Mix = Mix * 31 + Part[T];
    if (Want == MPI_THREAD_FUNNELED) {
      MPI_Allreduce(&Mix, &Global, 1, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
    } else {
#pragma omp parallel
#pragma omp single
      MPI_Allreduce(&Mix, &Global, 1, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
    }
    Trail = (Trail << 7 | Trail >> 57) ^ Global;
  }
  if (Rank == 0) {
    // Printed at the end only: a killed run's output is lost.
    printf("final %016llx trail %016llx tp %llu hist",
           (unsigned long long)Global, (unsigned long long)Trail,
           (unsigned long long)Tp);
    for (int I = 0; I < 8; ++I)
      printf(" %llu", (unsigned long long)Hist[I]);
    printf("\n");
  }
  free(A);
  MPI_Finalize();
  return 0;
}
