// wait_answers_control.c - a rank that waits in MPI while a checkpoint is
// open must keep answering the layer's control messages, or the version is
// never committed. Ranks 0 and 1 force checkpoint 1 at their first site.
// Rank 1 then waits, with the MPI function named by argv[1], for a message
// that rank 0 sends only once it sees the commit record of version 1 in
// CCC_DIR (or after 20 s). The commit needs rank 1's part (it must read
// ALL and send LOGGED), so a wait that blocks in MPI without looking for
// control messages holds the commit back until rank 0 gives up.
//
// The send side too: with ssend, send_large (1 MiB, past every eager
// limit) and bsend_detach (MPI_Buffer_detach after a 1 MiB MPI_Bsend),
// rank 1 sends after its site and rank 0 posts the receive only once it
// sees the commit record (or after 20 s); each of these blocks in MPI until
// the receive is posted.
//
// usage: wait_answers_control wait|waitany|waitsome|waitall|recv|probe|
//                             mprobe|ssend|send_large|bsend_detach
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
  int SendSide = !strcmp(How, "ssend") || !strcmp(How, "send_large") ||
                 !strcmp(How, "bsend_detach");
  enum { kLarge = 1 << 17 }; // doubles: 1 MiB
  double *Large = calloc(kLarge, sizeof(double));
  if (Rank == 0) {
    ccc_checkpoint_force();
    // Sites let this rank take its part; the commit needs rank 1's too.
    double Start = now();
    while (!(Seen = commitRecorded(Dir)) && now() - Start < 20) {
      ccc_checkpoint();
      struct timespec T = {0, 1000000};
      nanosleep(&T, NULL);
    }
    if (!SendSide)
      MPI_Send(&Seen, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
    else if (!strcmp(How, "ssend"))
      MPI_Recv(&Seen, 0, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
      MPI_Recv(Large, kLarge, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  } else if (SendSide) {
    int BufSize = kLarge * sizeof(double) + MPI_BSEND_OVERHEAD;
    void *Buf = malloc(BufSize);
    // Sent after the line: a message sent before it would be late, and
    // rank 0's part of the checkpoint would wait for it to be received.
    ccc_checkpoint_force();
    if (!strcmp(How, "bsend_detach")) {
      MPI_Buffer_attach(Buf, BufSize);
      MPI_Bsend(Large, kLarge, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD);
    }
    if (!strcmp(How, "ssend"))
      MPI_Ssend(NULL, 0, MPI_INT, 0, 5, MPI_COMM_WORLD);
    else if (!strcmp(How, "send_large"))
      MPI_Send(Large, kLarge, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD);
    else {
      void *Detached;
      int Size;
      MPI_Buffer_detach(&Detached, &Size);
    }
    free(Buf);
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
  }
  // Rank 1 waited; the rank that knows whether the commit came first
  // (rank 0 from the directory, or rank 1 from rank 0's message) tells.
  MPI_Bcast(&Seen, 1, MPI_INT, SendSide ? 0 : 1, MPI_COMM_WORLD);
  if (Rank == 1)
    printf("rank 1: commit seen before the wait ended: %s\n",
           Seen ? "yes" : "no");
  free(Large);
  MPI_Finalize();
  return Seen ? 0 : 1;
}
