// lock_holder.c - holds the flock a ccc run takes on NAME.rRANK.lock, as
// another run would. "live": a running process keeps it for HOLD_MS.
// "exiting": the main thread exits and a second thread keeps the files open
// for HOLD_MS, which is how a killed process looks while its last thread
// unmaps its memory (a zombie leader whose files, and locks, stay open).
// Prints "held" once the lock is taken.
//   usage: lock_holder PATH live|exiting HOLD_MS
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

static long HoldMs;

static void *holdThenEnd(void *Unused) {
  (void)Unused;
  usleep(HoldMs * 1000);
  exit(0);
}

int main(int argc, char **argv) {
  if (argc != 4)
    return 2;
  HoldMs = atol(argv[3]);
  int Fd = open(argv[1], O_RDWR | O_CREAT, 0600);
  if (Fd < 0 || flock(Fd, LOCK_EX | LOCK_NB) != 0) {
    perror(argv[1]);
    return 1;
  }
  printf("held\n");
  fflush(stdout);
  if (strcmp(argv[2], "exiting") == 0) {
    pthread_t T;
    if (pthread_create(&T, NULL, holdThenEnd, NULL) != 0)
      return 1;
    pthread_exit(NULL); // the leader becomes a zombie; T holds on
  }
  usleep(HoldMs * 1000);
  return 0;
}
