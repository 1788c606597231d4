// hybrid.cpp - a hybrid MPI + OpenMP program in C++ survives SIGKILL and
// restart with its output bit for bit: per step, a site on the main thread
// outside any parallel region, a `parallel for` over a std::vector with a
// static schedule and an xor reduction, a taskloop, a threadprivate
// counter (the main thread's copy carries; workers get it by copyin), a
// std::map updated in a named critical section (libomp's lock word for it
// is a global of the program), then MPI_Allreduce (inside a parallel
// region's `single` for "serialized" and "multiple").
//   usage: hybrid_cxx STEPS funneled|serialized|multiple (OMP_NUM_THREADS=2)
#include <ccc.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mpi.h>
#include <omp.h>
#include <vector>

namespace {
uint64_t Tp; // regions entered, counted by the main thread
#pragma omp threadprivate(Tp)

struct Field {
  std::vector<uint64_t> V;
  explicit Field(int N, int Rank) : V(N) {
    for (int I = 0; I < N; ++I)
      V[I] = uint64_t(I) * 2654435761u + Rank;
  }
};
} // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr,
                 "usage: hybrid_cxx STEPS funneled|serialized|multiple\n");
    return 2;
  }
  int Steps = std::atoi(argv[1]);
  int Want = !std::strcmp(argv[2], "multiple")     ? MPI_THREAD_MULTIPLE
             : !std::strcmp(argv[2], "serialized") ? MPI_THREAD_SERIALIZED
                                                   : MPI_THREAD_FUNNELED;
  int Got, Rank;
  MPI_Init_thread(&argc, &argv, Want, &Got);
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  if (Got < Want || omp_get_max_threads() != 2) {
    std::fprintf(stderr,
                 "hybrid_cxx: thread level %d (wanted %d), %d threads "
                 "(OMP_NUM_THREADS=2 expected)\n",
                 Got, Want, omp_get_max_threads());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  auto *F = new Field(1 << 15, Rank);
  std::vector<uint64_t> &V = F->V;
  const int N = int(V.size());
  std::map<int, uint64_t> Counts;
  uint64_t Global = 0, Trail = 0; // Trail: every step's result
  for (int S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    uint64_t X = 0;
#pragma omp parallel for schedule(static) reduction(^ : X)
    for (int I = 0; I < N; ++I) {
      V[I] = (V[I] ^ (V[I] >> 13)) * 0x9e3779b97f4a7c15ull + S;
      X ^= V[I];
    }
    std::vector<uint64_t> Part(16);
#pragma omp parallel
#pragma omp single
#pragma omp taskloop grainsize(1)
    for (int T = 0; T < 16; ++T) {
      uint64_t P = 0;
      for (int I = T; I < N; I += 16)
        P += V[I] >> T;
      Part[T] = P;
    }
    ++Tp;
#pragma omp parallel copyin(Tp)
    {
      uint64_t Mine = Tp + omp_get_thread_num();
#pragma omp critical(counts)
      Counts[int(Mine % 5)] += Mine;
    }
    uint64_t Mix = X;
    for (uint64_t P : Part)
      Mix = Mix * 1000003 + P;
    if (Want == MPI_THREAD_FUNNELED) {
      MPI_Allreduce(&Mix, &Global, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    } else {
#pragma omp parallel
#pragma omp single
      MPI_Allreduce(&Mix, &Global, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    }
    Trail = (Trail << 7 | Trail >> 57) ^ Global;
  }
  if (Rank == 0) {
    // Printed at the end only: a killed run's output is lost.
    std::printf("final %016llx trail %016llx tp %llu counts",
                (unsigned long long)Global, (unsigned long long)Trail,
                (unsigned long long)Tp);
    for (auto &[K, C] : Counts)
      std::printf(" %d:%llu", K, (unsigned long long)C);
    std::printf("\n");
  }
  delete F;
  MPI_Finalize();
  return 0;
}
