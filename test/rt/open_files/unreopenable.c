// A descriptor no restart can reopen, open at a checkpoint: a pipe, or a file
// deleted while open (argv[1]). The first forced checkpoint (a log open) is
// committed; the second, with the pipe or deleted file open too, must be
// refused with a `ccc:` message naming the descriptor. With argv[2] "die"
// the first run then kills itself, and the restart resumes from the first
// checkpoint, its log cut back to what it held then. See
// unreopenable_test.py.
#include <ccc.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  FILE *Log = fopen("log.txt", "w");
  if (!Log)
    return perror("log.txt"), 1;
  fprintf(Log, "before\n");
  int R1 = ccc_checkpoint_force();
  fprintf(Log, R1 == CCC_RESTARTED ? "restarted\n" : "first run\n");
  int Fds[2] = {-1, -1};
  if (!strcmp(argv[1], "pipe")) {
    if (pipe(Fds) != 0)
      return perror("pipe"), 1;
  } else {
    Fds[0] = open("scratch.tmp", O_CREAT | O_RDWR | O_TRUNC, 0644);
    if (Fds[0] < 0 || unlink("scratch.tmp") != 0)
      return perror("scratch.tmp"), 1;
  }
  int R2 = ccc_checkpoint_force();
  printf("second checkpoint %s\n", R2 == CCC_TAKEN ? "taken" : "not taken");
  if (R1 != CCC_RESTARTED && argc > 2 && !strcmp(argv[2], "die")) {
    fflush(NULL); // "first run" reaches the file: a restart must cut it
    raise(SIGKILL);
  }
  close(Fds[0]);
  if (Fds[1] >= 0)
    close(Fds[1]);
  fprintf(Log, "after\n");
  fclose(Log);
  return 0;
}
