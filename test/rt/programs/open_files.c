// Files open across checkpoints: a log written with fprintf at every step, an
// input read line by line with fgets (its read-ahead buffer crosses
// checkpoints), a raw descriptor written with write(), and a log opened for
// appending (what a killed run appended after the checkpoint must be cut
// away, or the restarted run appends it twice). After any number of kills
// and restarts, log.txt, raw.bin and append.txt must be byte-identical to an
// uninterrupted run's (test/rt/open_files/), and the program must not crash
// in stdio after correct results.
#include <ccc.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
  long Steps = argc > 1 ? atol(argv[1]) : 20000;
  FILE *In = fopen("input.txt", "w");
  if (!In)
    return perror("input.txt"), 1;
  for (long I = 0; I < Steps; ++I)
    fprintf(In, "%ld %ld\n", I, (I * 7919) % 1009);
  fclose(In);
  In = fopen("input.txt", "r");
  FILE *Log = fopen("log.txt", "w");
  unlink("append.txt");
  FILE *App = fopen("append.txt", "a");
  int Raw = open("raw.bin", O_CREAT | O_WRONLY | O_TRUNC, 0644);
  if (!In || !Log || !App || Raw < 0)
    return perror("open"), 1;
  double Acc = 0;
  char Line[64];
  for (long S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    long A, B;
    if (!fgets(Line, sizeof(Line), In) || sscanf(Line, "%ld %ld", &A, &B) != 2)
      return fprintf(stderr, "input ended at step %ld\n", S), 1;
    for (int K = 0; K < 2000; ++K)
      Acc += 1.0 / (1.0 + A + B + K + Acc * 1e-9);
    fprintf(Log, "step %ld input %ld %ld acc %.9f\n", S, A, B, Acc);
    fprintf(App, "%ld\n", S);
    if (write(Raw, &Acc, sizeof(Acc)) != sizeof(Acc))
      return perror("write"), 1;
  }
  fclose(In);
  fprintf(Log, "done\n");
  fclose(Log);
  close(Raw);
  fclose(App);
  printf("acc %.9f\n", Acc);
  return 0;
}
