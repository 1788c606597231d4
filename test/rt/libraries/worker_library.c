// worker_library.c - a shared library of the kind ccc cannot restore whole:
// one that runs a thread of its own (a progress engine, an I/O offloader)
// or keeps a socket to a service, or starts a pool of threads when it is
// loaded. Built as libtest_worker.so for
// library_refusals.c.
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <unistd.h>

static pthread_t Thread;
static atomic_int Stop;
static int Socket = -1;

// A pool started when the library is loaded, as OpenBLAS's is: its threads
// wait for work that never comes here, until worker_pool_stop.
static pthread_t Pool[2];
static pthread_mutex_t PoolLock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t PoolWake = PTHREAD_COND_INITIALIZER;
static int PoolClosed;

static void *pool_wait(void *Arg) {
  (void)Arg;
  pthread_mutex_lock(&PoolLock);
  while (!PoolClosed)
    pthread_cond_wait(&PoolWake, &PoolLock);
  pthread_mutex_unlock(&PoolLock);
  return NULL;
}

__attribute__((constructor)) static void pool_start(void) {
  for (int I = 0; I < 2; ++I)
    pthread_create(&Pool[I], NULL, pool_wait, NULL);
}

void worker_pool_stop(void) {
  pthread_mutex_lock(&PoolLock);
  PoolClosed = 1;
  pthread_cond_broadcast(&PoolWake);
  pthread_mutex_unlock(&PoolLock);
  for (int I = 0; I < 2; ++I)
    pthread_join(Pool[I], NULL);
}

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
