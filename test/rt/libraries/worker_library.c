// worker_library.c - a shared library of the kind ccc cannot restore whole:
// one that runs a thread of its own (a progress engine, an I/O offloader)
// or keeps a socket to a service. Built as libtest_worker.so for
// library_refusals.c.
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <unistd.h>

static pthread_t Thread;
static atomic_int Stop;
static int Socket = -1;

static void *work(void *Arg) {
  (void)Arg;
  while (!atomic_load(&Stop))
    usleep(1000);
  return NULL;
}

int worker_start(void) { return pthread_create(&Thread, NULL, work, NULL); }

void worker_stop(void) {
  atomic_store(&Stop, 1);
  pthread_join(Thread, NULL);
  atomic_store(&Stop, 0);
}

int worker_connect(void) {
  Socket = socket(AF_INET, SOCK_STREAM, 0);
  return Socket;
}

void worker_disconnect(void) {
  close(Socket);
  Socket = -1;
}
