// wait_answers_control.c - a rank that waits in MPI while a checkpoint is
// open must keep answering the layer's control messages, or the version is
// never committed. Ranks 0 and 1 force checkpoint 1 at their first site.
// Rank 1 then waits, with the MPI function named by argv[1], for a message
// that rank 0 sends only once it sees the commit record of version 1 in
// CCC_DIR (or after 20 s). The commit needs rank 1's part (it must read
// ALL and send LOGGED), so a wait that blocks in MPI without looking for
// control messages holds the commit back until rank 0 gives up.
//
// usage: wait_answers_control wait|waitany|waitsome|waitall|recv|probe|mprobe
// Prints "rank 1: commit seen before the wait ended: yes" (exit 0) or
// "... no" (exit 1).
#include "ccc.h"

#include <dirent.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int commitRecorded(const char *Dir) {
  DIR *D = opendir(Dir);
  if (!D)
    return 0;
  int Found = 0;
  const char *Suffix = ".v000001.commit";
  size_t S = strlen(Suffix);
  struct dirent *E;
  while (!Found && (E = readdir(D))) {
    size_t N = strlen(E->d_name);
    Found = N > S && strcmp(E->d_name + N - S, Suffix) == 0;
  }
  closedir(D);
  return Found;
}

static double now(void) {
  struct timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return T.tv_sec + T.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  const char *How = argc > 1 ? argv[1] : "";
  const char *Dir = getenv("CCC_DIR");
  if (Size != 2 || !Dir) {
    if (Rank == 0)
      fprintf(stderr, "wait_answers_control: 2 ranks and CCC_DIR needed\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int Seen = 0;
  if (Rank == 0) {
    ccc_checkpoint_force();
    // Sites let this rank take its part; the commit needs rank 1's too.
    double Start = now();
    while (!(Seen = commitRecorded(Dir)) && now() - Start < 20) {
      ccc_checkpoint();
      struct timespec T = {0, 1000000};
      nanosleep(&T, NULL);
    }
    MPI_Send(&Seen, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
  } else {
    // Posted before the line, so that no MPI call comes between the
    // site and the wait (a call could read ALL before the wait starts).
    MPI_Request R[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    int Index, Count, Indices[2];
    if (strcmp(How, "recv") && strcmp(How, "probe") && strcmp(How, "mprobe"))
      MPI_Irecv(&Seen, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &R[1]);
    ccc_checkpoint_force();
    if (!strcmp(How, "wait"))
      MPI_Wait(&R[1], MPI_STATUS_IGNORE);
    else if (!strcmp(How, "waitany"))
      MPI_Waitany(2, R, &Index, MPI_STATUS_IGNORE);
    else if (!strcmp(How, "waitsome"))
      MPI_Waitsome(2, R, &Count, Indices, MPI_STATUSES_IGNORE);
    else if (!strcmp(How, "waitall"))
      MPI_Waitall(2, R, MPI_STATUSES_IGNORE);
    else if (!strcmp(How, "recv"))
      MPI_Recv(&Seen, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else if (!strcmp(How, "probe")) {
      MPI_Probe(0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Recv(&Seen, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (!strcmp(How, "mprobe")) {
      MPI_Message M;
      MPI_Mprobe(0, 5, MPI_COMM_WORLD, &M, MPI_STATUS_IGNORE);
      MPI_Mrecv(&Seen, 1, MPI_INT, &M, MPI_STATUS_IGNORE);
    } else {
      fprintf(stderr, "wait_answers_control: unknown wait '%s'\n", How);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    printf("rank 1: commit seen before the wait ended: %s\n",
           Seen ? "yes" : "no");
    fflush(stdout);
  }
  MPI_Bcast(&Seen, 1, MPI_INT, 1, MPI_COMM_WORLD);
  MPI_Finalize();
  return Seen ? 0 : 1;
}
