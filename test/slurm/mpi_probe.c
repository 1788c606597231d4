/* MPI probe for test/slurm: shows what a Slurm job's ranks experience.
   Usage: mpi_probe OUT SECONDS
   Every rank appends "rank R up" to OUT.up once its SIGTERM handler is in
   place and MPI is initialized, then waits up to SECONDS for a SIGTERM. A
   rank that gets one appends
   "rank R TERM restart C" to OUT.rankR and exits 75 (C is
   SLURM_RESTART_COUNT, "-" when unset). Otherwise all ranks sum their ranks
   and rank 0 writes "size N sum S restart C" to OUT. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t terminated;

static void onTerm(int sig) {
  (void)sig;
  terminated = 1;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void append(const char *path, const char *text) {
  FILE *f = fopen(path, "a");
  if (!f) {
    perror(path);
    exit(2);
  }
  fputs(text, f);
  fclose(f);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: mpi_probe OUT SECONDS\n");
    return 2;
  }
  /* Before MPI_Init: slurmd may signal the ranks as soon as they exist. */
  signal(SIGTERM, onTerm);
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *restart = getenv("SLURM_RESTART_COUNT");
  if (!restart)
    restart = "-";
  char path[4096], line[256];
  snprintf(path, sizeof path, "%s.up", argv[1]);
  snprintf(line, sizeof line, "rank %d up\n", rank);
  append(path, line);
  double end = now() + atof(argv[2]);
  while (now() < end && !terminated)
    usleep(10000);
  if (terminated) {
    snprintf(path, sizeof path, "%s.rank%d", argv[1], rank);
    snprintf(line, sizeof line, "rank %d TERM restart %s\n", rank, restart);
    append(path, line);
    return 75; /* like a checkpoint-and-exit, without MPI_Finalize */
  }
  int sum = 0;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    snprintf(line, sizeof line, "size %d sum %d restart %s\n", size, sum,
             restart);
    append(argv[1], line);
  }
  MPI_Finalize();
  return 0;
}
