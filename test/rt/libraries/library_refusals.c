// library_refusals.c - what ccc cannot restore of a library is refused, not
// restored quietly wrong: a checkpoint while a thread the library started
// is running, and one while the library holds a socket, must each return
// CCC_NONE with a ccc: line naming the cause; once the thread has ended and
// the socket is closed, a checkpoint is taken.
//   prints: "thread R1 socket R2 after R3" (the ccc_checkpoint_force results)
#include "ccc.h"

#include <stdio.h>

int worker_start(void);
void worker_stop(void);
int worker_connect(void);
void worker_disconnect(void);

int main(void) {
  if (worker_start() != 0)
    return 2;
  int R1 = ccc_checkpoint_force();
  worker_stop();
  if (worker_connect() < 0)
    return 3;
  int R2 = ccc_checkpoint_force();
  worker_disconnect();
  int R3 = ccc_checkpoint_force();
  printf("thread %d socket %d after %d\n", R1, R2, R3);
  return 0;
}
