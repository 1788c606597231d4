//===- FuzzCommon.cpp - Shared parts of the reader fuzzers ----------------===//
#include "FuzzCommon.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

extern "C" {
// The sanitizers intercept malloc, not glibc's internal names.
void *__libc_malloc(size_t N) { return malloc(N); }
void *__libc_calloc(size_t N, size_t S) { return calloc(N, S); }
void *__libc_realloc(void *P, size_t N) { return realloc(P, N); }
void __libc_free(void *P) { free(P); }
}

namespace fuzz {

const std::string &workDir() {
  // Never destroyed: the atexit handler below still needs it.
  static const std::string &Dir = *[] {
    // tmpfs if there is one: the files are written at every execution.
    const char *Base = getenv("CCC_FUZZ_TMP");
    if (!Base)
      Base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    std::string T = std::string(Base) + "/ccc-fuzz-XXXXXX";
    if (!mkdtemp(&T[0])) {
      perror("ccc fuzz: mkdtemp");
      abort();
    }
    // stdout of the ckpt tool is of no interest (errors go to stderr;
    // run.py passes -close_fd_mask).
    int Null = open("/dev/null", O_WRONLY);
    if (Null >= 0)
      dup2(Null, 1), close(Null);
    atexit([] {
      clearDir();
      rmdir(workDir().c_str());
    });
    return new std::string(T);
  }();
  return Dir;
}

void clearDir() {
  const std::string &D = workDir();
  DIR *Dp = opendir(D.c_str());
  if (!Dp)
    return;
  while (struct dirent *E = readdir(Dp))
    if (strcmp(E->d_name, ".") && strcmp(E->d_name, ".."))
      unlink((D + "/" + E->d_name).c_str());
  closedir(Dp);
}

bool writeFile(const std::string &Name, const void *Data, size_t Len) {
  std::string P = workDir() + "/" + Name;
  int Fd = open(P.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (Fd < 0)
    return false;
  bool Ok = !Len || write(Fd, Data, Len) == (ssize_t)Len;
  close(Fd);
  return Ok;
}

int ckpt(std::vector<std::string> Args) {
  std::vector<char *> Argv;
  static char Prog[] = "ckpt";
  Argv.push_back(Prog);
  for (std::string &A : Args)
    Argv.push_back(&A[0]);
  Argv.push_back(nullptr);
  int R = ckpt_main(int(Argv.size() - 1), Argv.data());
  fflush(stdout);
  return R;
}
} // namespace fuzz
