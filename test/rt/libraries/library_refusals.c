// library_refusals.c - what ccc cannot restore of a library is refused, not
// restored quietly wrong: a checkpoint while the pool the library started
// when it was loaded waits, one while a thread the library started is
// running, and one while the library holds a socket, must each return
// CCC_NONE with a ccc: line naming the cause; once the threads have ended
// and the socket is closed, a checkpoint is taken.
//   prints: "pool R0 thread R1 socket R2 after R3" (the
//   ccc_checkpoint_force results)
#include "ccc.h"

#include <stdio.h>

int worker_start(void);
void worker_stop(void);
int worker_connect(void);
void worker_disconnect(void);
void worker_pool_stop(void);

int main(void) {
  int R0 = ccc_checkpoint_force();
  worker_pool_stop();
  if (worker_start() != 0)
    return 2;
  int R1 = ccc_checkpoint_force();
  worker_stop();
  if (worker_connect() < 0)
    return 3;
  int R2 = ccc_checkpoint_force();
  worker_disconnect();
  int R3 = ccc_checkpoint_force();
  printf("pool %d thread %d socket %d after %d\n", R0, R1, R2, R3);
  return 0;
}
