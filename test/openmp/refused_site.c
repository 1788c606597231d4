// refused_site.c - a forced site where no image could be right is
// refused with one `ccc:` line and served at the next legal site: the
// main thread inside a parallel region ("parallel"), an OpenMP worker
// ("worker"), an undeferred task outside any region ("task"), a thread of
// the program's own ("thread"). The run prints what each site returned;
// with "kill" it SIGKILLs itself right after the refused site (before the
// next legal one) the first time, so the next run must restart from the
// checkpoint taken before it.
//   usage: refused_site parallel|worker|task|thread [kill]
#include <ccc.h>
#include <omp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static const char *name(int R) {
  return R == CCC_TAKEN ? "taken" : R == CCC_RESTARTED ? "restarted" : "none";
}

static void *onThread(void *P) {
  *(int *)P = ccc_checkpoint_force();
  return NULL;
}

static long Acc; // a global the image must hold

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: refused_site parallel|worker|task|thread [kill]\n");
    return 2;
  }
  const char *Mode = argv[1];
  Acc = 1;
  int First = ccc_checkpoint_force();
  printf("first site: %s acc %ld\n", name(First), Acc);
  Acc = 2;
  int Bad = -1;
  if (!strcmp(Mode, "parallel")) {
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 0)
      Bad = ccc_checkpoint_force();
  } else if (!strcmp(Mode, "worker")) {
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 1)
      Bad = ccc_checkpoint_force();
  } else if (!strcmp(Mode, "task")) {
#pragma omp task shared(Bad)
    Bad = ccc_checkpoint_force();
  } else {
    pthread_t T;
    pthread_create(&T, NULL, onThread, &Bad);
    pthread_join(T, NULL);
  }
  printf("refused site: %s acc %ld\n", name(Bad), Acc);
  fflush(stdout);
  if (argc > 2 && First != CCC_RESTARTED)
    raise(SIGKILL);
  Acc = 3;
  int Next = ccc_checkpoint();
  printf("next site: %s acc %ld\n", name(Next), Acc);
  return 0;
}
