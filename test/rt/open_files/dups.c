// Descriptors that share an open file (dup, dup2) and a stream moved to
// another file by freopen, across a checkpoint after which the first run
// writes more and is killed. The restart must give each file what an
// uninterrupted run would: the dups still share one offset (each reopened
// alone, the second write would land on the first), the freopen'd stream
// writes to its new file. A stream the program made over descriptor 1 is
// flushed at the restarted run's exit. See dups_test.py.
#include <ccc.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int main(void) {
  FILE *F = fopen("a.txt", "w");
  if (!F)
    return 1;
  fprintf(F, "a1\n");
  F = freopen("b.txt", "w", F);
  int Fd = open("c.txt", O_CREAT | O_WRONLY | O_TRUNC, 0644);
  int D = dup(Fd);
  if (!F || Fd < 0 || D < 0 || dup2(Fd, 20) != 20)
    return 1;
  close(Fd);
  fprintf(F, "b1\n");
  if (write(D, "c1\n", 3) != 3 || write(20, "c2\n", 3) != 3)
    return 1;
  FILE *Out = fdopen(1, "w");
  if (!Out)
    return 1;
  fprintf(Out, "out before\n");
  int R = ccc_checkpoint_force();
  fprintf(F, "b2 %s\n", R == CCC_RESTARTED ? "restarted" : "first run");
  fprintf(Out, "out %s\n", R == CCC_RESTARTED ? "restarted" : "first run");
  if (write(D, "c3\n", 3) != 3 || write(20, "c4\n", 3) != 3)
    return 1;
  if (R != CCC_RESTARTED) {
    fflush(F); // what the killed run wrote after the checkpoint reaches disk
    fflush(Out);
    raise(SIGKILL);
  }
  fclose(F);
  close(D);
  close(20);
  return 0;
}
