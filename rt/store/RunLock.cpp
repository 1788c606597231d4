//===- RunLock.cpp - One run per CCC_DIR, program and rank ----------------===//
#include "RunLock.h"

#include "rt/common/Log.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace ccc {
namespace {

// A killed process of many GiB can take seconds to unmap its memory, and a
// loaded node longer; past this the holder is taken for stuck.
constexpr int kExitingWaitSeconds = 60;
// A holder /proc/locks does not show (another PID namespace) is live.
constexpr int kUnlistedWaitSeconds = 2;

// Reads a small /proc file into Buf (NUL-terminated). False if it is gone.
bool readProcFile(const char *Path, char *Buf, size_t Cap) {
  int Fd = open(Path, O_RDONLY | O_CLOEXEC);
  if (Fd < 0)
    return false;
  size_t N = 0;
  while (N + 1 < Cap) {
    ssize_t R = read(Fd, Buf + N, Cap - 1 - N);
    if (R < 0 && errno == EINTR)
      continue;
    if (R <= 0)
      break;
    N += R;
  }
  close(Fd);
  Buf[N] = 0;
  return N > 0;
}

// One /proc/locks line: "1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF"
// (waiters' lines have "->" after the number). The holder's pid if the
// line is an flock held on device Major:Minor, inode Ino.
pid_t holderOnLine(const char *Line, unsigned Major, unsigned Minor,
                   unsigned long Ino) {
  char Kind[16], Mode[16], Access[16];
  long Pid;
  unsigned Ma, Mi;
  unsigned long In;
  if (sscanf(Line, "%*d: %15s %15s %15s %ld %x:%x:%lu", Kind, Mode, Access,
             &Pid, &Ma, &Mi, &In) != 7)
    return 0;
  if (strcmp(Kind, "FLOCK") || Ma != Major || Mi != Minor || In != Ino)
    return 0;
  return static_cast<pid_t>(Pid);
}

double secondsSince(const timespec &T0) {
  timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return (T.tv_sec - T0.tv_sec) + (T.tv_nsec - T0.tv_nsec) / 1e9;
}

} // namespace

pid_t flockHolder(int Fd) {
  struct stat St;
  if (fstat(Fd, &St) != 0)
    return 0;
  int Locks = open("/proc/locks", O_RDONLY | O_CLOEXEC);
  if (Locks < 0)
    return 0;
  // Read line by line through a fixed buffer: the list can be long.
  char Buf[8192];
  size_t Have = 0;
  pid_t Holder = 0;
  for (;;) {
    ssize_t R = read(Locks, Buf + Have, sizeof(Buf) - 1 - Have);
    if (R < 0 && errno == EINTR)
      continue;
    if (R <= 0)
      break;
    Have += R;
    Buf[Have] = 0;
    char *Line = Buf, *End;
    while (!Holder && (End = strchr(Line, '\n'))) {
      *End = 0;
      Holder =
          holderOnLine(Line, major(St.st_dev), minor(St.st_dev), St.st_ino);
      Line = End + 1;
    }
    if (Holder)
      break;
    Have = Buf + Have - Line;
    if (Have == sizeof(Buf) - 1)
      Have = 0; // a line longer than the buffer: not a lock line
    memmove(Buf, Line, Have);
  }
  close(Locks);
  return Holder;
}

bool processExiting(pid_t Pid) {
  char Path[64], Buf[4096];
  snprintf(Path, sizeof(Path), "/proc/%d/stat", (int)Pid);
  if (!readProcFile(Path, Buf, sizeof(Buf)))
    return true;
  // After the command's closing parenthesis: state ppid pgrp session tty
  // tpgid flags.
  const char *P = strrchr(Buf, ')');
  char State;
  unsigned long Flags;
  if (!P || sscanf(P + 1, " %c %*d %*d %*d %*d %*d %lu", &State, &Flags) != 2)
    return false;
  const unsigned long PfExiting = 0x4;
  if (State == 'Z' || State == 'X' || (Flags & PfExiting))
    return true;
  snprintf(Path, sizeof(Path), "/proc/%d/status", (int)Pid);
  if (!readProcFile(Path, Buf, sizeof(Buf)))
    return true;
  const unsigned long long Kill = 1ULL << (SIGKILL - 1);
  static const char *const Fields[] = {"\nSigPnd:", "\nShdPnd:"};
  for (const char *Field : Fields)
    if (const char *F = strstr(Buf, Field))
      if (strtoull(F + strlen(Field), nullptr, 16) & Kill)
        return true;
  return false;
}

int lockRun(const char *Path, const char *What) {
  int Fd = open(Path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (Fd < 0)
    fatal("cannot create %s: %s", Path, strerror(errno));
  timespec T0;
  clock_gettime(CLOCK_MONOTONIC, &T0);
  pid_t Told = 0;
  for (;;) {
    if (flock(Fd, LOCK_EX | LOCK_NB) == 0) {
      if (Told)
        logMessage("%s released after %.1f s", Path, secondsSince(T0));
      return Fd;
    }
    if (errno == EINTR)
      continue;
    if (errno != EWOULDBLOCK)
      fatal("cannot lock %s: %s", Path, strerror(errno));
    pid_t Holder = flockHolder(Fd);
    double Waited = secondsSince(T0);
    if (Holder && !processExiting(Holder))
      fatal("%s is locked by process %d: another run of %s uses this "
            "CCC_DIR; wait for it to end or set CCC_DIR to another directory",
            Path, (int)Holder, What);
    if (!Holder && Waited > kUnlistedWaitSeconds)
      fatal("%s is locked by a process this one cannot see: another run "
            "of %s uses this CCC_DIR",
            Path, What);
    if (Waited > kExitingWaitSeconds)
      fatal("%s is still held by process %d, which has been exiting for "
            "%d s; it may be stuck in the kernel: end it, or set CCC_DIR to "
            "another directory",
            Path, (int)Holder, kExitingWaitSeconds);
    if (Holder && Holder != Told) {
      // A killed run's process lets go once its memory is unmapped.
      logMessage("waiting for process %d, which is exiting, to release %s",
                 (int)Holder, Path);
      Told = Holder;
    }
    usleep(20000);
  }
}
} // namespace ccc
